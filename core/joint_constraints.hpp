// The constraints of one joint at one instant (design.md §3). Each joint is a set of scalar
// constraints g(x) = 0 on the poses of its parent P and child C; this file gives each constraint's
// value, its velocity Jacobian and the bias term of its second derivative, and the joint's own
// coordinate and rate.
//
// Velocities are those of the centre of mass and the angular velocity, both in world:
//   nu = (v_Com_W, w_W) per body, so that g' = J_C nu_C + J_P nu_P and
//   g'' = J_C nu'_C + J_P nu'_P - bias.
#pragma once

#include "core/joint.hpp"
#include "core/math.hpp"
#include "core/rigid_body.hpp"

namespace hybridsim {

// One scalar constraint g at an instant. J_* map the body's nu = (v_Com_W, w_W) to g'.
struct ConstraintRow {
  Vec6 J_child = Vec6::Zero();
  Vec6 J_parent = Vec6::Zero();
  double bias = 0.0;            // g'' = J nu' - bias: bias = -(d/dt J) nu, m/s^2 or rad/s^2
  double position_error = 0.0;  // g, m or rad
  double velocity_error = 0.0;  // g' = J nu, m/s or rad/s
};

// The command of an ideal velocity servo at an instant: q'_cmd and its rate.
struct JointCommand {
  double velocity = 0.0;      // rad/s or m/s
  double acceleration = 0.0;  // rad/s^2 or m/s^2
};

// Writes the joint_row_count(joint) rows of the joint into rows, from the kinematics of its
// parent and child (a fixed body has zero velocity); an ideal velocity servo's row is last and
// follows `command`.
void evaluate_joint_constraints(const Joint& joint, const BodyKinematics& P,
                                const BodyKinematics& C, ConstraintRow* rows,
                                const JointCommand& command = {});

// The six rows of a weld in its own frame (a bilateral contact, core/bilateral_contact.hpp): the
// anchors' separation along axis_P, u_P and w_P (fixed in P, m), then the relative rotation about
// the same three axes (rad, small angles), so that any subset of rows holds those directions
// only. The weld's anchors coincide and its child axes agree with the parent's when it is made.
void evaluate_weld_rows(const Joint& weld, const BodyKinematics& P, const BodyKinematics& C,
                        ConstraintRow* rows);

// The six rows of evaluate_weld_rows on the relative velocity only, for a weld re-anchored at a
// moving point p at every evaluation (a rolling contact point, velocity p_dot_W, m/s): no position
// errors; the translation rows' rate gains (w_C x (p' - v_C(p)) - w_P x (p' - v_P(p))) . b, the
// point's motion over each body, which the bias of material anchors lacks; the rotation rows hold
// (w_C - w_P) . b about the parent's axes.
void evaluate_velocity_weld_rows(const Joint& weld, const BodyKinematics& P,
                                 const BodyKinematics& C, const Vec3& p_dot_W, ConstraintRow* rows);

// The joint coordinate and its rate. revolute: angle of the child about the axis from the zero
// configuration, rad in (-pi, pi], and rad/s. prismatic: displacement of the child's anchor along
// the axis, m and m/s. spherical and fixed: the angle of the relative rotation from the zero
// configuration (rad, >= 0) and the magnitude of the relative angular velocity (rad/s).
JointCoordinate compute_joint_coordinate(const Joint& joint, const BodyKinematics& P,
                                         const BodyKinematics& C);

// The effort of a gain servo (velocity or position, not ideal) at joint coordinate q, N m or N,
// clamped at max_effort. For a position servo `command` holds q_cmd in `velocity` and its rate in
// `acceleration`.
double compute_servo_effort(const Joint& joint, const JointCommand& command,
                            const JointCoordinate& q);

// The world anchor points of parent and child, m.
Vec3 parent_anchor_W(const Joint& joint, const BodyKinematics& P);
Vec3 child_anchor_W(const Joint& joint, const BodyKinematics& C);

}  // namespace hybridsim
