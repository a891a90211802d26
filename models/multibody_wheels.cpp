// MultibodySystem's wheels (models/multibody_system.hpp): the contact law of a wheel's contact in
// its wheel contact frame, and the wheel outputs.
#include <algorithm>
#include <cmath>

#include "collision/shape_geometry.hpp"
#include "core/friction_law.hpp"
#include "models/multibody_system.hpp"

namespace hybridsim {

MultibodySystem::ContactTerms MultibodySystem::compute_wheel_contact_terms(const ContactPair& pair,
                                                                           PairId id, int w,
                                                                           ContactResult* result) {
  const Wheel& wheel = model_.wheels[w];
  const bool wheel_is_a = shape_wheel_[pair.shape_a] == w;
  const int ground_shape = wheel_is_a ? pair.shape_b : pair.shape_a;
  const SignedDistance geometry = compute_point_geometry(model_, pair, X_WS_);
  const BodyKinematics& body_a = kinematics_[model_.shapes[pair.shape_a].body];
  const BodyKinematics& body_b = kinematics_[model_.shapes[pair.shape_b].body];
  const BodyKinematics& wheel_body = wheel_is_a ? body_a : body_b;
  const BodyKinematics& ground_body = wheel_is_a ? body_b : body_a;

  // The wheel contact frame at the geometric contact point C.
  const Vec3 p_WC = geometry.contact_point_W();
  const Vec3& n_AB = geometry.n_AB_W;
  const Vec3 n_into_ground = wheel_is_a ? n_AB : Vec3(-n_AB);
  const Vec3 axis_W = wheel_body.X_WB.rotation * wheel.axis_B;
  const Vec3 p_WCenter = wheel_body.X_WB.transform_point(wheel.p_BCenter_B);
  const Vec3 v_ground_C = velocity_of_point(ground_body, p_WC);
  const WheelContactState frame = compute_wheel_contact(
      n_into_ground, axis_W, p_WCenter, p_WC, velocity_of_point(wheel_body, p_WCenter) - v_ground_C,
      velocity_of_point(wheel_body, p_WC) - v_ground_C, wheel_body.w_WB_W.dot(axis_W));

  // Plowing: the normal force on the wheel tilts backward about t_lat (and, if lateral, against
  // the lateral motion about t_lon) and its point turns with it about the centre, so that the
  // tilted normal keeps its line through the wheel centre. Penetration and its rate stay those of
  // the undeformed surface.
  Vec3 up = -n_into_ground;  // normal force direction on the wheel
  Vec3 p_WApply = p_WC;
  if (model_.shapes[ground_shape].plowable && wheel.plowing.max_angle > 0.0) {
    const double sign_lon = frame.v_W_lon >= 0.0 ? 1.0 : -1.0;
    Quat tilt(Eigen::AngleAxisd(plowing_angle(wheel.plowing, std::abs(frame.v_W_lon)),
                                -sign_lon * frame.t_lat_W));
    if (wheel.plowing.lateral) {
      const double sign_lat = frame.v_W_lat >= 0.0 ? 1.0 : -1.0;
      tilt = Quat(Eigen::AngleAxisd(plowing_angle(wheel.plowing, std::abs(frame.v_W_lat)),
                                    sign_lat * frame.t_lon_W)) *
             tilt;
    }
    up = tilt * up;
    p_WApply = p_WCenter + tilt * (p_WC - p_WCenter);
  }
  const Vec3 n_law = wheel_is_a ? Vec3(-up) : up;  // the law's normal, from A to B

  ContactKinematics contact;
  const Vec3 v_rel_C = velocity_of_point(body_b, p_WC) - velocity_of_point(body_a, p_WC);
  const Vec3 v_rel_apply =
      velocity_of_point(body_b, p_WApply) - velocity_of_point(body_a, p_WApply);
  contact.n_AB_W = n_law;
  contact.penetration = -(geometry.distance + contacts_.contact_eps());
  contact.penetration_rate = -v_rel_C.dot(n_AB);
  contact.v_slip_W = v_rel_apply - v_rel_apply.dot(n_law) * n_law;
  contact.w_rel_W = body_b.w_WB_W - body_a.w_WB_W;
  contact.contact_count = pair.shape_pair_points;
  contact.fdir1_W = axis_W;  // lateral first, longitudinal second

  ContactLawParameters law = pair.law;
  FrictionParameters& friction = law.friction;
  // A wheel's friction is a pyramid on (t_lat, t_lon), each direction with its own coefficient.
  friction.cone = false;
  if (wheel.mu_lateral >= 0.0) friction.mu_kinetic = wheel.mu_lateral;
  if (wheel.mu_longitudinal >= 0.0) friction.mu2 = wheel.mu_longitudinal;
  if (wheel.slip_compliance) {
    const double normal_force =
        wheel.actual_normal_force
            ? compute_normal_force(law, pair.damping, contact.penetration, contact.penetration_rate)
            : wheel.normal_force_estimate;
    const double R_abs_omega = std::abs(frame.R_omega);
    // The slope: the angle of the ground's normal from the vertical (-gravity).
    const double g = model_.gravity_W.norm();
    const double slope =
        g > 0.0 ? std::acos(std::clamp(-n_into_ground.dot(-model_.gravity_W / g), -1.0, 1.0)) : 0.0;
    const double factor = slope_compliance_factor(wheel.slope_compliance, slope);
    friction.model = FrictionModel::slip_compliance;
    friction.cone = false;
    friction.slip_compliance = {
        wheel_slip_compliance(factor * wheel.lateral_compliance, R_abs_omega, normal_force,
                              wheel.min_slip_compliance),
        wheel_slip_compliance(factor * wheel.longitudinal_compliance, R_abs_omega, normal_force,
                              wheel.min_slip_compliance)};
  }
  ContactForce force = compute_contact_force(law, pair.damping, contact);
  if (wheel.traction.model != TractionLaw::Model::none && force.normal_force > 0.0) {
    // The traction law replaces the longitudinal part of the friction on the wheel, along the
    // law's (possibly tilted) longitudinal direction.
    Vec3 t_lat_law, t_lon_law;
    compute_friction_directions(-up, axis_W, t_lat_law, t_lon_law);
    const Vec3 on_wheel = wheel_is_a ? Vec3(-force.friction_W) : force.friction_W;
    const double traction = friction.mu_second() * force.normal_force *
                            janosi_hanamoto_coefficient(
                                traction_slip(frame, wheel.traction.v_small),
                                wheel.traction.shear_deformation, wheel.traction.contact_length);
    const Vec3 replaced = on_wheel - on_wheel.dot(t_lon_law) * t_lon_law + traction * t_lon_law;
    force.friction_W = wheel_is_a ? Vec3(-replaced) : replaced;
    force.f_B_W = force.normal_force * n_law + force.friction_W;
  }

  // Rolling resistance: the centre of pressure ahead of the wheel centre, as a torque
  // C_rr f_n R against the wheel's spin relative to the ground (regularised below w_small).
  if (wheel.rolling_resistance > 0.0 && force.normal_force > 0.0) {
    const double spin = (wheel_body.w_WB_W - ground_body.w_WB_W).dot(axis_W);
    const double torque = wheel.rolling_resistance * force.normal_force * wheel.radius * spin /
                          regularize_speed(std::abs(spin), law.w_small);
    const Vec3 tau_wheel_W = -torque * axis_W;
    force.tau_B_W += wheel_is_a ? Vec3(-tau_wheel_W) : tau_wheel_W;
  }

  if (result != nullptr) {
    fill_contact_result(*result, pair, id, geometry, contact, force, p_WApply);
    result->wheel = w;
    result->wheel_state = frame;
  }
  return make_contact_terms(force, p_WApply, body_a, body_b);
}

std::vector<MultibodySystem::WheelOutput> MultibodySystem::compute_wheel_outputs(ConstVectorRef x) {
  std::vector<WheelOutput> outputs(model_.wheels.size());
  std::vector<double> largest(model_.wheels.size(), -kInfinity);
  for (const ContactResult& r : compute_contact_results(x)) {
    if (r.wheel < 0) continue;
    WheelOutput& out = outputs[r.wheel];
    out.normal_force += r.normal_force;
    if (r.normal_force > largest[r.wheel]) {
      largest[r.wheel] = r.normal_force;
      out.state = r.wheel_state;
    }
  }
  // Wheels off the ground: the frame on the normal along gravity, at the nominal radius, with
  // velocities relative to the world.
  const double g = model_.gravity_W.norm();
  const Vec3 down = g > 0.0 ? Vec3(model_.gravity_W / g) : Vec3(-Vec3::UnitZ());
  for (std::size_t w = 0; w < model_.wheels.size(); ++w) {
    if (largest[w] > -kInfinity) continue;
    const Wheel& wheel = model_.wheels[w];
    const BodyKinematics& k = kinematics_[wheel.body];
    const Vec3 axis_W = k.X_WB.rotation * wheel.axis_B;
    const Vec3 p_WCenter = k.X_WB.transform_point(wheel.p_BCenter_B);
    Vec3 t_lat, t_lon;
    compute_friction_directions(down, axis_W, t_lat, t_lon);
    // The lowest point of the wheel's circle along `down`.
    const Vec3 across = down - down.dot(axis_W) * axis_W;
    const double length = across.norm();
    const Vec3 p_WC = p_WCenter + wheel.radius * (length > 1e-12 ? Vec3(across / length) : down);
    outputs[w].state =
        compute_wheel_contact(down, axis_W, p_WCenter, p_WC, velocity_of_point(k, p_WCenter),
                              velocity_of_point(k, p_WC), k.w_WB_W.dot(axis_W));
  }
  return outputs;
}

}  // namespace hybridsim
