// MultibodySystem's stick-slip friction (models/multibody_system.hpp: FrictionPatch). Stick and
// slip are discrete states like the contact set (design.md §4b): they change only at restarts,
// each switch is a logged event, and a sticking patch is held by two constraint rows of the joint
// machinery (core/joint_constraints.hpp: evaluate_weld_rows), with Baumgarte stabilisation on the
// ODE solvers and as algebraic rows on IDA. With torsional_stick the spin about the patch normal
// is a second such state, held by one rotation row; with rolling_stick the rolling (the relative
// rotation about the tangents) a third, held by two.
//
// Why one patch per pair of bodies and not per contact point: a rigid body touching at several
// points (a box on its four corners) has a statically indeterminate split of the tangential load
// among them. Only the total is determined, so the static cone is checked on the total,
// |f_t| <= sum_i mu_s f_n,i, which is Coulomb's law for the whole flat contact; per-point rows
// would take an arbitrary split from the solver's regularisation and break away corner by
// corner at loads that depend on it.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/friction_law.hpp"
#include "models/multibody_system.hpp"

namespace hybridsim {
namespace {

// Force on the child of a weld's first two rows (the tangent plane), from their multipliers.
Vec3 tangential_force(const ConstraintSolver& solver, int first_row) {
  return solver.wrench_on_child(first_row, 2).head<3>();
}

}  // namespace

std::vector<MultibodySystem::FrictionPatch> MultibodySystem::find_friction_patches(
    const Model& model) {
  const bool any = std::any_of(
      model.contact_materials.begin(), model.contact_materials.end(),
      [](const ContactMaterial& cm) { return cm.friction.model == FrictionModel::stick_slip; });
  if (!any) return {};
  std::vector<std::pair<int, int>> bodies;
  // The pairs of bodies with and without torsional stick, and with and without rolling stick.
  std::vector<std::pair<int, int>> torsional, turning, rolling, free_rolling;
  const int shapes = static_cast<int>(model.shapes.size());
  for (int a = 0; a < shapes; ++a) {
    for (int b = a + 1; b < shapes; ++b) {
      if (!model.may_collide(a, b)) continue;
      const FrictionParameters friction = resolve_contact_law(model, a, b).friction;
      if (friction.model != FrictionModel::stick_slip) continue;
      const int body_a = model.shapes[a].body;
      const int body_b = model.shapes[b].body;
      for (int body : {body_a, body_b}) {
        if (model.bodies[body].prescribed) {
          throw NotSupportedError(fmt::format(
              "contact materials: stick_slip friction between {} and {}: a prescribed body cannot "
              "stick (its motion is given, and sticking is a constraint); give the pair another "
              "friction model",
              model.shape_label(a), model.shape_label(b)));
        }
      }
      bodies.emplace_back(std::min(body_a, body_b), std::max(body_a, body_b));
      (friction.torsional_stick ? torsional : turning).push_back(bodies.back());
      (friction.rolling_stick ? rolling : free_rolling).push_back(bodies.back());
    }
  }
  // A patch's spin (rolling) is one state for all its contacts: they must agree on the option.
  const auto check_agreement = [&](const auto& with, const auto& without, const char* key,
                                   const char* what) {
    for (const auto& pair : with) {
      if (std::find(without.begin(), without.end(), pair) == without.end()) continue;
      throw InputError(
          fmt::format("contact materials: bodies {} and {} touch through pairs with and without "
                      "friction.{}; their {} is one state, so give all their pairs the same",
                      model.bodies[pair.first].name, model.bodies[pair.second].name, key, what));
    }
  };
  check_agreement(torsional, turning, "torsional_stick", "spin");
  check_agreement(rolling, free_rolling, "rolling_stick", "rolling");
  std::sort(bodies.begin(), bodies.end());
  bodies.erase(std::unique(bodies.begin(), bodies.end()), bodies.end());
  if (bodies.size() > kMaxFrictionPatches) {
    throw InputError(fmt::format(
        "contact materials: stick_slip friction can join {} pairs of bodies; at most {} are "
        "supported (each takes constraint rows in every evaluation)",
        bodies.size(), kMaxFrictionPatches));
  }
  std::vector<FrictionPatch> patches(bodies.size());
  for (std::size_t p = 0; p < bodies.size(); ++p) {
    patches[p].parent = bodies[p].first;
    patches[p].child = bodies[p].second;
    patches[p].torsional =
        std::find(torsional.begin(), torsional.end(), bodies[p]) != torsional.end();
    patches[p].rolling = std::find(rolling.begin(), rolling.end(), bodies[p]) != rolling.end();
  }
  return patches;
}

std::vector<BilateralContact> MultibodySystem::patch_rows(std::span<const FrictionPatch> patches) {
  std::vector<BilateralContact> rows(patches.size());
  for (std::size_t p = 0; p < patches.size(); ++p) {
    rows[p].name = fmt::format("stick {}", p);
    rows[p].body_a = patches[p].parent;
    rows[p].body_b = patches[p].child;
    rows[p].directions = {true, true, false, false, false, false};  // the tangent plane
  }
  // With torsional stick anywhere, a spin row per patch after them (inert unless it sticks).
  const bool spin = std::any_of(patches.begin(), patches.end(),
                                [](const FrictionPatch& patch) { return patch.torsional; });
  for (std::size_t p = 0; spin && p < patches.size(); ++p) {
    BilateralContact row = rows[p];
    row.name = fmt::format("spin {}", p);
    row.directions = {false, false, false, false, false, true};  // rotation about the normal
    rows.push_back(row);
  }
  // With rolling stick anywhere, two rolling rows per patch after those (inert unless it sticks).
  const bool roll = std::any_of(patches.begin(), patches.end(),
                                [](const FrictionPatch& patch) { return patch.rolling; });
  for (std::size_t p = 0; roll && p < patches.size(); ++p) {
    BilateralContact row = rows[p];
    row.name = fmt::format("roll {}", p);
    row.directions = {false, false, false, true, true, false};  // rotation about the tangents
    rows.push_back(row);
  }
  return rows;
}

int MultibodySystem::patch_of(int body_a, int body_b) const {
  const std::pair<int, int> key{std::min(body_a, body_b), std::max(body_a, body_b)};
  const auto it =
      std::lower_bound(patch_index_.begin(), patch_index_.end(), key,
                       [](const auto& entry, const auto& k) { return entry.first < k; });
  return it != patch_index_.end() && it->first == key ? it->second : -1;
}

std::pair<int, double> MultibodySystem::patch_of_contact(const ContactPair& pair) const {
  const int body_a = model_.shapes[pair.shape_a].body;
  const int body_b = model_.shapes[pair.shape_b].body;
  const int p = patch_of(body_a, body_b);
  if (p < 0) return {-1, 1.0};
  return {p, patches_[p].parent == body_a ? 1.0 : -1.0};
}

void MultibodySystem::reset_patch_sums() {
  for (FrictionPatch& patch : patches_) {
    patch.points = 0;
    patch.normal_force = 0.0;
    patch.static_limit = 0.0;
    patch.spin_limit = 0.0;
    patch.roll_limit = 0.0;
    patch.point_sum_W.setZero();
    patch.child_curvature_sum = 0.0;
    patch.parent_curvature_sum = 0.0;
    patch.normal_sum_W.setZero();
    patch.friction_direction_W.setZero();
    if (patch.mode != FrictionPatch::Mode::sliding || patch.rolls) continue;
    const Vec3 d_W = kinematics_[patch.parent].X_WB.rotation * patch.slip_direction_P;
    patch.friction_direction_W = compute_kinetic_friction_direction(sliding_patch_slip(patch), d_W);
  }
}

Vec3 MultibodySystem::sliding_patch_slip(const FrictionPatch& patch) const {
  const BodyKinematics& P = kinematics_[patch.parent];
  const BodyKinematics& C = kinematics_[patch.child];
  const Vec3 p_W = C.X_WB.rotation * patch.anchor_C + C.X_WB.translation;
  const Vec3 n_W = P.X_WB.rotation * patch.normal_P;
  const Vec3 v_rel = velocity_of_point(C, p_W) - velocity_of_point(P, p_W);
  return v_rel - v_rel.dot(n_W) * n_W;
}

MultibodySystem::PatchKinematics MultibodySystem::patch_kinematics(
    const FrictionPatch& patch) const {
  PatchKinematics at;
  if (patch.points == 0) return at;
  at.point_W = patch.point_sum_W / patch.points;
  const double length = patch.normal_sum_W.norm();
  if (length > 0.0) at.normal_W = patch.normal_sum_W / length;
  const Vec3 v_rel = velocity_of_point(kinematics_[patch.child], at.point_W) -
                     velocity_of_point(kinematics_[patch.parent], at.point_W);
  at.slip_W = v_rel - v_rel.dot(at.normal_W) * at.normal_W;
  return at;
}

void MultibodySystem::solve_patch_forces(double t, const double* x, std::span<PatchForce> forces) {
  compute_wrenches(t, x);  // also the patches' sums
  evaluate_constraints();
  constraints_.solve_accelerations(model_.simulation.constraint_stabilization, nu_dot_);
  const int joints = static_cast<int>(model_.joints.size());
  const int first = joints + static_cast<int>(model_.bilateral_contacts.size());
  for (std::size_t p = 0; p < patches_.size(); ++p) {
    const FrictionPatch& patch = patches_[p];
    PatchForce& force = forces[p];
    force.normal_force = patch.normal_force;
    force.static_limit = patch.static_limit;
    force.tangential_W =
        patch.mode == FrictionPatch::Mode::sticking
            ? tangential_force(constraints_, constraints_.first_row(first + static_cast<int>(p)))
            : Vec3::Zero();
    force.spin_limit = patch.spin_limit;
    force.spin_torque = 0.0;
    if (patch.spin == FrictionPatch::Mode::sticking) {
      const int row = constraints_.first_row(joints + spin_slot(static_cast<int>(p)));
      const Vec3 n_W = kinematics_[patch.parent].X_WB.rotation * patch.spin_normal_P;
      force.spin_torque = constraints_.wrench_on_child(row, 1).tail<3>().dot(n_W);
    }
    force.roll_limit = patch.roll_limit;
    force.roll_torque_W.setZero();
    if (patch.roll == FrictionPatch::Mode::sticking) {
      const int row = constraints_.first_row(joints + roll_slot(static_cast<int>(p)));
      force.roll_torque_W = constraints_.wrench_on_child(row, 2).tail<3>();
    }
  }
}

std::vector<MultibodySystem::PatchForce> MultibodySystem::compute_patch_forces(double t,
                                                                               ConstVectorRef x) {
  std::vector<PatchForce> forces(patches_.size());
  if (!patches_.empty()) solve_patch_forces(t, x.data(), forces);
  return forces;
}

std::vector<ContactResult> MultibodySystem::compute_contact_results(double t, ConstVectorRef x) {
  std::vector<ContactResult> results = compute_contact_results(x);
  const bool any_sticking =
      std::any_of(patches_.begin(), patches_.end(), [](const FrictionPatch& patch) {
        return patch.mode == FrictionPatch::Mode::sticking ||
               patch.spin == FrictionPatch::Mode::sticking ||
               patch.roll == FrictionPatch::Mode::sticking;
      });
  if (!any_sticking) return results;
  const std::vector<PatchForce> forces = compute_patch_forces(t, x);
  for (ContactResult& r : results) {
    const int body_a = model_.shapes[r.shape_a].body;
    const int p = patch_of(body_a, model_.shapes[r.shape_b].body);
    if (p < 0) continue;
    const double sign = patches_[p].parent == body_a ? 1.0 : -1.0;  // B is the child
    if (!(forces[p].normal_force > 0.0)) continue;
    const Vec3 share_W =  // zero unless the patch sticks
        sign * std::max(r.normal_force, 0.0) / forces[p].normal_force * forces[p].tangential_W;
    r.friction_force_W += share_W;
    r.force_on_B_W += share_W;
    if (patches_[p].spin == FrictionPatch::Mode::sticking) {
      const Vec3 n_W = kinematics_[patches_[p].parent].X_WB.rotation * patches_[p].spin_normal_P;
      r.torque_on_B_W += sign * std::max(r.normal_force, 0.0) / forces[p].normal_force *
                         forces[p].spin_torque * n_W;
    }
    r.torque_on_B_W +=  // zero unless the rolling sticks
        sign * std::max(r.normal_force, 0.0) / forces[p].normal_force * forces[p].roll_torque_W;
  }
  return results;
}

void MultibodySystem::compute_friction_crossings(double t, const double* x, double& z_stick,
                                                 double& z_slip) {
  // z3 = max over sticking patches (and spins and rollings) of their break_away_excess, rising at a
  // break-away; z4 = min over sliding patches of the slip along the last direction (m/s), falling
  // where it stops. Constants of the right sign when a set is empty.
  z_stick = -1.0;
  z_slip = 1.0;
  bool any_sticking = false;
  for (const FrictionPatch& patch : patches_) {
    any_sticking = any_sticking || patch.mode == FrictionPatch::Mode::sticking ||
                   patch.spin == FrictionPatch::Mode::sticking ||
                   patch.roll == FrictionPatch::Mode::sticking;
  }
  const bool rolling_slide = std::any_of(patches_.begin(), patches_.end(), [](const auto& patch) {
    return patch.rolls && patch.mode == FrictionPatch::Mode::sliding;
  });
  if (rolling_slide && !any_sticking) compute_wrenches(t, x);  // the points where they slip
  if (any_sticking) {
    std::vector<PatchForce>& forces = patch_forces_;
    solve_patch_forces(t, x, forces);
    for (std::size_t p = 0; p < patches_.size(); ++p) {
      if (patches_[p].mode == FrictionPatch::Mode::sticking) {
        const double value =
            break_away_excess(forces[p].tangential_W.norm(), forces[p].static_limit);
        z_stick = std::max(z_stick, value);
      }
      if (patches_[p].spin == FrictionPatch::Mode::sticking) {
        const double value =
            break_away_excess(std::abs(forces[p].spin_torque), forces[p].spin_limit);
        z_stick = std::max(z_stick, value);
      }
      if (patches_[p].roll == FrictionPatch::Mode::sticking) {
        const double value =
            break_away_excess(forces[p].roll_torque_W.norm(), forces[p].roll_limit);
        z_stick = std::max(z_stick, value);
      }
    }
  }
  // A sliding patch has contacts: one whose contacts ended came apart at that event.
  for (const FrictionPatch& patch : patches_) {
    if (patch.mode != FrictionPatch::Mode::sliding) continue;
    const Vec3 direction_W = kinematics_[patch.parent].X_WB.rotation * patch.slip_direction_P;
    const Vec3 slip_W = patch.rolls ? patch_kinematics(patch).slip_W : sliding_patch_slip(patch);
    z_slip = std::min(z_slip, slip_W.dot(direction_W));
  }
  for (const FrictionPatch& patch : patches_) {
    if (patch.spin != FrictionPatch::Mode::sliding) continue;
    const Vec3 n_W = kinematics_[patch.parent].X_WB.rotation * patch.spin_normal_P;
    z_slip = std::min(z_slip, patch_spin(patch, n_W) * patch.spin_sign);  // rad/s among m/s
  }
  for (const FrictionPatch& patch : patches_) {
    if (patch.roll != FrictionPatch::Mode::sliding) continue;
    const Vec3 d_W = kinematics_[patch.parent].X_WB.rotation * patch.roll_direction_P;
    z_slip = std::min(
        z_slip,
        (kinematics_[patch.child].w_WB_W - kinematics_[patch.parent].w_WB_W).dot(d_W));  // rad/s
  }
}

double MultibodySystem::break_away_excess(double load, double limit) const {
  const double excess = load - (1.0 + kStaticLimitMargin) * limit;
  if (!spin_rows_ && !roll_rows_) return excess;  // N
  // Forces (N) and torques (N m) together: relative to the limit, so that they compare.
  // Without a limit (no normal force) only the sign tells, and it stays finite for the root finder.
  return limit > 0.0 ? excess / limit : excess;
}

double MultibodySystem::patch_spin(const FrictionPatch& patch, const Vec3& n_W) const {
  return (kinematics_[patch.child].w_WB_W - kinematics_[patch.parent].w_WB_W).dot(n_W);
}

Vec3 MultibodySystem::patch_rolling(const FrictionPatch& patch, const Vec3& n_W) const {
  const Vec3 w_rel_W = kinematics_[patch.child].w_WB_W - kinematics_[patch.parent].w_WB_W;
  return w_rel_W - w_rel_W.dot(n_W) * n_W;
}

int MultibodySystem::spin_slot(int p) const {
  return static_cast<int>(model_.bilateral_contacts.size() + patches_.size()) + p;
}

int MultibodySystem::roll_slot(int p) const {
  const std::size_t before = (spin_rows_ ? 2 : 1) * patches_.size();
  return static_cast<int>(model_.bilateral_contacts.size() + before) + p;
}

void MultibodySystem::set_slide_anchor(FrictionPatch& patch, const PatchKinematics& at) const {
  const BodyKinematics& P = kinematics_[patch.parent];
  const BodyKinematics& C = kinematics_[patch.child];
  patch.anchor_C = C.X_WB.rotation.transpose() * (at.point_W - C.X_WB.translation);
  patch.normal_P = P.X_WB.rotation.transpose() * at.normal_W;
}

void MultibodySystem::set_patch_weld(int p, bool on, const PatchKinematics& at) {
  FrictionPatch& patch = patches_[p];
  const int slot = static_cast<int>(model_.bilateral_contacts.size()) + p;
  if (!on) {
    constraints_.set_bilateral(slot, nullptr);
    return;
  }
  make_patch_weld(patch, at, patch.weld);
  constraints_.set_bilateral(slot, &patch.weld, patch.rolls);
}

void MultibodySystem::reanchor_rolling_welds() {
  for (std::size_t p = 0; p < patches_.size(); ++p) {
    FrictionPatch& patch = patches_[p];
    if (!patch.rolls || patch.mode != FrictionPatch::Mode::sticking || patch.points == 0) continue;
    const PatchKinematics at = patch_kinematics(patch);
    const Vec3 p_dot_W = moving_point_velocity(patch, at);
    make_patch_weld(patch, at, patch.weld);
    const int slot = static_cast<int>(model_.bilateral_contacts.size() + p);
    constraints_.set_bilateral(slot, &patch.weld, true, p_dot_W);
    if (patch.spin != FrictionPatch::Mode::sticking) continue;
    // A held spin too: about the current normal (a child axis would turn as it rolls).
    make_patch_weld(patch, at, patch.spin_weld);
    patch.spin_normal_P = kinematics_[patch.parent].X_WB.rotation.transpose() * at.normal_W;
    constraints_.set_bilateral(spin_slot(static_cast<int>(p)), &patch.spin_weld, true, p_dot_W);
  }
}

Vec3 MultibodySystem::moving_point_velocity(const FrictionPatch& patch,
                                            const PatchKinematics& at) const {
  const BodyKinematics& P = kinematics_[patch.parent];
  const BodyKinematics& C = kinematics_[patch.child];
  if (patch.points == 0) return Vec3::Zero();
  const double kappa_C = patch.child_curvature_sum / patch.points;
  const double kappa_P = patch.parent_curvature_sum / patch.points;
  const Vec3 v_C = velocity_of_point(C, at.point_W);
  const Vec3 v_P = velocity_of_point(P, at.point_W);
  // Two flat faces (a box on its edge): the point stays with the bodies.
  if (!(kappa_C + kappa_P > 0.0)) return 0.5 * (v_C + v_P);
  // kappa_C v_C(p + n / kappa_C) + kappa_P v_P(p - n / kappa_P), over kappa_C + kappa_P, written
  // so that a flat side (kappa 0, its centre at infinity) stays finite: a board rolling on a
  // fixed ball moves the point over the ball at w x n / kappa_P.
  const Vec3& n = at.normal_W;
  return (kappa_C * v_C + C.w_WB_W.cross(n) + kappa_P * v_P - P.w_WB_W.cross(n)) /
         (kappa_C + kappa_P);
}

void MultibodySystem::classify_rolling_patches() {
  for (std::size_t p = 0; p < patches_.size(); ++p) {
    FrictionPatch& patch = patches_[p];
    const bool rolls = patch.points > 0 && patch.points <= kRollingPatchPoints &&
                       patch.roll != FrictionPatch::Mode::sticking;
    const bool changed = rolls != patch.rolls;
    patch.rolls = rolls;
    if (!changed) continue;
    // Held by the other kind of rows from here, anchored where it is.
    const PatchKinematics at = patch_kinematics(patch);
    if (patch.mode == FrictionPatch::Mode::sticking) set_patch_weld(static_cast<int>(p), true, at);
    if (patch.mode == FrictionPatch::Mode::sliding) set_slide_anchor(patch, at);
    if (patch.spin == FrictionPatch::Mode::sticking) set_spin_weld(static_cast<int>(p), true, at);
  }
}

void MultibodySystem::set_roll_weld(int p, bool on, const PatchKinematics& at) {
  FrictionPatch& patch = patches_[p];
  if (!on) {
    constraints_.set_bilateral(roll_slot(p), nullptr);
    return;
  }
  make_patch_weld(patch, at, patch.roll_weld);
  constraints_.set_bilateral(roll_slot(p), &patch.roll_weld);
}

void MultibodySystem::set_spin_weld(int p, bool on, const PatchKinematics& at) {
  FrictionPatch& patch = patches_[p];
  const int slot = spin_slot(p);
  if (!on) {
    constraints_.set_bilateral(slot, nullptr);
    return;
  }
  make_patch_weld(patch, at, patch.spin_weld);
  patch.spin_normal_P = kinematics_[patch.parent].X_WB.rotation.transpose() * at.normal_W;
  // A rolling patch's spin is held by velocity, re-anchored with its translation.
  constraints_.set_bilateral(slot, &patch.spin_weld, patch.rolls,
                             patch.rolls ? moving_point_velocity(patch, at) : Vec3::Zero());
}

void MultibodySystem::make_patch_weld(const FrictionPatch& patch, const PatchKinematics& at,
                                      Joint& weld) const {
  Vec3 t1_W, t2_W;
  compute_friction_directions(at.normal_W, Vec3::Zero(), t1_W, t2_W);
  const BodyKinematics& P = kinematics_[patch.parent];
  const BodyKinematics& C = kinematics_[patch.child];
  const Mat3 R_PW = P.X_WB.rotation.transpose();
  const Mat3 R_CW = C.X_WB.rotation.transpose();
  weld.type = JointType::fixed;
  weld.parent = patch.parent;
  weld.child = patch.child;
  weld.p_PJ_P = R_PW * (at.point_W - P.X_WB.translation);
  weld.p_CJ_C = R_CW * (at.point_W - C.X_WB.translation);
  weld.axis_P = R_PW * t1_W;
  weld.u_P = R_PW * t2_W;
  weld.w_P = R_PW * at.normal_W;
  weld.axis_C = R_CW * t1_W;
  weld.u_C = R_CW * t2_W;
}

EventRecord MultibodySystem::patch_record(int p, bool stick, double t, const PatchForce& force,
                                          const PatchKinematics& at, PatchPart part) const {
  const FrictionPatch& patch = patches_[p];
  EventRecord record;
  record.t = t;
  record.kind = stick ? EventRecord::Kind::stick : EventRecord::Kind::slip;
  record.pair_a = model_.bodies[patch.parent].name;
  record.pair_b = model_.bodies[patch.child].name;
  record.point_W = at.point_W;
  record.normal_W = at.normal_W;
  record.tangential_force = force.tangential_W.norm();
  record.normal_force = force.normal_force;
  record.description =
      fmt::format("{} {} on {}: |f_t| = {:.9g} N, mu_s f_n = {:.9g} N", stick ? "stick" : "slip",
                  record.pair_b, record.pair_a, record.tangential_force, force.static_limit);
  if (part == PatchPart::rolling) {
    // The rolling of the patch: the torque about the tangents in the description.
    record.tangential_force = kNaN;
    record.description = fmt::format("{} roll {} on {}: |tau_t| = {:.9g} N m, limit {:.9g} N m",
                                     stick ? "stick" : "slip", record.pair_b, record.pair_a,
                                     force.roll_torque_W.norm(), force.roll_limit);
  }
  if (part == PatchPart::spin) {
    // The spin of the patch: the torque about the normal in the description, no tangential force.
    record.tangential_force = kNaN;
    record.description = fmt::format("{} spin {} on {}: |tau_n| = {:.9g} N m, limit {:.9g} N m",
                                     stick ? "stick" : "slip", record.pair_b, record.pair_a,
                                     std::abs(force.spin_torque), force.spin_limit);
  }
  return record;
}

void MultibodySystem::update_patch_spins(const std::vector<PatchKinematics>& at) {
  using Mode = FrictionPatch::Mode;
  for (std::size_t p = 0; p < patches_.size(); ++p) {
    FrictionPatch& patch = patches_[p];
    if (!patch.torsional || patch.points == 0 || patch.spin == Mode::sticking) continue;
    const double spin = patch_spin(patch, at[p].normal_W);
    if (std::abs(spin) > kStickSpin) {
      patch.spin = Mode::sliding;  // turning on (a new contact, or a spin that turned)
      patch.spin_sign = spin > 0.0 ? 1.0 : -1.0;
      patch.spin_normal_P = kinematics_[patch.parent].X_WB.rotation.transpose() * at[p].normal_W;
    } else {
      patch.spin = Mode::sticking;  // a candidate, as for translation
      set_spin_weld(static_cast<int>(p), true, at[p]);
    }
  }
}

void MultibodySystem::update_patch_rolls(const std::vector<PatchKinematics>& at) {
  using Mode = FrictionPatch::Mode;
  for (std::size_t p = 0; p < patches_.size(); ++p) {
    FrictionPatch& patch = patches_[p];
    if (!patch.rolling || patch.points == 0 || patch.roll == Mode::sticking) continue;
    const Vec3 rolling_W = patch_rolling(patch, at[p].normal_W);
    const double rate = rolling_W.norm();
    if (rate > kStickSpin) {
      patch.roll = Mode::sliding;  // rolling on (a new contact, or a rolling that turned)
      patch.roll_direction_P =
          kinematics_[patch.parent].X_WB.rotation.transpose() * (rolling_W / rate);
    } else {
      patch.roll = Mode::sticking;  // a candidate, as for translation
      set_roll_weld(static_cast<int>(p), true, at[p]);
    }
  }
}

void MultibodySystem::update_friction_patches(double t, VectorRef x, EventOutcome& outcome,
                                              bool break_away_root) {
  if (patches_.empty()) return;
  using Mode = FrictionPatch::Mode;
  std::vector<Mode> before(patches_.size());
  std::vector<Mode> before_spin(patches_.size());
  std::vector<Mode> before_roll(patches_.size());
  std::vector<PatchKinematics> at(patches_.size());
  std::vector<PatchForce> forces(patches_.size());
  compute_wrenches(t, x.data());  // the patches' points at x
  classify_rolling_patches();
  for (std::size_t p = 0; p < patches_.size(); ++p) {
    FrictionPatch& patch = patches_[p];
    before[p] = patch.mode;
    before_spin[p] = patch.spin;
    before_roll[p] = patch.roll;
    at[p] = patch_kinematics(patch);
    if (patch.points == 0) {
      // Its contacts ended (their contact_end records say so).
      if (patch.mode == Mode::sticking) set_patch_weld(static_cast<int>(p), false, at[p]);
      if (patch.spin == Mode::sticking) set_spin_weld(static_cast<int>(p), false, at[p]);
      if (patch.roll == Mode::sticking) set_roll_weld(static_cast<int>(p), false, at[p]);
      patch.mode = Mode::apart;
      patch.spin = Mode::apart;
      patch.roll = Mode::apart;
      continue;
    }
    const double slip_speed = at[p].slip_W.norm();
    if (patch.mode != Mode::sticking && slip_speed > kStickSpeed) {
      // Sliding on (a new contact, or a direction that turned): the slip's direction now.
      patch.mode = Mode::sliding;
      patch.slip_direction_P =
          kinematics_[patch.parent].X_WB.rotation.transpose() * (at[p].slip_W / slip_speed);
      set_slide_anchor(patch, at[p]);
    } else if (patch.mode != Mode::sticking) {
      patch.mode = Mode::sticking;  // a candidate: it sticks if the force that holds it may
      set_patch_weld(static_cast<int>(p), true, at[p]);
    }
  }
  update_patch_spins(at);
  update_patch_rolls(at);
  // The static cone (and the spin's and the rolling's limits), checked with every sticking patch
  // held: the worst violator slides, then the others are checked again with it sliding (each pass
  // releases one of at most three parts per patch, so this ends). A patch at its limit (excess 0)
  // slides: the root of z3 stands where the excess is zero or just past it. At such a root, the
  // patch (or spin) that stuck before with the largest excess breaks away even if the root left it
  // a rounding below (measured as z3 does: in N, or relative to the limit when spins stick too:
  // break_away_excess).
  for (std::size_t pass = 0; pass <= 3 * patches_.size(); ++pass) {
    solve_patch_forces(t, x.data(), forces);
    int worst = -1;
    PatchPart worst_part = PatchPart::translation;
    double worst_excess = -kInfinity;
    const auto consider = [&](int p, PatchPart part, double load, double limit, bool was_sticking) {
      const double excess = break_away_excess(load, limit);
      const bool at_root = pass == 0 && break_away_root && was_sticking;
      // A patch held by no force at all (zero load on zero normal force) stays.
      if (load > 0.0 && (excess >= 0.0 || at_root) && excess > worst_excess) {
        worst = p;
        worst_part = part;
        worst_excess = excess;
      }
    };
    for (std::size_t p = 0; p < patches_.size(); ++p) {
      const int i = static_cast<int>(p);
      if (patches_[p].mode == Mode::sticking) {
        consider(i, PatchPart::translation, forces[p].tangential_W.norm(), forces[p].static_limit,
                 before[p] == Mode::sticking);
      }
      if (patches_[p].spin == Mode::sticking) {
        consider(i, PatchPart::spin, std::abs(forces[p].spin_torque), forces[p].spin_limit,
                 before_spin[p] == Mode::sticking);
      }
      if (patches_[p].roll == Mode::sticking) {
        consider(i, PatchPart::rolling, forces[p].roll_torque_W.norm(), forces[p].roll_limit,
                 before_roll[p] == Mode::sticking);
      }
    }
    if (worst < 0) break;
    FrictionPatch& patch = patches_[worst];
    if (worst_part == PatchPart::rolling) {
      // It rolls the way the load turns it: against the torque that was holding it.
      patch.roll_direction_P = kinematics_[patch.parent].X_WB.rotation.transpose() *
                               -forces[worst].roll_torque_W.normalized();  // |tau| > 0 here
      patch.roll = Mode::sliding;
      set_roll_weld(worst, false, at[worst]);
      if (before_roll[worst] == Mode::sticking) {
        outcome.records.push_back(
            patch_record(worst, false, t, forces[worst], at[worst], PatchPart::rolling));
      }
      continue;
    }
    if (worst_part == PatchPart::spin) {
      // It turns the way the load turns it: against the torque that was holding it.
      patch.spin_sign = forces[worst].spin_torque > 0.0 ? -1.0 : 1.0;
      patch.spin = Mode::sliding;
      set_spin_weld(worst, false, at[worst]);
      if (before_spin[worst] == Mode::sticking) {
        outcome.records.push_back(
            patch_record(worst, false, t, forces[worst], at[worst], PatchPart::spin));
      }
      continue;
    }
    // It slides the way the load pushes it: against the force that was holding it.
    const Vec3 direction_W = -forces[worst].tangential_W.normalized();  // |f_t| > 0 here
    patch.slip_direction_P = kinematics_[patch.parent].X_WB.rotation.transpose() * direction_W;
    patch.mode = Mode::sliding;
    set_slide_anchor(patch, at[worst]);
    set_patch_weld(worst, false, at[worst]);
    if (before[worst] == Mode::sticking) {
      outcome.records.push_back(patch_record(worst, false, t, forces[worst], at[worst]));
    }
  }
  bool switched = false;
  for (std::size_t p = 0; p < patches_.size(); ++p) {
    const int i = static_cast<int>(p);
    const bool now = patches_[p].mode == Mode::sticking;
    if (now != (before[p] == Mode::sticking)) {
      switched = true;
      if (now) outcome.records.push_back(patch_record(i, true, t, forces[p], at[p]));
    }
    const bool spin_now = patches_[p].spin == Mode::sticking;
    if (spin_now != (before_spin[p] == Mode::sticking)) {
      switched = true;
      if (spin_now) {
        outcome.records.push_back(patch_record(i, true, t, forces[p], at[p], PatchPart::spin));
      }
    }
    const bool roll_now = patches_[p].roll == Mode::sticking;
    if (roll_now != (before_roll[p] == Mode::sticking)) {
      switched = true;
      if (roll_now) {
        outcome.records.push_back(patch_record(i, true, t, forces[p], at[p], PatchPart::rolling));
      }
    }
  }
  classify_rolling_patches();  // a patch whose rolling stuck or broke away changes its hold
  if (!switched) return;
  // A patch that sticks captures the slip left at the event (below kStickSpeed): the projection's
  // mass-weighted velocity step; its anchor lies on the rows already.
  if (!constraints_.project(x.data(), model_.simulation.constraint_tolerance)) {
    throw SolverError(fmt::format("t = {} s: a sticking contact could not be held", t));
  }
  constraints_.detect_redundancy();
  update_kinematics(x.data());
  outcome.state_changed = true;
}

void MultibodySystem::append_roll_state(const FrictionPatch& patch,
                                        std::vector<double>& discrete) const {
  if (!roll_rows_) return;
  discrete.push_back(static_cast<double>(patch.roll));
  discrete.insert(discrete.end(), patch.roll_direction_P.data(), patch.roll_direction_P.data() + 3);
  append_weld_frame(patch.roll_weld, discrete);
}

void MultibodySystem::restore_roll_state(int p, const double* e) {
  FrictionPatch& patch = patches_[p];
  if (e[0] != 0.0 && e[0] != 1.0 && e[0] != 2.0) {
    throw InputError(fmt::format("checkpoint: friction patch {} has rolling mode {}", p, e[0]));
  }
  patch.roll = static_cast<FrictionPatch::Mode>(static_cast<int>(e[0]));
  if (!patch.rolling && patch.roll != FrictionPatch::Mode::apart) {
    throw InputError(fmt::format(
        "checkpoint: friction patch {} has no rolling stick but a rolling mode {}", p, e[0]));
  }
  patch.roll_direction_P = Vec3(e[1], e[2], e[3]);
  if (patch.roll == FrictionPatch::Mode::sliding &&
      std::abs(patch.roll_direction_P.norm() - 1.0) > 1e-9) {
    throw InputError(fmt::format(
        "checkpoint: friction patch {} has a rolling direction of length {} (must be 1)", p,
        patch.roll_direction_P.norm()));
  }
  read_weld_frame(e + 4, patch.parent, patch.child, patch.roll_weld);
  const bool sticking = patch.roll == FrictionPatch::Mode::sticking;
  constraints_.set_bilateral(roll_slot(p), sticking ? &patch.roll_weld : nullptr);
}

}  // namespace hybridsim
