#include "models/multibody_system.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "collision/shape_geometry.hpp"
#include "collision/terrain_contact.hpp"
#include "core/errors.hpp"
#include "core/friction_law.hpp"

namespace hybridsim {
namespace {

// The thickness the step bound keeps every body's travel within half of: the thinnest collision
// shape's. With terrain, a shape that touches it with corners or vertices counts as only twice as
// thick as what they may travel into it unseen within a step (a corner a tenth of its shape's
// size), and only as thick as that where the terrain moves too (a prescribed mesh, a mesh on a
// free body under a box): both may travel their half.
double compute_step_thickness(const Model& model) {
  const auto body_of = [&](const Shape& s) -> const Body& {
    return model.bodies[static_cast<std::size_t>(s.body)];
  };
  // Terrain that is fixed, that moves as prescribed, and meshes on free bodies.
  bool fixed_terrain = false, prescribed_terrain = false, free_mesh = false;
  for (const Shape& s : model.shapes) {
    if (!s.collision || !is_terrain(s)) continue;
    (is_free_mesh(s) ? free_mesh : body_of(s).fixed ? fixed_terrain : prescribed_terrain) = true;
  }
  double smallest = kInfinity;
  for (const Shape& shape : model.shapes) {
    if (!shape.collision) continue;
    double thickness = compute_shape_thickness(shape);
    if (touches_terrain(shape.type) && (!is_terrain(shape) || is_free_mesh(shape))) {
      // Which terrain the shape meets, and whether both may move: a mesh on a free body meets the
      // other terrain (two free meshes never meet); another shape meets any terrain on a free
      // body, and only a free mesh's surface on a fixed or prescribed one (Model::may_collide:
      // two bodies that forces do not move never meet).
      const Body& body = body_of(shape);
      const bool mesh = is_free_mesh(shape);
      const bool immovable = body.fixed || body.prescribed;
      const bool meets = mesh        ? fixed_terrain || prescribed_terrain
                         : immovable ? free_mesh
                                     : fixed_terrain || prescribed_terrain || free_mesh;
      const bool both_move =
          !body.fixed &&
          (mesh ? prescribed_terrain : free_mesh || (!immovable && prescribed_terrain));
      if (meets) {
        thickness =
            std::min(thickness, (both_move ? 1.0 : 2.0) * compute_terrain_step_travel(shape));
      }
    }
    smallest = std::min(smallest, thickness);
  }
  return smallest;
}

}  // namespace

MultibodySystem::MultibodySystem(const Model& model)
    : model_(model),
      contacts_(model),
      patches_(find_friction_patches(model)),
      constraints_(model, patch_rows(patches_)),
      jointed_(model.bodies.size(), 0),
      kinematics_(model.bodies.size()),
      X_WS_(model.shapes.size()),
      wrenches_(model.bodies.size()),
      nu_dot_(model.bodies.size(), Vec6::Zero()),
      input_overridden_(model.inputs.size(), 0),
      input_override_values_(model.inputs.size(), Vec3::Zero()),
      joint_commands_(model.joints.size()),
      shape_wheel_(model.shapes.size(), -1),
      welds_(model.bilateral_contacts.size()),
      bilateral_on_(model.bilateral_contacts.size(), 0),
      bilateral_requests_(model.bilateral_contacts.size(), -1),
      limit_sides_(find_limit_sides(model)),
      limit_pushing_(limit_sides_.size(), 0),
      joint_limited_(model.joints.size(), 0) {
  for (std::size_t w = 0; w < model.wheels.size(); ++w) {
    for (int shape : model.wheels[w].shapes) shape_wheel_[shape] = static_cast<int>(w);
  }
  smallest_shape_thickness_ = compute_step_thickness(model);
  // Fixed bodies and their shapes never move: their kinematics and poses are computed once here,
  // and update_kinematics visits only the free bodies and their shapes.
  for (std::size_t i = 0; i < model.bodies.size(); ++i) {
    const Body& body = model.bodies[i];
    if (body.fixed) {
      compute_body_kinematics(body, nullptr, kinematics_[i]);
      for (int shape : body.shapes) X_WS_[shape] = kinematics_[i].X_WB * model.shapes[shape].X_BS;
    } else {
      free_bodies_.push_back(static_cast<int>(i));
      if (body.prescribed) prescribed_bodies_.push_back(static_cast<int>(i));
    }
  }
  body_of_state_.assign(static_cast<std::size_t>(model.state_size), -1);
  for (int body : free_bodies_) {
    std::fill_n(body_of_state_.begin() + model.bodies[body].state_offset, kFreeBodyStateSize, body);
  }
  for (const Joint& joint : model.joints) {
    if (joint.servo.command >= 0) has_servos_ = true;
    jointed_[joint.parent] = model.bodies[joint.parent].fixed ? 0 : 1;
    jointed_[joint.child] = model.bodies[joint.child].fixed ? 0 : 1;
  }
  // A bilateral contact's bodies take the constrained path always (its rows are inert while off).
  for (const BilateralContact& contact : model.bilateral_contacts) {
    jointed_[contact.body_a] = model.bodies[contact.body_a].fixed ? 0 : 1;
    jointed_[contact.body_b] = model.bodies[contact.body_b].fixed ? 0 : 1;
  }
  // So do a friction patch's.
  for (std::size_t p = 0; p < patches_.size(); ++p) {
    for (int body : {patches_[p].parent, patches_[p].child}) {
      jointed_[body] = model.bodies[body].fixed ? 0 : 1;
    }
    patch_index_.push_back({{patches_[p].parent, patches_[p].child}, static_cast<int>(p)});
  }
  patch_forces_.resize(patches_.size());
  std::sort(patch_index_.begin(), patch_index_.end());
  roll_rows_ = std::any_of(patches_.begin(), patches_.end(),
                           [](const FrictionPatch& patch) { return patch.rolling; });
  spin_rows_ = std::any_of(patches_.begin(), patches_.end(),
                           [](const FrictionPatch& patch) { return patch.torsional; });
}

void MultibodySystem::initial_state(VectorRef x0) const {
  for (const Body& body : model_.bodies) write_initial_body_state(body, x0.data());
}

void MultibodySystem::update_kinematics(const double* x) {
  for (int i : free_bodies_) {
    const Body& body = model_.bodies[i];
    compute_body_kinematics(body, x, kinematics_[i]);
    for (int shape : body.shapes) X_WS_[shape] = kinematics_[i].X_WB * model_.shapes[shape].X_BS;
  }
}

void MultibodySystem::apply_gravity_and_inputs(double t) {
  for (std::size_t i = 0; i < model_.bodies.size(); ++i) {
    wrenches_[i].set_zero();
    if (!model_.bodies[i].fixed) wrenches_[i].f_W = model_.bodies[i].mass * model_.gravity_W;
  }
  for (std::size_t i = 0; i < model_.inputs.size(); ++i) {
    const Input& input = model_.inputs[i];
    if (input.body < 0 || model_.bodies[input.body].fixed) continue;
    if (input.kind != Input::Kind::force && input.kind != Input::Kind::torque) continue;
    Vec3 value = input_value(static_cast<int>(i), t);
    if (input.body_frame) value = kinematics_[input.body].X_WB.rotation * value;
    if (input.kind == Input::Kind::force) {
      wrenches_[input.body].f_W += value;  // at the centre of mass
    } else {
      wrenches_[input.body].tau_Com_W += value;
    }
  }
}

void MultibodySystem::update_joint_commands(double t) {
  if (!has_servos_) return;
  for (std::size_t j = 0; j < model_.joints.size(); ++j) {
    const int command = model_.joints[j].servo.command;
    if (command < 0) continue;
    joint_commands_[j].velocity = input_value(command, t).x();
    joint_commands_[j].acceleration = input_rate(command, t).x();
  }
  constraints_.set_joint_commands(joint_commands_);
}

void MultibodySystem::apply_joint_efforts(double t) {
  update_joint_commands(t);
  for (std::size_t j = 0; j < model_.joints.size(); ++j) {
    const Joint& joint = model_.joints[j];
    const bool spring = joint.stiffness != 0.0 || joint.damping != 0.0;
    const bool servo = joint.servo.mode != JointServo::Mode::none && !joint.servo.ideal;
    const bool limited = joint_limited_[j] != 0;
    const bool friction = joint.friction > 0.0;
    if (joint.input < 0 && !spring && !servo && !limited && !friction) continue;
    const BodyKinematics& P = kinematics_[joint.parent];
    const BodyKinematics& C = kinematics_[joint.child];
    double effort = joint.input >= 0 ? input_value(joint.input, t).x() : 0.0;
    if (spring || servo || limited || friction) {
      const JointCoordinate q = compute_joint_coordinate(joint, P, C);
      effort -=
          joint.stiffness * (q.position - joint.spring_reference) + joint.damping * q.velocity;
      if (servo) effort += compute_servo_effort(joint, joint_commands_[j], q);
      if (limited) effort += joint_limit_effort(static_cast<int>(j), q);
      if (friction) {
        effort -= joint.friction * q.velocity /
                  regularize_speed(std::abs(q.velocity), joint.friction_speed);
      }
    }
    const Vec3 axis_W = P.X_WB.rotation * joint.axis_P;
    if (joint.type == JointType::revolute) {
      wrenches_[joint.child].tau_Com_W += effort * axis_W;
      wrenches_[joint.parent].tau_Com_W -= effort * axis_W;
    } else {  // prismatic (the loader allows efforts on these two types only)
      // Action and reaction at the child's anchor: no net moment on the pair.
      const Vec3 p_WJ = child_anchor_W(joint, C);
      wrenches_[joint.child].add_force_at(effort * axis_W, p_WJ, C.p_WCom);
      wrenches_[joint.parent].add_force_at(-effort * axis_W, p_WJ, P.p_WCom);
    }
  }
}

void MultibodySystem::apply_contact_forces(ContactResult* results) {
  if (!patches_.empty()) reset_patch_sums();
  std::size_t k = 0;
  for (const auto& [id, pair] : contacts_.contact_list()) {
    const ContactTerms terms =
        compute_contact_terms(pair, id.pair, results != nullptr ? &results[k] : nullptr);
    add_contact_terms(model_.shapes[pair.shape_b].body, terms, true);
    add_contact_terms(model_.shapes[pair.shape_a].body, terms, false);
    ++k;
  }
}

MultibodySystem::ContactTerms MultibodySystem::compute_contact_terms(const ContactPair& pair,
                                                                     PairId id,
                                                                     ContactResult* result) {
  const int wheel =
      shape_wheel_[pair.shape_a] >= 0 ? shape_wheel_[pair.shape_a] : shape_wheel_[pair.shape_b];
  if (wheel >= 0) return compute_wheel_contact_terms(pair, id, wheel, result);
  const Shape& shape_a = model_.shapes[pair.shape_a];
  const Shape& shape_b = model_.shapes[pair.shape_b];
  const SignedDistance geometry = compute_point_geometry(model_, pair, X_WS_);
  const BodyKinematics& body_a = kinematics_[shape_a.body];
  const BodyKinematics& body_b = kinematics_[shape_b.body];

  // Contact kinematics at C: the force-law distance is distanceOrg + eps (design.md §4).
  ContactKinematics contact;
  const Vec3 p_WC = geometry.contact_point_W();
  const Vec3& n = geometry.n_AB_W;
  const Vec3 v_rel_W = velocity_of_point(body_b, p_WC) - velocity_of_point(body_a, p_WC);
  contact.n_AB_W = n;
  contact.penetration = -(geometry.distance + contacts_.contact_eps());
  contact.penetration_rate = -v_rel_W.dot(n);
  contact.v_slip_W = v_rel_W - v_rel_W.dot(n) * n;
  contact.w_rel_W = body_b.w_WB_W - body_a.w_WB_W;
  contact.contact_count = pair.shape_pair_points;
  // fdir1 of A if it has one, else of B (body frame to world).
  if (!shape_a.fdir1_B.isZero()) {
    contact.fdir1_W = body_a.X_WB.rotation * shape_a.fdir1_B;
  } else if (!shape_b.fdir1_B.isZero()) {
    contact.fdir1_W = body_b.X_WB.rotation * shape_b.fdir1_B;
  }
  // A stick-slip contact's patch: sticking (no friction from the law), else its slip direction.
  FrictionPatch* patch = nullptr;
  double patch_sign = 1.0;
  if (pair.law.friction.model == FrictionModel::stick_slip) {
    const auto [p, sign] = patch_of_contact(pair);
    if (p >= 0) {
      patch = &patches_[p];
      patch_sign = sign;
      contact.sticking = patch->mode == FrictionPatch::Mode::sticking;
      contact.slip_direction_W = sign * patch->friction_direction_W;
      if (patch->rolls && patch->mode == FrictionPatch::Mode::sliding) {
        // Its points move over the child: each takes the force against its own slip.
        const Vec3 d_W = kinematics_[patch->parent].X_WB.rotation * patch->slip_direction_P;
        contact.slip_direction_W = compute_kinetic_friction_direction(contact.v_slip_W, sign * d_W);
      }
      // w_rel . n_AB is the patch's spin whichever body is A (both change sign together).
      contact.spin_sticking = patch->spin == FrictionPatch::Mode::sticking;
      contact.spin_direction = patch->spin == FrictionPatch::Mode::sliding ? patch->spin_sign : 0.0;
      contact.rolling_sticking = patch->roll == FrictionPatch::Mode::sticking;
      if (patch->roll == FrictionPatch::Mode::sliding) {
        const Vec3 d_W = kinematics_[patch->parent].X_WB.rotation * patch->roll_direction_P;
        // The slip's smoothing, its kSlipDirectionSpeed read as rad/s.
        const Vec3 w_tangent = contact.w_rel_W - contact.w_rel_W.dot(n) * n;
        contact.rolling_direction_W = compute_kinetic_friction_direction(w_tangent, sign * d_W);
      }
    }
  }
  const ContactForce force = compute_contact_force(pair.law, pair.damping, contact);
  if (patch != nullptr) {
    const double f_press = std::max(force.normal_force, 0.0);
    ++patch->points;
    patch->normal_force += f_press;
    patch->static_limit += pair.law.friction.mu_static * f_press;
    patch->spin_limit +=
        pair.law.torsional_friction * compute_spin_lever(pair.law, contact.penetration) * f_press;
    patch->roll_limit += pair.law.rolling_resistance * compute_rolling_lever(pair.law) * f_press;
    patch->point_sum_W += p_WC;
    patch->normal_sum_W += patch_sign * n;
    // The point lies half the penetration inside each surface: nearer each centre by that much.
    const double inside = 0.5 * std::max(contact.penetration, 0.0);
    const auto curvature = [inside](const Shape& shape) {
      const double r = shape.contact_sphere_radius - inside;
      return shape.flat || !(r > 0.0) || !std::isfinite(r) ? 0.0 : 1.0 / r;
    };
    patch->child_curvature_sum += curvature(patch_sign > 0.0 ? shape_b : shape_a);
    patch->parent_curvature_sum += curvature(patch_sign > 0.0 ? shape_a : shape_b);
  }

  if (result != nullptr) {
    fill_contact_result(*result, pair, id, geometry, contact, force, p_WC);
  }
  return make_contact_terms(force, p_WC, body_a, body_b);
}

MultibodySystem::ContactTerms MultibodySystem::make_contact_terms(const ContactForce& force,
                                                                  const Vec3& p_WC,
                                                                  const BodyKinematics& body_a,
                                                                  const BodyKinematics& body_b) {
  // B receives +F at C and +tau, A the opposite.
  ContactTerms terms;
  terms.f_B_W = force.f_B_W;
  terms.moment_B_W = (p_WC - body_b.p_WCom).cross(force.f_B_W);
  terms.tau_B_W = force.tau_B_W;
  terms.moment_A_W = (p_WC - body_a.p_WCom).cross(-force.f_B_W);
  return terms;
}

void MultibodySystem::fill_contact_result(ContactResult& r, const ContactPair& pair, PairId id,
                                          const SignedDistance& geometry,
                                          const ContactKinematics& contact,
                                          const ContactForce& force, const Vec3& p_WC) {
  r.pair = id;
  r.slot = pair.slot;
  r.feature_a = feature_numbers(pair.feature_a);
  r.feature_b = feature_numbers(pair.feature_b);
  r.witness_A_W = geometry.p_A_W;
  r.witness_B_W = geometry.p_B_W;
  r.shape_a = pair.shape_a;
  r.shape_b = pair.shape_b;
  r.penetration = contact.penetration;
  r.penetration_rate = contact.penetration_rate;
  r.slip_velocity_W = contact.v_slip_W;
  r.normal_force = force.normal_force;
  r.friction_force_W = force.friction_W;
  r.point_W = p_WC;
  r.normal_W = contact.n_AB_W;
  r.force_on_B_W = force.f_B_W;
  r.torque_on_B_W = force.tau_B_W;
}

void MultibodySystem::add_contact_terms(int body, const ContactTerms& terms, bool body_is_b) {
  BodyWrench& wrench = wrenches_[body];
  if (body_is_b) {
    wrench.f_W += terms.f_B_W;
    wrench.tau_Com_W += terms.moment_B_W;
    wrench.tau_Com_W += terms.tau_B_W;
  } else {
    wrench.f_W += -terms.f_B_W;
    wrench.tau_Com_W += terms.moment_A_W;
    wrench.tau_Com_W -= terms.tau_B_W;
  }
}

void MultibodySystem::evaluate_constraints() {
  if (!patches_.empty()) reanchor_rolling_welds();
  for (int i : free_bodies_) {
    if (jointed_[i] != 0) {
      nu_dot_[i] = compute_body_acceleration(model_.bodies[i], kinematics_[i], wrenches_[i]);
    }
  }
  constraints_.evaluate(kinematics_);
}

void MultibodySystem::write_body_rates(const double* x, double* xdot) {
  for (int i : free_bodies_) {
    if (model_.bodies[i].prescribed) {
      write_prescribed_rates(i, x, xdot);
    } else if (jointed_[i] != 0) {
      write_body_derivatives(model_.bodies[i], kinematics_[i], nu_dot_[i], x, xdot);
    } else {
      compute_body_derivatives(model_.bodies[i], kinematics_[i], wrenches_[i], x, xdot);
    }
  }
}

void MultibodySystem::write_derivatives(const double* x, double* xdot) {
  if (!constraints_.empty()) {
    evaluate_constraints();
    constraints_.solve_accelerations(model_.simulation.constraint_stabilization, nu_dot_);
  }
  write_body_rates(x, xdot);
}

void MultibodySystem::compute_wrenches(double t, const double* x) {
  time_ = t;
  update_kinematics(x);
  apply_gravity_and_inputs(t);
  apply_joint_efforts(t);
  apply_contact_forces(nullptr);
}

void MultibodySystem::compute_derivatives(double t, ConstVectorRef x, VectorRef xdot) {
  ++rhs_count_;
  compute_wrenches(t, x.data());
  write_derivatives(x.data(), xdot.data());
}

void MultibodySystem::guess_algebraic(double t, ConstVectorRef x, VectorRef lambda) {
  // The multipliers of the ODE form at x: consistent with its accelerations.
  if (constraints_.empty()) return;
  compute_wrenches(t, x.data());
  evaluate_constraints();
  constraints_.solve_accelerations(model_.simulation.constraint_stabilization, nu_dot_);
  const std::span<const double> multipliers = constraints_.multipliers();
  for (int i = 0; i < constraints_.row_count(); ++i) lambda[i] = multipliers[i];
}

void MultibodySystem::compute_residual(double t, ConstVectorRef y, ConstVectorRef yp,
                                       VectorRef residual) {
  ++rhs_count_;
  const int n = model_.state_size;
  const int m = constraints_.row_count();
  compute_wrenches(t, y.data());
  // State equations: x' - f(x, lambda), the constraint forces G^T lambda added to the others.
  const std::span<const double> lambda{y.data() + n, static_cast<std::size_t>(m)};
  if (m > 0) {
    evaluate_constraints();
    constraints_.add_constraint_accelerations(lambda, nu_dot_);
  }
  write_body_rates(y.data(), residual.data());
  residual.head(n) = yp.head(n) - residual.head(n);
  if (m == 0) return;
  // Constraint equations on the accelerations that y' holds.
  for (int i : free_bodies_) {
    if (jointed_[i] != 0) {
      nu_dot_[i] = body_acceleration_from_derivatives(model_.bodies[i], kinematics_[i], yp.data());
    }
  }
  constraints_.acceleration_residual(model_.simulation.constraint_stabilization, nu_dot_, lambda,
                                     {residual.data() + n, static_cast<std::size_t>(m)});
}

void MultibodySystem::compute_crossings(double t, ConstVectorRef x, VectorRef z) {
  update_kinematics(x.data());
  contacts_.compute_crossings(X_WS_, z[0], z[1]);
  if (!patches_.empty()) compute_friction_crossings(t, x.data(), z[2], z[3]);
  if (!limit_sides_.empty()) {
    const int offset = limit_crossing_offset();
    compute_limit_crossings(z[offset], z[offset + 1]);
  }
}

EventOutcome MultibodySystem::rebuild_contacts(double t, std::string_view crossing, VectorRef x) {
  // Restarts begin from unit quaternions and, with joints, from a state on the constraint manifold
  // (changes of the order of the integrator's tolerance).
  for (const Body& body : model_.bodies) normalize_body_quaternion(body, x.data());
  set_prescribed_velocities(t, x.data());
  update_joint_commands(t);
  // A rolling patch's weld was anchored at the last evaluation, maybe at a trial state: anchor it
  // at x before the projection holds its velocity there.
  const bool rolling_weld = std::any_of(patches_.begin(), patches_.end(), [](const auto& patch) {
    return patch.rolls && patch.mode == FrictionPatch::Mode::sticking;
  });
  if (rolling_weld) {
    compute_wrenches(t, x.data());
    reanchor_rolling_welds();
  }
  if (!constraints_.project(x.data(), model_.simulation.constraint_tolerance)) {
    throw SolverError(fmt::format(
        "t = {} s: the joint constraints could not be satisfied (largest position error {} after "
        "50 Newton iterations)",
        t, constraints_.max_position_error()));
  }
  update_kinematics(x.data());
  EventOutcome outcome;
  outcome.state_changed = true;
  outcome.records = contacts_.rebuild_contacts(t, crossing, X_WS_, kinematics_);
  update_joint_limits(t, outcome.records);
  return outcome;
}

EventOutcome MultibodySystem::initialize(double t0, VectorRef x) {
  contacts_.reset();  // a new run: no stored contact data carries over
  for (std::size_t c = 0; c < bilateral_on_.size(); ++c) {
    bilateral_on_[c] = 0;
    bilateral_requests_[c] = -1;
    constraints_.set_bilateral(static_cast<int>(c), nullptr);
  }
  for (std::size_t p = 0; p < patches_.size(); ++p) {
    patches_[p].mode = FrictionPatch::Mode::apart;
    patches_[p].spin = FrictionPatch::Mode::apart;
    set_patch_weld(static_cast<int>(p), false, {});
    patches_[p].roll = FrictionPatch::Mode::apart;
    if (spin_rows_) set_spin_weld(static_cast<int>(p), false, {});
    if (roll_rows_) set_roll_weld(static_cast<int>(p), false, {});
  }
  std::fill(limit_pushing_.begin(), limit_pushing_.end(), 0);
  EventOutcome outcome = rebuild_contacts(t0, "", x);  // projects x onto the joints first
  constraints_.detect_redundancy();
  apply_bilateral_rules(t0, x, BilateralInstant::start, outcome);
  update_friction_patches(t0, x, outcome);
  return outcome;
}

void MultibodySystem::append_weld_frame(const Joint& weld, std::vector<double>& discrete) {
  for (const Vec3* v :
       {&weld.p_PJ_P, &weld.p_CJ_C, &weld.axis_P, &weld.u_P, &weld.w_P, &weld.axis_C, &weld.u_C}) {
    discrete.insert(discrete.end(), v->data(), v->data() + 3);
  }
}

void MultibodySystem::read_weld_frame(const double* numbers, int parent, int child, Joint& weld) {
  weld.type = JointType::fixed;
  weld.parent = parent;
  weld.child = child;
  for (Vec3* v :
       {&weld.p_PJ_P, &weld.p_CJ_C, &weld.axis_P, &weld.u_P, &weld.w_P, &weld.axis_C, &weld.u_C}) {
    *v = Vec3(numbers[0], numbers[1], numbers[2]);
    numbers += 3;
  }
}

std::vector<double> MultibodySystem::discrete_state() const {
  // contactDict's numbers, then per bilateral contact whether it is on and its weld frame.
  std::vector<double> discrete = contacts_.stored_pairs();
  for (std::size_t c = 0; c < welds_.size(); ++c) {
    discrete.push_back(bilateral_on_[c]);
    const Joint& w = welds_[c];
    append_weld_frame(w, discrete);
  }
  // Then per friction patch its mode, slip direction and weld frame.
  for (const FrictionPatch& patch : patches_) {
    discrete.push_back(static_cast<double>(patch.mode));
    for (const Vec3* v : {&patch.slip_direction_P, &patch.anchor_C, &patch.normal_P}) {
      discrete.insert(discrete.end(), v->data(), v->data() + 3);
    }
    const Joint& w = patch.weld;
    append_weld_frame(w, discrete);
    append_roll_state(patch, discrete);
    if (!spin_rows_) continue;
    discrete.push_back(static_cast<double>(patch.spin));
    discrete.push_back(patch.spin_sign);
    discrete.insert(discrete.end(), patch.spin_normal_P.data(), patch.spin_normal_P.data() + 3);
    const Joint& s = patch.spin_weld;
    append_weld_frame(s, discrete);
  }
  return discrete;
}

EventOutcome MultibodySystem::restore_discrete_state(double t0, VectorRef x,
                                                     std::span<const double> discrete) {
  // x is a state the run had after an event (unit quaternions, on the joints): taken as it is.
  contacts_.reset();
  update_kinematics(x.data());
  const std::size_t patch_numbers = patch_discrete_size() * patches_.size();
  const std::size_t bilateral_numbers = kBilateralDiscreteSize * welds_.size();
  if (discrete.size() < bilateral_numbers + patch_numbers) {
    throw InputError(
        "checkpoint: its discrete state is shorter than the bilateral contacts and friction "
        "patches need");
  }
  const std::size_t contact_numbers = discrete.size() - bilateral_numbers - patch_numbers;
  contacts_.restore(discrete.first(contact_numbers), X_WS_);
  // The limit sides follow from x (a checkpoint is taken after an event's switches).
  std::fill(limit_pushing_.begin(), limit_pushing_.end(), 0);
  std::vector<EventRecord> limit_records;
  update_joint_limits(t0, limit_records);
  for (std::size_t c = 0; c < welds_.size(); ++c) {
    const double* d = discrete.data() + contact_numbers + kBilateralDiscreteSize * c;
    Joint& w = welds_[c];
    read_weld_frame(d + 1, model_.bilateral_contacts[c].body_a, model_.bilateral_contacts[c].body_b,
                    w);
    for (int i = 0; i < static_cast<int>(kBilateralDiscreteSize); ++i) {
      if (!std::isfinite(d[i])) {
        throw InputError(fmt::format("checkpoint: bilateral contact '{}' has a non-finite number",
                                     model_.bilateral_contacts[c].name));
      }
    }
    for (const Vec3* axis : {&w.axis_P, &w.u_P, &w.w_P, &w.axis_C, &w.u_C}) {
      if (std::abs(axis->norm() - 1.0) > 1e-9) {
        throw InputError(
            fmt::format("checkpoint: bilateral contact '{}' has a frame axis of "
                        "length {} (must be 1)",
                        model_.bilateral_contacts[c].name, axis->norm()));
      }
    }
    bilateral_on_[c] = d[0] != 0.0 ? 1 : 0;
    bilateral_requests_[c] = -1;
    constraints_.set_bilateral(static_cast<int>(c), bilateral_on_[c] != 0 ? &w : nullptr);
  }
  for (std::size_t p = 0; p < patches_.size(); ++p) {
    const double* d = discrete.data() + discrete.size() - patch_numbers + patch_discrete_size() * p;
    FrictionPatch& patch = patches_[p];
    for (std::size_t i = 0; i < patch_discrete_size(); ++i) {
      if (!std::isfinite(d[i])) {
        throw InputError(fmt::format("checkpoint: friction patch {} has a non-finite number", p));
      }
    }
    if (d[0] != 0.0 && d[0] != 1.0 && d[0] != 2.0) {
      throw InputError(fmt::format("checkpoint: friction patch {} has mode {}", p, d[0]));
    }
    patch.mode = static_cast<FrictionPatch::Mode>(static_cast<int>(d[0]));
    patch.slip_direction_P = Vec3(d[1], d[2], d[3]);
    patch.anchor_C = Vec3(d[4], d[5], d[6]);
    patch.normal_P = Vec3(d[7], d[8], d[9]);
    Joint& w = patch.weld;
    read_weld_frame(d + 10, patch.parent, patch.child, w);
    const int slot = static_cast<int>(model_.bilateral_contacts.size() + p);
    const bool sticking = patch.mode == FrictionPatch::Mode::sticking;
    constraints_.set_bilateral(slot, sticking ? &w : nullptr);
    if (roll_rows_) restore_roll_state(static_cast<int>(p), d + kPatchDiscreteSize);
    if (!spin_rows_) continue;
    const double* e = d + kPatchDiscreteSize + (roll_rows_ ? kRollDiscreteSize : 0);
    if (e[0] != 0.0 && e[0] != 1.0 && e[0] != 2.0) {
      throw InputError(fmt::format("checkpoint: friction patch {} has spin mode {}", p, e[0]));
    }
    patch.spin = static_cast<FrictionPatch::Mode>(static_cast<int>(e[0]));
    patch.spin_sign = e[1];
    if (patch.spin == FrictionPatch::Mode::sliding && std::abs(patch.spin_sign) != 1.0) {
      throw InputError(
          fmt::format("checkpoint: friction patch {} has spin sense {} (must be 1 "
                      "or -1 while it turns)",
                      p, patch.spin_sign));
    }
    if (!patch.torsional && patch.spin != FrictionPatch::Mode::apart) {
      throw InputError(
          fmt::format("checkpoint: friction patch {} has no torsional stick but a "
                      "spin mode {}",
                      p, e[0]));
    }
    patch.spin_normal_P = Vec3(e[2], e[3], e[4]);
    Joint& s = patch.spin_weld;
    read_weld_frame(e + 5, patch.parent, patch.child, s);
    const bool spin_sticking = patch.spin == FrictionPatch::Mode::sticking;
    constraints_.set_bilateral(spin_slot(static_cast<int>(p)), spin_sticking ? &s : nullptr);
  }
  if (!patches_.empty()) {
    // Which patches roll is not stored: it follows from their points at x. A rolling patch holds
    // by velocity, so its weld is anchored where it is now; the others keep the stored anchors.
    for (FrictionPatch& patch : patches_) patch.rolls = false;
    compute_wrenches(t0, x.data());
    classify_rolling_patches();
  }
  constraints_.evaluate(kinematics_);
  constraints_.detect_redundancy();
  return {};
}

EventOutcome MultibodySystem::handle_state_event(double t, VectorRef x,
                                                 std::span<const int> roots_found) {
  std::string crossing;
  for (std::size_t i = 0; i < roots_found.size(); ++i) {
    if (roots_found[i] == 0) continue;
    crossing += fmt::format("{}z{}", crossing.empty() ? "" : ",", i + 1);
  }
  EventOutcome outcome = rebuild_contacts(t, crossing, x);
  apply_bilateral_rules(t, x, BilateralInstant::state_event, outcome);
  update_friction_patches(t, x, outcome, !patches_.empty() && roots_found[2] != 0);
  return outcome;
}

Vec3 MultibodySystem::input_value(int input, double t) const {
  return input_overridden_[input] != 0 ? input_override_values_[input]
                                       : evaluate_signal(model_.inputs[input].signal, t);
}

void MultibodySystem::set_input_override(int input, const Vec3& value) {
  input_overridden_.at(input) = 1;
  input_override_values_[input] = value;
}

void MultibodySystem::clear_input_override(int input) {
  input_overridden_.at(input) = 0;
}

double MultibodySystem::next_time_event(double t) const {
  double next = kInfinity;
  for (std::size_t i = 0; i < model_.inputs.size(); ++i) {
    if (input_overridden_[i] != 0) continue;  // a host value has no breakpoints
    next = std::min(next, next_signal_breakpoint(model_.inputs[i].signal, t));
  }
  // A bilateral contact's next switch by time: on while it is off, off while it is on (the other
  // is asked for again after the restart of that switch). NaN (no time) compares false.
  for (std::size_t c = 0; c < bilateral_on_.size(); ++c) {
    const BilateralContact& contact = model_.bilateral_contacts[c];
    const double switch_time = bilateral_on_[c] != 0 ? contact.off_time : contact.on_time;
    if (switch_time > t) next = std::min(next, switch_time);
  }
  return next;
}

EventOutcome MultibodySystem::handle_time_event(double t, VectorRef x) {
  EventOutcome outcome;
  for (std::size_t i = 0; i < model_.inputs.size(); ++i) {
    const Input& input = model_.inputs[i];
    if (input_overridden_[i] != 0) continue;
    // The breakpoint that brought us here: the next one after just before t is t itself.
    if (next_signal_breakpoint(input.signal, t - 1e-12 * std::max(1.0, std::abs(t))) > t) continue;
    EventRecord record;
    record.t = t;
    record.kind = EventRecord::Kind::time_event;
    record.description = fmt::format("input {}", input.name);
    outcome.records.push_back(std::move(record));
  }
  // Contacts are re-examined at every restart, as at state events.
  EventOutcome contacts = rebuild_contacts(t, "", x);
  outcome.state_changed = contacts.state_changed;
  outcome.records.insert(outcome.records.end(), contacts.records.begin(), contacts.records.end());
  apply_bilateral_rules(t, x, BilateralInstant::time_event, outcome);
  update_friction_patches(t, x, outcome);
  return outcome;
}

std::vector<double> MultibodySystem::state_scales() const {
  std::vector<double> scales(static_cast<std::size_t>(model_.state_size), 0.0);
  for (const Body& body : model_.bodies) {
    if (body.state_offset < 0) continue;
    const auto first = static_cast<std::size_t>(body.state_offset);
    for (std::size_t i = 0; i < static_cast<std::size_t>(kFreeBodyStateSize); ++i) {
      // Positions 1 mm: an increment of 1.5e-11 m, below any contact depth of interest.
      scales[first + i] = i < 3 ? 1e-3 : 1.0;  // then quaternion, linear and angular velocity
    }
  }
  return scales;
}

std::vector<bool> MultibodySystem::velocity_mask() const {
  std::vector<bool> mask(static_cast<std::size_t>(model_.state_size), false);
  for (const Body& body : model_.bodies) {
    if (body.state_offset < 0) continue;
    for (int i = kFreeBodyVelocityOffset; i < kFreeBodyStateSize; ++i) {
      mask[static_cast<std::size_t>(body.state_offset + i)] = true;
    }
  }
  return mask;
}

std::vector<int> MultibodySystem::coupled_sets(bool through_contacts) const {
  // Union-find over the bodies: joints (and, if asked, the pairs in contactDict) join the sets of
  // their two bodies when both are free; fixed bodies couple nothing.
  std::vector<int> root(model_.bodies.size());
  std::iota(root.begin(), root.end(), 0);
  auto find = [&root](int body) {
    while (root[body] != body) body = root[body] = root[root[body]];
    return body;
  };
  auto join = [&](int body_a, int body_b) {
    if (model_.bodies[body_a].fixed || model_.bodies[body_b].fixed) return;
    root[find(body_a)] = find(body_b);
  };
  for (const Joint& joint : model_.joints) join(joint.parent, joint.child);
  for (std::size_t c = 0; c < bilateral_on_.size(); ++c) {
    const BilateralContact& contact = model_.bilateral_contacts[c];
    if (bilateral_on_[c] != 0) join(contact.body_a, contact.body_b);
  }
  if (through_contacts) {
    for (const auto& [id, pair] : contacts_.contact_list()) {
      join(model_.shapes[pair.shape_a].body, model_.shapes[pair.shape_b].body);
    }
  }
  for (std::size_t body = 0; body < root.size(); ++body) root[body] = find(static_cast<int>(body));
  return root;
}

void MultibodySystem::state_coupling(std::span<int> group_of_state) const {
  const std::vector<int> set = coupled_sets(true);
  for (int body : free_bodies_) {
    const int offset = model_.bodies[body].state_offset;
    std::fill_n(group_of_state.begin() + offset, kFreeBodyStateSize, set[body]);
  }
}

void MultibodySystem::local_states(std::span<char> local) const {
  std::fill(local.begin(), local.end(), char{0});
  for (int body : free_bodies_) {
    // State layout: position (3), quaternion (4), then the velocities (6).
    std::fill_n(local.begin() + model_.bodies[body].state_offset, kFreeBodyVelocityOffset, char{1});
  }
}

void MultibodySystem::state_blocks(std::span<int> block_of_state,
                                   std::vector<std::pair<int, int>>& coupled_blocks) const {
  const std::vector<int> set = coupled_sets(false);
  for (int body : free_bodies_) {
    const int offset = model_.bodies[body].state_offset;
    std::fill_n(block_of_state.begin() + offset, kFreeBodyStateSize, set[body]);
  }
  coupled_blocks.clear();
  for (const auto& [id, pair] : contacts_.contact_list()) {
    const int body_a = model_.shapes[pair.shape_a].body;
    const int body_b = model_.shapes[pair.shape_b].body;
    if (model_.bodies[body_a].fixed || model_.bodies[body_b].fixed) continue;
    if (set[body_a] != set[body_b]) coupled_blocks.emplace_back(set[body_a], set[body_b]);
  }
}

double MultibodySystem::max_step_hint(double /*t*/, ConstVectorRef x) const {
  // A step must not carry a body through the thinnest collision shape unseen (design.md §4):
  // with speed bound v + g h over the step, travel v h + g h^2 <= L gives the bound on h, with
  // L half the thinnest shape. Applied inputs are not included in the bound.
  if (!std::isfinite(smallest_shape_thickness_)) return kInfinity;
  const double travel = 0.5 * smallest_shape_thickness_;
  const double g = model_.gravity_W.norm();
  double bound = kInfinity;
  for (const Body& body : model_.bodies) {
    if (body.fixed) continue;
    BodyKinematics kinematics;
    compute_body_kinematics(body, x.data(), kinematics);
    double reach = 0.0;  // largest distance of a shape point from the centre of mass
    for (int shape : body.shapes) {
      const Shape& s = model_.shapes[shape];
      const double extent = compute_bounding_radius(s);
      reach = std::max(reach, (s.X_BS.translation - body.p_BCom_B).norm() + extent);
    }
    const double v = kinematics.v_WCom_W.norm() + kinematics.w_WB_W.norm() * reach;
    const double h = g > 0.0 ? (-v + std::sqrt(v * v + 4.0 * g * travel)) / (2.0 * g)
                             : (v > 0.0 ? travel / v : kInfinity);
    bound = std::min(bound, h);
  }
  return bound;
}

std::span<const BodyKinematics> MultibodySystem::compute_kinematics(ConstVectorRef x) {
  update_kinematics(x.data());
  return kinematics_;
}

double MultibodySystem::compute_energy(ConstVectorRef x) {
  const EnergyParts parts = compute_energy_parts(x);
  return parts.kinetic + parts.potential + parts.elastic;
}

MultibodySystem::EnergyParts MultibodySystem::compute_energy_parts(ConstVectorRef x) {
  update_kinematics(x.data());
  EnergyParts energy;
  for (std::size_t i = 0; i < model_.bodies.size(); ++i) {
    const Body& body = model_.bodies[i];
    if (body.fixed || body.prescribed) continue;  // a prescribed body's energy is external work
    energy.kinetic += compute_kinetic_energy(body, kinematics_[i]);
    energy.potential -= body.mass * model_.gravity_W.dot(kinematics_[i].p_WCom);
  }
  for (std::size_t j = 0; j < model_.joints.size(); ++j) {
    const Joint& joint = model_.joints[j];
    if (joint.stiffness == 0.0 && joint_limited_[j] == 0) continue;
    const JointCoordinate q =
        compute_joint_coordinate(joint, kinematics_[joint.parent], kinematics_[joint.child]);
    const double stretch = q.position - joint.spring_reference;
    energy.potential += 0.5 * joint.stiffness * stretch * stretch;
    energy.potential += joint_limit_energy(static_cast<int>(j), q);
  }
  const double eps = contacts_.contact_eps();
  for (const auto& [id, pair] : contacts_.contact_list()) {
    if (pair.law.observer) continue;  // no force, no stored energy
    const SignedDistance geometry = compute_point_geometry(model_, pair, X_WS_);
    energy.elastic += compute_elastic_energy(pair.law, -(geometry.distance + eps));
  }
  return energy;
}

std::vector<ContactResult> MultibodySystem::compute_contact_results(ConstVectorRef x) {
  std::vector<ContactResult> results(contacts_.contact_list().size());
  update_kinematics(x.data());
  apply_contact_forces(results.data());  // also adds into the wrench scratch, reset every RHS
  return results;
}

std::vector<JointCoordinate> MultibodySystem::compute_joint_coordinates(ConstVectorRef x) {
  update_kinematics(x.data());
  std::vector<JointCoordinate> coordinates;
  coordinates.reserve(model_.joints.size());
  for (const Joint& joint : model_.joints) {
    coordinates.push_back(
        compute_joint_coordinate(joint, kinematics_[joint.parent], kinematics_[joint.child]));
  }
  return coordinates;
}

MultibodySystem::ConstraintError MultibodySystem::compute_constraint_error(ConstVectorRef x,
                                                                           double t) {
  update_kinematics(x.data());
  update_joint_commands(t);
  constraints_.evaluate(kinematics_);
  return {constraints_.max_position_error(), constraints_.max_velocity_error()};
}

}  // namespace hybridsim
