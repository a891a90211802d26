// MultibodySystem's bilateral contacts (core/bilateral_contact.hpp), constraint wrenches and
// contact Jacobians for controllers (models/multibody_system.hpp).
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/friction_law.hpp"
#include "models/multibody_system.hpp"

namespace hybridsim {
namespace {

// Whether `time` is the instant t of a time event (as handle_time_event finds input breakpoints).
bool due_at(double time, double t) {
  return std::isfinite(time) && time <= t && time > t - 1e-12 * std::max(1.0, std::abs(t));
}

}  // namespace

bool MultibodySystem::request_bilateral(int contact, bool on) {
  if (bilateral_on_.at(static_cast<std::size_t>(contact)) == (on ? 1 : 0)) {
    bilateral_requests_[contact] = -1;
    return false;
  }
  bilateral_requests_[contact] = on ? 1 : 0;
  return true;
}

EventRecord MultibodySystem::switch_bilateral(int c, bool on, double t, std::string_view why) {
  const BilateralContact& contact = model_.bilateral_contacts[c];
  EventRecord record;
  record.t = t;
  record.kind = on ? EventRecord::Kind::bilateral_on : EventRecord::Kind::bilateral_off;
  record.bilateral = contact.name;
  record.pair_a = model_.bodies[contact.body_a].name;
  record.pair_b = model_.bodies[contact.body_b].name;
  bilateral_on_[c] = on ? 1 : 0;
  bilateral_requests_[c] = -1;
  if (!on) {
    constraints_.set_bilateral(c, nullptr);
    record.description = fmt::format("bilateral {} off ({})", contact.name, why);
    return record;
  }
  // The frame: that of the deepest contact between the two bodies, else body A's axes at B's
  // origin.
  const BodyKinematics& A = kinematics_[contact.body_a];
  const BodyKinematics& B = kinematics_[contact.body_b];
  Vec3 p_W = B.X_WB.translation;
  Mat3 frame_W = A.X_WB.rotation;  // columns x, y, z
  double deepest = kInfinity;
  for (const auto& [id, pair] : contacts_.contacts()) {
    const int body_a = model_.shapes[pair.shape_a].body;
    const int body_b = model_.shapes[pair.shape_b].body;
    const bool forward = body_a == contact.body_a && body_b == contact.body_b;
    const bool reverse = body_a == contact.body_b && body_b == contact.body_a;
    if ((!forward && !reverse) || !(pair.geometry.distance < deepest)) continue;
    deepest = pair.geometry.distance;
    p_W = pair.geometry.contact_point_W();
    const Vec3 n_W = forward ? pair.geometry.n_AB_W : Vec3(-pair.geometry.n_AB_W);
    // The friction law's directions (contact_frame's): fdir1 of the pair's A, else of its B.
    const Shape& shape_a = model_.shapes[pair.shape_a];
    const Shape& shape_b = model_.shapes[pair.shape_b];
    Vec3 fdir1_W = Vec3::Zero();
    if (!shape_a.fdir1_B.isZero()) {
      fdir1_W = kinematics_[shape_a.body].X_WB.rotation * shape_a.fdir1_B;
    } else if (!shape_b.fdir1_B.isZero()) {
      fdir1_W = kinematics_[shape_b.body].X_WB.rotation * shape_b.fdir1_B;
    }
    Vec3 t1_W, t2_W;
    compute_friction_directions(n_W, fdir1_W, t1_W, t2_W);
    frame_W.col(0) = t1_W;
    frame_W.col(1) = t2_W;
    frame_W.col(2) = n_W;
  }
  Joint& weld = welds_[c];
  weld.type = JointType::fixed;
  weld.parent = contact.body_a;
  weld.child = contact.body_b;
  const Mat3 R_AW = A.X_WB.rotation.transpose();
  const Mat3 R_BW = B.X_WB.rotation.transpose();
  weld.p_PJ_P = R_AW * (p_W - A.X_WB.translation);
  weld.p_CJ_C = R_BW * (p_W - B.X_WB.translation);
  weld.axis_P = R_AW * frame_W.col(0);
  weld.u_P = R_AW * frame_W.col(1);
  weld.w_P = R_AW * frame_W.col(2);
  weld.axis_C = R_BW * frame_W.col(0);
  weld.u_C = R_BW * frame_W.col(1);
  constraints_.set_bilateral(c, &weld);
  record.point_W = p_W;
  record.normal_W = frame_W.col(2);
  record.description = fmt::format("bilateral {} on ({})", contact.name, why);
  return record;
}

bool MultibodySystem::bilateral_rule_armed(int c, double t) const {
  // A contact-start rule holds until the contact's off time.
  const BilateralContact& contact = model_.bilateral_contacts[c];
  return contact.on == BilateralContact::Trigger::contact_start && bilateral_on_[c] == 0 &&
         !(contact.off == BilateralContact::Trigger::time && t >= contact.off_time);
}

void MultibodySystem::apply_bilateral_rules(double t, VectorRef x, BilateralInstant instant,
                                            EventOutcome& outcome) {
  const bool time_event = instant == BilateralInstant::time_event;
  if (model_.bilateral_contacts.empty()) return;
  const std::size_t before = outcome.records.size();
  for (std::size_t c = 0; c < model_.bilateral_contacts.size(); ++c) {
    const BilateralContact& contact = model_.bilateral_contacts[c];
    const int i = static_cast<int>(c);
    if (bilateral_requests_[c] >= 0) {
      outcome.records.push_back(switch_bilateral(i, bilateral_requests_[c] == 1, t, "host"));
      continue;
    }
    if (time_event && bilateral_on_[c] != 0 && contact.off == BilateralContact::Trigger::time &&
        due_at(contact.off_time, t)) {
      outcome.records.push_back(switch_bilateral(i, false, t, "time"));
    } else if (bilateral_on_[c] == 0 && contact.on == BilateralContact::Trigger::time &&
               (time_event ? due_at(contact.on_time, t)
                           : instant == BilateralInstant::start && contact.on_time <= t) &&
               !(contact.off == BilateralContact::Trigger::time && contact.off_time <= t)) {
      outcome.records.push_back(switch_bilateral(i, true, t, "time"));
    } else if (bilateral_rule_armed(i, t)) {
      for (std::size_t r = 0; r < before; ++r) {
        const EventRecord& start = outcome.records[r];
        if (start.kind != EventRecord::Kind::contact_start) continue;
        int shape_a = -1;
        int shape_b = -1;
        int slot = 0;
        if (std::sscanf(start.contact_id.c_str(), "%d-%d#%d", &shape_a, &shape_b, &slot) != 3) {
          continue;
        }
        const int body_a = model_.shapes[shape_a].body;
        const int body_b = model_.shapes[shape_b].body;
        if ((body_a == contact.body_a && body_b == contact.body_b) ||
            (body_a == contact.body_b && body_b == contact.body_a)) {
          outcome.records.push_back(switch_bilateral(
              i, true, t, fmt::format("contact start of {} and {}", start.pair_a, start.pair_b)));
          break;
        }
      }
    }
  }
  if (outcome.records.size() == before) return;
  // A switch on captures the relative motion in the held directions (a plastic impact, mass
  // weighted: the projection's velocity step); positions are on the new rows already.
  if (!constraints_.project(x.data(), model_.simulation.constraint_tolerance)) {
    throw SolverError(fmt::format("t = {} s: a bilateral contact could not be satisfied", t));
  }
  constraints_.detect_redundancy();
  update_kinematics(x.data());
  outcome.state_changed = true;
}

void MultibodySystem::compute_constraint_wrenches(double t, ConstVectorRef x,
                                                  std::span<ConstraintWrench> wrenches) {
  // The multipliers of the ODE form at x (those of the DAE form agree to its tolerance).
  compute_wrenches(t, x.data());
  if (!constraints_.empty()) {
    evaluate_constraints();
    constraints_.solve_accelerations(model_.simulation.constraint_stabilization, nu_dot_);
  }
  const std::size_t joints = model_.joints.size();
  for (std::size_t j = 0; j < joints + model_.bilateral_contacts.size(); ++j) {
    ConstraintWrench& out = wrenches[j];
    const bool is_joint = j < joints;
    const Joint& frame = is_joint ? model_.joints[j] : welds_[j - joints];
    const int child = is_joint ? frame.child : model_.bilateral_contacts[j - joints].body_b;
    const BodyKinematics& C = kinematics_[child];
    if (!is_joint && bilateral_on_[j - joints] == 0) {
      out = {Vec3::Zero(), Vec3::Zero(), C.X_WB.translation};
      continue;
    }
    const int count =
        is_joint ? joint_row_count(frame) : model_.bilateral_contacts[j - joints].direction_count();
    const Vec6 wrench =
        constraints_.wrench_on_child(constraints_.first_row(static_cast<int>(j)), count);
    out.point_W = child_anchor_W(frame, C);
    out.force_W = wrench.head<3>();
    // Torque about the centre of mass = torque about the anchor + (anchor - com) x force.
    out.torque_W = wrench.tail<3>() - (out.point_W - C.p_WCom).cross(out.force_W);
  }
}

int MultibodySystem::velocity_column(int body) const {
  const Body& b = model_.bodies.at(static_cast<std::size_t>(body));
  return b.fixed ? -1 : 6 * (b.state_offset / kFreeBodyStateSize);
}

bool MultibodySystem::compute_contact_jacobian(ConstVectorRef x, const ContactId& id,
                                               ContactJacobian& out) {
  const auto it = contacts_.contacts().find(id);
  if (it == contacts_.contacts().end()) return false;
  const ContactPair& pair = it->second;
  update_kinematics(x.data());
  const SignedDistance geometry = compute_point_geometry(model_, pair, X_WS_);
  const Shape& shape_a = model_.shapes[pair.shape_a];
  const Shape& shape_b = model_.shapes[pair.shape_b];
  const BodyKinematics& A = kinematics_[shape_a.body];
  const BodyKinematics& B = kinematics_[shape_b.body];
  ContactFrame& frame = out.frame;
  frame.witness_A_W = geometry.p_A_W;
  frame.witness_B_W = geometry.p_B_W;
  frame.normal_W = geometry.n_AB_W;
  // The friction law's directions (fdir1 of A if it has one, else of B).
  Vec3 fdir1_W = Vec3::Zero();
  if (!shape_a.fdir1_B.isZero()) {
    fdir1_W = A.X_WB.rotation * shape_a.fdir1_B;
  } else if (!shape_b.fdir1_B.isZero()) {
    fdir1_W = B.X_WB.rotation * shape_b.fdir1_B;
  }
  compute_friction_directions(frame.normal_W, fdir1_W, frame.tangent1_W, frame.tangent2_W);
  frame.mu = pair.law.friction.mu_kinetic;
  frame.mu2 = pair.law.friction.mu_second();
  frame.law = &pair.law;
  frame.body_a = shape_a.body;
  frame.body_b = shape_b.body;
  out.point_A = compute_point_jacobian(A, geometry.p_A_W);
  out.point_B = compute_point_jacobian(B, geometry.p_B_W);
  return true;
}

}  // namespace hybridsim
