// The constraint rows of every joint type against finite differences of their own position
// errors along an exact rigid motion: g' must equal J nu and g'' must equal J nu' - bias.
#include <doctest/doctest.h>

#include <cmath>

#include "core/joint_constraints.hpp"

namespace hybridsim {
namespace {

// A body moving with constant angular velocity w_W and constant centre-of-mass acceleration
// a_W: the exact motion, so that finite differences see the true derivatives.
struct Motion {
  Vec3 p_WCom0, v_WCom0, a_W, w_W, p_BCom_B;
  Quat q0;

  BodyKinematics at(double t) const {
    BodyKinematics k;
    const double angle = w_W.norm() * t;
    k.q_WB = (Quat(Eigen::AngleAxisd(angle, w_W.normalized())) * q0).normalized();
    k.X_WB.rotation = k.q_WB.toRotationMatrix();
    k.p_WCom = p_WCom0 + v_WCom0 * t + 0.5 * a_W * t * t;
    k.X_WB.translation = k.p_WCom - k.X_WB.rotation * p_BCom_B;
    k.v_WCom_W = v_WCom0 + a_W * t;
    k.w_WB_W = w_W;
    k.w_WB_B = k.X_WB.rotation.transpose() * w_W;
    return k;
  }
};

TEST_CASE("joint constraint rows: velocity Jacobian and bias match finite differences") {
  Joint joint;
  joint.p_PJ_P = Vec3(0.1, -0.2, 1.0);
  joint.p_CJ_C = Vec3(0.1, 0.2, 1.3);
  joint.axis_P = Vec3(1, 0, 0);
  joint.u_P = Vec3(0, 1, 0);
  joint.w_P = Vec3(0, 0, 1);
  joint.axis_C = Vec3(0, 1, 0);
  joint.u_C = Vec3(0, 0, 1);
  joint.q_PC0 = Quat(Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized()));
  // A pose far from the zero configuration: the rows must be exact, not linearised.
  const Motion parent{
      Vec3(0.2, 0.1, 0.0), Vec3(0.3, -0.1, 0.2),
      Vec3(0.1, 0.2, 0.3), Vec3(0.5, 0.2, -0.4),
      Vec3(0.1, 0.0, 0.0), Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()))};
  const Motion child{
      Vec3(0.3, -0.2, 0.5), Vec3(-0.2, 0.4, 0.1),
      Vec3(0.4, -0.2, 0.6), Vec3(1.1, -0.7, 0.3),
      Vec3(0.0, 0.3, 0.1),  Quat(Eigen::AngleAxisd(0.7, Vec3(-1, 2, 1).normalized()))};
  Vec6 nu_dot_P, nu_dot_C;
  nu_dot_P << parent.a_W, Vec3::Zero();
  nu_dot_C << child.a_W, Vec3::Zero();
  // Central differences with h = 1e-4: truncation ~h^2 |g'''| ~ 1e-8, round-off ~1e-16/h^2 ~
  // 1e-8 for the second difference; the rows' values are O(1).
  const double h = 1e-4, tolerance = 1e-6;
  for (JointType type :
       {JointType::fixed, JointType::revolute, JointType::prismatic, JointType::spherical}) {
    joint.type = type;
    CAPTURE(to_string(type));
    ConstraintRow now[6], ahead[6], behind[6];
    evaluate_joint_constraints(joint, parent.at(0.0), child.at(0.0), now);
    evaluate_joint_constraints(joint, parent.at(h), child.at(h), ahead);
    evaluate_joint_constraints(joint, parent.at(-h), child.at(-h), behind);
    for (int k = 0; k < joint_constraint_count(type); ++k) {
      CAPTURE(k);
      const double g_dot = (ahead[k].position_error - behind[k].position_error) / (2.0 * h);
      const double g_ddot =
          (ahead[k].position_error - 2.0 * now[k].position_error + behind[k].position_error) /
          (h * h);
      Vec6 nu_P, nu_C;
      nu_P << parent.v_WCom0, parent.w_W;
      nu_C << child.v_WCom0, child.w_W;
      CHECK(std::abs(now[k].velocity_error - g_dot) < tolerance);
      CHECK(std::abs(now[k].J_child.dot(nu_C) + now[k].J_parent.dot(nu_P) - g_dot) < tolerance);
      const double predicted =
          now[k].J_child.dot(nu_dot_C) + now[k].J_parent.dot(nu_dot_P) - now[k].bias;
      CHECK(std::abs(predicted - g_ddot) < 1e-5);
    }
  }
}

TEST_CASE("joint coordinates: a revolute angle and a prismatic displacement") {
  Joint joint;
  joint.axis_P = joint.axis_C = Vec3::UnitX();
  joint.u_P = joint.u_C = Vec3::UnitY();
  joint.w_P = Vec3::UnitZ();
  BodyKinematics P, C;
  const double angle = 2.5;
  C.q_WB = Quat(Eigen::AngleAxisd(angle, Vec3::UnitX()));
  C.X_WB.rotation = C.q_WB.toRotationMatrix();
  C.w_WB_W = Vec3(1.5, 0, 0);
  joint.type = JointType::revolute;
  JointCoordinate q = compute_joint_coordinate(joint, P, C);
  CHECK(q.position == doctest::Approx(angle).epsilon(1e-14));
  CHECK(q.velocity == doctest::Approx(1.5).epsilon(1e-14));
  joint.type = JointType::prismatic;
  C = BodyKinematics{};
  C.X_WB.translation = Vec3(0.25, 0, 0);
  C.p_WCom = C.X_WB.translation;
  C.v_WCom_W = Vec3(-0.5, 0, 0);
  q = compute_joint_coordinate(joint, P, C);
  CHECK(q.position == doctest::Approx(0.25).epsilon(1e-14));
  CHECK(q.velocity == doctest::Approx(-0.5).epsilon(1e-14));
}

}  // namespace
}  // namespace hybridsim
