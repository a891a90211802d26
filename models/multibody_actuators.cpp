// MultibodySystem's actuators: joint servos and prescribed bodies (models/multibody_system.hpp).
#include "models/multibody_system.hpp"

namespace hybridsim {
Vec3 MultibodySystem::input_rate(int input, double t) const {
  return input_overridden_[input] != 0 ? Vec3::Zero()
                                       : evaluate_signal_rate(model_.inputs[input].signal, t);
}

void MultibodySystem::set_prescribed_velocities(double t, double* x) const {
  for (int b : prescribed_bodies_) {
    const Body& body = model_.bodies[b];
    double* s = x + body.state_offset;
    const Vec3 v_WB_W = input_value(body.linear_velocity_input, t);
    const Quat q = quaternion_from_wxyz(s + 3).normalized();
    const Vec3 w_B = q.toRotationMatrix().transpose() * input_value(body.angular_velocity_input, t);
    for (int i = 0; i < 3; ++i) {
      s[kFreeBodyVelocityOffset + i] = v_WB_W[i];
      s[kFreeBodyVelocityOffset + 3 + i] = w_B[i];
    }
  }
}

void MultibodySystem::write_prescribed_rates(int b, const double* x, double* xdot) const {
  // Pose rates from the velocity states (as for every body); the velocity states follow the
  // signals' rates, so that they track the signals between restarts, which reset them exactly.
  // The body-frame angular velocity w_B = R^T w_W has the rate R^T w_W' (w_W x w_W = 0).
  const Body& body = model_.bodies[b];
  const BodyKinematics& k = kinematics_[b];
  write_body_derivatives(body, k, Vec6::Zero(), x, xdot);
  const Vec3 a_WB_W = input_rate(body.linear_velocity_input, time_);
  const Vec3 wdot_B = k.X_WB.rotation.transpose() * input_rate(body.angular_velocity_input, time_);
  double* sdot = xdot + body.state_offset;
  for (int i = 0; i < 3; ++i) {
    sdot[kFreeBodyVelocityOffset + i] = a_WB_W[i];
    sdot[kFreeBodyVelocityOffset + 3 + i] = wdot_B[i];
  }
}

}  // namespace hybridsim
