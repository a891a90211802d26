#include "core/joint_constraints.hpp"

#include <cmath>

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
// parent's: u_C . w_P = w_C . axis_P = axis_C . u_P = 0, whose Jacobians at the zero
// configuration are the three axes (each error is a small rotation angle, rad).
void rotation_lock_rows(const Joint& joint, const BodyKinematics& P, const BodyKinematics& C,
                        ConstraintRow* rows) {
  const Vec3 a_C[3] = {joint.u_C, joint.axis_C.cross(joint.u_C), joint.axis_C};
  const Vec3 b_P[3] = {joint.w_P, joint.axis_P, joint.u_P};
  perpendicularity_rows(P, C, a_C, b_P, 3, rows);
}

// Two rows: the child's axis stays perpendicular to the parent's u and w.
void axis_rows(const Joint& joint, const BodyKinematics& P, const BodyKinematics& C,
               ConstraintRow* rows) {
  const Vec3 a_C[2] = {joint.axis_C, joint.axis_C};
  const Vec3 b_P[2] = {joint.u_P, joint.w_P};
  perpendicularity_rows(P, C, a_C, b_P, 2, rows);
}

// Two rows: the anchors' separation d stays along the parent's axis, g = d . b for b = u, w (in
// P). g' = d' . b + d . (w_P x b); the velocity-only part of g'' is
// centripetal . b + 2 d' . (w_P x b) + d . (w_P x (w_P x b)).
void slide_rows(const Joint& joint, const AnchorKinematics& a, const BodyKinematics& P,
                ConstraintRow* rows) {
  const Vec3 b_vectors[2] = {P.X_WB.rotation * joint.u_P, P.X_WB.rotation * joint.w_P};
  const Vec3& w_P = P.w_WB_W;
  for (int k = 0; k < 2; ++k) {
    const Vec3& b = b_vectors[k];
    const Vec3 b_dot = w_P.cross(b);
    ConstraintRow& row = rows[k];
    row.J_child = stack(b, a.r_C_W.cross(b));
    row.J_parent = stack(-b, -a.r_P_W.cross(b) + b.cross(a.d_W));
    row.bias = -(a.centripetal_W.dot(b) + 2.0 * a.d_dot_W.dot(b_dot) + a.d_W.dot(w_P.cross(b_dot)));
    row.position_error = a.d_W.dot(b);
    row.velocity_error = a.d_dot_W.dot(b) + a.d_W.dot(b_dot);
  }
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
                                const BodyKinematics& C, ConstraintRow* rows) {
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

}  // namespace hybridsim
