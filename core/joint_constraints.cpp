#include "core/joint_constraints.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace hybridsim {
namespace {

Vec6 stack(const Vec3& linear, const Vec3& angular) {
  Vec6 v;
  v << linear, angular;
  return v;
}

// The quantities every row needs: anchors relative to each centre of mass and their motion.
struct AnchorKinematics {
  Vec3 r_P_W;    // from P's centre of mass to P's anchor, world, m
  Vec3 r_C_W;    // from C's centre of mass to C's anchor, world, m
  Vec3 d_W;      // C's anchor minus P's anchor, m
  Vec3 d_dot_W;  // its rate, m/s
  Vec3
      centripetal_W;  // w_C x (w_C x r_C) - w_P x (w_P x r_P): the velocity-only part of d'', m/s^2
};

AnchorKinematics anchor_kinematics(const Joint& joint, const BodyKinematics& P,
                                   const BodyKinematics& C) {
  AnchorKinematics a;
  const Vec3 p_WJp = parent_anchor_W(joint, P);
  const Vec3 p_WJc = child_anchor_W(joint, C);
  a.r_P_W = p_WJp - P.p_WCom;
  a.r_C_W = p_WJc - C.p_WCom;
  a.d_W = p_WJc - p_WJp;
  a.d_dot_W = velocity_of_point(C, p_WJc) - velocity_of_point(P, p_WJp);
  a.centripetal_W =
      C.w_WB_W.cross(C.w_WB_W.cross(a.r_C_W)) - P.w_WB_W.cross(P.w_WB_W.cross(a.r_P_W));
  return a;
}

// Three rows: C's anchor coincides with P's, component by world axis.
void point_rows(const AnchorKinematics& a, ConstraintRow* rows) {
  for (int k = 0; k < 3; ++k) {
    const Vec3 e = Vec3::Unit(k);
    ConstraintRow& row = rows[k];
    row.J_child = stack(e, a.r_C_W.cross(e));
    row.J_parent = stack(-e, -a.r_P_W.cross(e));
    row.bias = -a.centripetal_W[k];
    row.position_error = a.d_W[k];
    row.velocity_error = a.d_dot_W[k];
  }
}

// Rows g = a . b of a unit vector a fixed in the child and a unit vector b fixed in the parent,
// perpendicular at the zero configuration. With a' = w_C x a and b' = w_P x b:
// g' = (w_C - w_P) . (a x b), and the velocity-only part of g'' is
// (w_C - w_P) . ((w_C x a) x b + a x (w_P x b)).
void perpendicularity_rows(const BodyKinematics& P, const BodyKinematics& C, const Vec3* a_C,
                           const Vec3* b_P, int count, ConstraintRow* rows) {
  const Vec3 w_rel_W = C.w_WB_W - P.w_WB_W;
  for (int k = 0; k < count; ++k) {
    const Vec3 a = C.X_WB.rotation * a_C[k];
    const Vec3 b = P.X_WB.rotation * b_P[k];
    const Vec3 a_cross_b = a.cross(b);
    ConstraintRow& row = rows[k];
    row.J_child = stack(Vec3::Zero(), a_cross_b);
    row.J_parent = stack(Vec3::Zero(), -a_cross_b);
    row.bias = -w_rel_W.dot(C.w_WB_W.cross(a).cross(b) + a.cross(P.w_WB_W.cross(b)));
    row.position_error = a.dot(b);
    row.velocity_error = w_rel_W.dot(a_cross_b);
  }
}

// Three rows: no relative rotation. The child's basis (axis, u, w) stays aligned with the
// parent's: -w_C . u_P = w_C . axis_P = axis_C . u_P = 0, whose Jacobians at the zero
// configuration are the three axes (each error is a small rotation angle, rad). The first two
// use only the child's w, so that a turn about w (free when the third row is off: a contact's
// spin) leaves them independent.
void rotation_lock_rows(const Joint& joint, const BodyKinematics& P, const BodyKinematics& C,
                        ConstraintRow* rows) {
  const Vec3 w_C = joint.axis_C.cross(joint.u_C);
  const Vec3 a_C[3] = {-w_C, w_C, joint.axis_C};
  const Vec3 b_P[3] = {joint.u_P, joint.axis_P, joint.u_P};
  perpendicularity_rows(P, C, a_C, b_P, 3, rows);
}

// Two rows: the child's axis stays perpendicular to the parent's u and w.
void axis_rows(const Joint& joint, const BodyKinematics& P, const BodyKinematics& C,
               ConstraintRow* rows) {
  const Vec3 a_C[2] = {joint.axis_C, joint.axis_C};
  const Vec3 b_P[2] = {joint.u_P, joint.w_P};
  perpendicularity_rows(P, C, a_C, b_P, 2, rows);
}

// One row g = d . b for a unit vector b fixed in P (world b_W). g' = d' . b + d . (w_P x b); the
// velocity-only part of g'' is centripetal . b + 2 d' . (w_P x b) + d . (w_P x (w_P x b)).
void slide_row(const AnchorKinematics& a, const BodyKinematics& P, const Vec3& b,
               ConstraintRow& row) {
  const Vec3& w_P = P.w_WB_W;
  const Vec3 b_dot = w_P.cross(b);
  row.J_child = stack(b, a.r_C_W.cross(b));
  row.J_parent = stack(-b, -a.r_P_W.cross(b) + b.cross(a.d_W));
  row.bias = -(a.centripetal_W.dot(b) + 2.0 * a.d_dot_W.dot(b_dot) + a.d_W.dot(w_P.cross(b_dot)));
  row.position_error = a.d_W.dot(b);
  row.velocity_error = a.d_dot_W.dot(b) + a.d_W.dot(b_dot);
}

// Two rows: the anchors' separation d stays along the parent's axis (d . u = d . w = 0).
void slide_rows(const Joint& joint, const AnchorKinematics& a, const BodyKinematics& P,
                ConstraintRow* rows) {
  slide_row(a, P, P.X_WB.rotation * joint.u_P, rows[0]);
  slide_row(a, P, P.X_WB.rotation * joint.w_P, rows[1]);
}

// The ideal velocity servo's row, a constraint on the rate only: g' = q' - q'_cmd, no position
// error. Revolute: q' = (w_C - w_P) . a with a = R_WP axis_P, whose rate adds
// (w_C - w_P) . (w_P x a). Prismatic: q' = d . a's rate, the slide row along the axis.
void velocity_servo_row(const Joint& joint, const AnchorKinematics& a, const BodyKinematics& P,
                        const BodyKinematics& C, const JointCommand& command, ConstraintRow& row) {
  const Vec3 axis_W = P.X_WB.rotation * joint.axis_P;
  if (joint.type == JointType::revolute) {
    const Vec3 w_rel_W = C.w_WB_W - P.w_WB_W;
    row.J_child = stack(Vec3::Zero(), axis_W);
    row.J_parent = stack(Vec3::Zero(), -axis_W);
    row.bias = -w_rel_W.dot(P.w_WB_W.cross(axis_W));
    row.velocity_error = w_rel_W.dot(axis_W);
  } else {
    slide_row(a, P, axis_W, row);
  }
  row.position_error = 0.0;
  row.velocity_error -= command.velocity;
  row.bias += command.acceleration;
}

// The angle a - b wrapped into (-pi, pi], rad: a revolute servo turns the short way round.
double angle_difference(double a, double b) {
  const double two_pi = 2.0 * std::numbers::pi;
  double difference = std::remainder(a - b, two_pi);
  if (difference <= -std::numbers::pi) difference += two_pi;
  return difference;
}

}  // namespace

int joint_constraint_count(JointType type) {
  switch (type) {
    case JointType::fixed:
      return 6;
    case JointType::revolute:
    case JointType::prismatic:
      return 5;
    case JointType::spherical:
      return 3;
  }
  return 0;
}

const char* to_string(JointType type) {
  switch (type) {
    case JointType::fixed:
      return "fixed";
    case JointType::revolute:
      return "revolute";
    case JointType::prismatic:
      return "prismatic";
    case JointType::spherical:
      return "spherical";
  }
  return "?";
}

Vec3 parent_anchor_W(const Joint& joint, const BodyKinematics& P) {
  return P.X_WB.transform_point(joint.p_PJ_P);
}

Vec3 child_anchor_W(const Joint& joint, const BodyKinematics& C) {
  return C.X_WB.transform_point(joint.p_CJ_C);
}

void evaluate_joint_constraints(const Joint& joint, const BodyKinematics& P,
                                const BodyKinematics& C, ConstraintRow* rows,
                                const JointCommand& command) {
  const AnchorKinematics a = anchor_kinematics(joint, P, C);
  switch (joint.type) {
    case JointType::fixed:
      point_rows(a, rows);
      rotation_lock_rows(joint, P, C, rows + 3);
      break;
    case JointType::revolute:
      point_rows(a, rows);
      axis_rows(joint, P, C, rows + 3);
      break;
    case JointType::prismatic:
      rotation_lock_rows(joint, P, C, rows);
      slide_rows(joint, a, P, rows + 3);
      break;
    case JointType::spherical:
      point_rows(a, rows);
      break;
  }
  if (joint.servo.ideal) {
    velocity_servo_row(joint, a, P, C, command, rows[joint_constraint_count(joint.type)]);
  }
}

void evaluate_weld_rows(const Joint& weld, const BodyKinematics& P, const BodyKinematics& C,
                        ConstraintRow* rows) {
  const AnchorKinematics a = anchor_kinematics(weld, P, C);
  const Mat3& R_WP = P.X_WB.rotation;
  slide_row(a, P, R_WP * weld.axis_P, rows[0]);
  slide_row(a, P, R_WP * weld.u_P, rows[1]);
  slide_row(a, P, R_WP * weld.w_P, rows[2]);
  rotation_lock_rows(weld, P, C, rows + 3);
}

void evaluate_velocity_weld_rows(const Joint& weld, const BodyKinematics& P,
                                 const BodyKinematics& C, const Vec3& p_dot_W,
                                 ConstraintRow* rows) {
  const AnchorKinematics a = anchor_kinematics(weld, P, C);
  const Vec3 p_W = parent_anchor_W(weld, P);
  const Vec3 extra_W = C.w_WB_W.cross(p_dot_W - velocity_of_point(C, p_W)) -
                       P.w_WB_W.cross(p_dot_W - velocity_of_point(P, p_W));
  const Mat3& R_WP = P.X_WB.rotation;
  const Vec3 b_W[3] = {R_WP * weld.axis_P, R_WP * weld.u_P, R_WP * weld.w_P};
  const Vec3 w_rel_W = C.w_WB_W - P.w_WB_W;
  for (int k = 0; k < 3; ++k) {
    slide_row(a, P, b_W[k], rows[k]);
    // g'' = J nu' - bias: the extra rate enters the bias with the opposite sign.
    rows[k].bias -= extra_W.dot(b_W[k]);
    rows[k].position_error = 0.0;
    // The relative angular velocity about b, fixed in P: (w_C - w_P) . b, whose rate adds
    // (w_C - w_P) . (w_P x b). A child axis would turn with the child as it rolls.
    ConstraintRow& row = rows[3 + k];
    row.J_child = stack(Vec3::Zero(), b_W[k]);
    row.J_parent = stack(Vec3::Zero(), -b_W[k]);
    row.bias = -w_rel_W.dot(P.w_WB_W.cross(b_W[k]));
    row.position_error = 0.0;
    row.velocity_error = w_rel_W.dot(b_W[k]);
  }
}

JointCoordinate compute_joint_coordinate(const Joint& joint, const BodyKinematics& P,
                                         const BodyKinematics& C) {
  JointCoordinate q;
  const Vec3 axis_W = P.X_WB.rotation * joint.axis_P;
  switch (joint.type) {
    case JointType::revolute: {
      const Vec3 u_child_W = C.X_WB.rotation * joint.u_C;
      q.position = std::atan2(u_child_W.dot(P.X_WB.rotation * joint.w_P),
                              u_child_W.dot(P.X_WB.rotation * joint.u_P));
      q.velocity = (C.w_WB_W - P.w_WB_W).dot(axis_W);
      break;
    }
    case JointType::prismatic: {
      const AnchorKinematics a = anchor_kinematics(joint, P, C);
      q.position = a.d_W.dot(axis_W);
      q.velocity = a.d_dot_W.dot(axis_W) + a.d_W.dot(P.w_WB_W.cross(axis_W));
      break;
    }
    case JointType::spherical:
    case JointType::fixed: {
      const Quat relative = (P.q_WB * joint.q_PC0).conjugate() * C.q_WB;
      q.position = 2.0 * std::atan2(relative.vec().norm(), std::abs(relative.w()));
      q.velocity = (C.w_WB_W - P.w_WB_W).norm();
      break;
    }
  }
  return q;
}

// The effort of a gain servo (not an ideal one) at joint coordinate q, clamped at max_effort.
double compute_servo_effort(const Joint& joint, const JointCommand& command,
                            const JointCoordinate& q) {
  const JointServo& servo = joint.servo;
  double effort = 0.0;
  if (servo.mode == JointServo::Mode::velocity) {
    effort = servo.gain * (command.velocity - q.velocity);
  } else if (servo.mode == JointServo::Mode::position) {
    // command.velocity holds q_cmd and command.acceleration its rate for a position servo.
    const double error = joint.type == JointType::revolute
                             ? angle_difference(command.velocity, q.position)
                             : command.velocity - q.position;
    effort = servo.kp * error + servo.kd * (command.acceleration - q.velocity);
  }
  return std::clamp(effort, -servo.max_effort, servo.max_effort);
}

}  // namespace hybridsim
