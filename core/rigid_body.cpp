#include "core/rigid_body.hpp"

namespace hybridsim {

namespace {

// Position and quaternion rates of a free body: p' = v, q' = 1/2 q (x) (0, w_B), from the
// unnormalised state so that the flow is linear in q, plus a pull of rate
// kQuaternionStabilization towards |q| = 1.
void write_pose_derivatives(const Vec3& w_B, const double* s, double* sdot) {
  sdot[0] = s[7];
  sdot[1] = s[8];
  sdot[2] = s[9];
  const double qw = s[3], qx = s[4], qy = s[5], qz = s[6];
  const double norm_error = qw * qw + qx * qx + qy * qy + qz * qz - 1.0;
  const double pull = -kQuaternionStabilization * norm_error;
  sdot[3] = 0.5 * (-qx * w_B.x() - qy * w_B.y() - qz * w_B.z()) + pull * qw;
  sdot[4] = 0.5 * (qw * w_B.x() + qy * w_B.z() - qz * w_B.y()) + pull * qx;
  sdot[5] = 0.5 * (qw * w_B.y() + qz * w_B.x() - qx * w_B.z()) + pull * qy;
  sdot[6] = 0.5 * (qw * w_B.z() + qx * w_B.y() - qy * w_B.x()) + pull * qz;
}

}  // namespace

void compute_body_kinematics(const Body& body, const double* x, BodyKinematics& kinematics) {
  if (body.fixed) {
    kinematics.q_WB = body.q_WB;
    kinematics.X_WB.rotation = body.q_WB.toRotationMatrix();
    kinematics.X_WB.translation = body.p_WB;
    kinematics.p_WCom = kinematics.X_WB.transform_point(body.p_BCom_B);
    kinematics.v_WCom_W.setZero();
    kinematics.w_WB_W.setZero();
    kinematics.w_WB_B.setZero();
    return;
  }
  const double* s = x + body.state_offset;
  kinematics.q_WB = quaternion_from_wxyz(s + 3).normalized();
  kinematics.X_WB.rotation = kinematics.q_WB.toRotationMatrix();
  kinematics.X_WB.translation = Vec3(s[0], s[1], s[2]);
  const Vec3 r_BCom_W = kinematics.X_WB.rotation * body.p_BCom_B;
  kinematics.p_WCom = kinematics.X_WB.translation + r_BCom_W;
  kinematics.w_WB_B = Vec3(s[10], s[11], s[12]);
  kinematics.w_WB_W = kinematics.X_WB.rotation * kinematics.w_WB_B;
  kinematics.v_WCom_W = Vec3(s[7], s[8], s[9]) + kinematics.w_WB_W.cross(r_BCom_W);
}

void compute_body_derivatives(const Body& body, const BodyKinematics& kinematics,
                              const BodyWrench& wrench, const double* x, double* xdot) {
  const double* s = x + body.state_offset;
  double* sdot = xdot + body.state_offset;
  const Mat3& R_WB = kinematics.X_WB.rotation;
  const Vec3& w_B = kinematics.w_WB_B;

  write_pose_derivatives(w_B, s, sdot);

  // Euler's equations about the centre of mass, body frame: I w_dot = tau - w x (I w).
  const Mat3& I_B = body.inertia_com_B;
  const Vec3 tau_B = R_WB.transpose() * wrench.tau_Com_W;
  const Vec3 wdot_B = body.inverse_inertia_com_B * (tau_B - w_B.cross(I_B * w_B));
  sdot[10] = wdot_B.x();
  sdot[11] = wdot_B.y();
  sdot[12] = wdot_B.z();

  // Newton for the centre of mass, then the acceleration of the body origin:
  // a_B = a_Com - alpha x r - w x (w x r), r from the origin to the centre of mass.
  const Vec3 a_Com_W = wrench.f_W / body.mass;
  const Vec3 r_BCom_W = R_WB * body.p_BCom_B;
  const Vec3 alpha_W = R_WB * wdot_B;
  const Vec3& w_W = kinematics.w_WB_W;
  const Vec3 a_B_W = a_Com_W - alpha_W.cross(r_BCom_W) - w_W.cross(w_W.cross(r_BCom_W));
  sdot[7] = a_B_W.x();
  sdot[8] = a_B_W.y();
  sdot[9] = a_B_W.z();
}

Vec6 compute_body_acceleration(const Body& body, const BodyKinematics& kinematics,
                               const BodyWrench& wrench) {
  const Mat3& R_WB = kinematics.X_WB.rotation;
  const Vec3& w_B = kinematics.w_WB_B;
  const Vec3 tau_B = R_WB.transpose() * wrench.tau_Com_W;
  const Vec3 wdot_B = body.inverse_inertia_com_B * (tau_B - w_B.cross(body.inertia_com_B * w_B));
  Vec6 nu_dot;
  nu_dot << wrench.f_W / body.mass, R_WB * wdot_B;
  return nu_dot;
}

void write_body_derivatives(const Body& body, const BodyKinematics& kinematics, const Vec6& nu_dot,
                            const double* x, double* xdot) {
  const double* s = x + body.state_offset;
  double* sdot = xdot + body.state_offset;
  const Mat3& R_WB = kinematics.X_WB.rotation;
  write_pose_derivatives(kinematics.w_WB_B, s, sdot);
  // w_W = R w_B and w_W x w_W = 0 give alpha_W = R w_B'.
  const Vec3 alpha_W = nu_dot.tail<3>();
  const Vec3 wdot_B = R_WB.transpose() * alpha_W;
  sdot[10] = wdot_B.x();
  sdot[11] = wdot_B.y();
  sdot[12] = wdot_B.z();
  const Vec3 r_BCom_W = R_WB * body.p_BCom_B;
  const Vec3& w_W = kinematics.w_WB_W;
  const Vec3 a_B_W = nu_dot.head<3>() - alpha_W.cross(r_BCom_W) - w_W.cross(w_W.cross(r_BCom_W));
  sdot[7] = a_B_W.x();
  sdot[8] = a_B_W.y();
  sdot[9] = a_B_W.z();
}

Vec6 body_acceleration_from_derivatives(const Body& body, const BodyKinematics& kinematics,
                                        const double* xdot) {
  const double* sdot = xdot + body.state_offset;
  const Mat3& R_WB = kinematics.X_WB.rotation;
  const Vec3 alpha_W = R_WB * Vec3(sdot[10], sdot[11], sdot[12]);
  const Vec3 r_BCom_W = R_WB * body.p_BCom_B;
  const Vec3& w_W = kinematics.w_WB_W;
  const Vec3 a_Com_W =
      Vec3(sdot[7], sdot[8], sdot[9]) + alpha_W.cross(r_BCom_W) + w_W.cross(w_W.cross(r_BCom_W));
  Vec6 nu_dot;
  nu_dot << a_Com_W, alpha_W;
  return nu_dot;
}

double compute_kinetic_energy(const Body& body, const BodyKinematics& kinematics) {
  if (body.fixed) return 0.0;
  const Vec3& w_B = kinematics.w_WB_B;
  return 0.5 * body.mass * kinematics.v_WCom_W.squaredNorm() +
         0.5 * w_B.dot(body.inertia_com_B * w_B);
}

Vec3 compute_linear_momentum(const Body& body, const BodyKinematics& kinematics) {
  if (body.fixed) return Vec3::Zero();
  return body.mass * kinematics.v_WCom_W;
}

Vec3 compute_angular_momentum(const Body& body, const BodyKinematics& kinematics) {
  if (body.fixed) return Vec3::Zero();
  const Vec3 spin_W = kinematics.X_WB.rotation * (body.inertia_com_B * kinematics.w_WB_B);
  return spin_W + kinematics.p_WCom.cross(body.mass * kinematics.v_WCom_W);
}

void write_initial_body_state(const Body& body, double* x) {
  if (body.fixed) return;
  double* s = x + body.state_offset;
  const Quat q = body.q_WB.normalized();
  const Vec3 w_B = q.toRotationMatrix().transpose() * body.w_WB_W;
  const double values[kFreeBodyStateSize] = {
      body.p_WB.x(),   body.p_WB.y(),   body.p_WB.z(),   q.w(),   q.x(),   q.y(),  q.z(),
      body.v_WB_W.x(), body.v_WB_W.y(), body.v_WB_W.z(), w_B.x(), w_B.y(), w_B.z()};
  for (int i = 0; i < kFreeBodyStateSize; ++i) s[i] = values[i];
}

void normalize_body_quaternion(const Body& body, double* x) {
  if (body.fixed) return;
  double* q = x + body.state_offset + 3;
  const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int i = 0; i < 4; ++i) q[i] /= norm;
}

}  // namespace hybridsim
