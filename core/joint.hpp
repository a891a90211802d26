// Joints: constraints between two bodies in maximal coordinates (design.md §3), as loaded from a
// scene. core/joint_constraints.hpp evaluates them.
#pragma once

#include <string>

#include "core/math.hpp"

namespace hybridsim {

// fixed: no relative motion (the seed's bilateral contact), 6 constraints. revolute: rotation
// about the axis, 5. prismatic: translation along the axis, 5. spherical: rotation about the
// anchor, 3.
enum class JointType { fixed, revolute, prismatic, spherical };

// Constraint rows of a joint type.
int joint_constraint_count(JointType type);
// "fixed", "revolute", ...
const char* to_string(JointType type);

// A servo on a revolute or prismatic joint's coordinate q (rad or m), its command from an input's
// signal (first component). velocity: effort = gain (q'_cmd - q'), or with `ideal` a constraint
// row q' = q'_cmd (no gain). position: effort = kp (q_cmd - q) + kd (q'_cmd - q'), q'_cmd the
// signal's rate. Efforts are clamped at +-max_effort (N m or N).
struct JointServo {
  enum class Mode { none, velocity, position };
  Mode mode = Mode::none;
  int command = -1;    // index into Model::inputs: q'_cmd (rad/s or m/s) or q_cmd (rad or m)
  double gain = 0.0;   // velocity servo, N m s/rad or N s/m
  double kp = 0.0;     // position servo, N m/rad or N/m
  double kd = 0.0;     // position servo, N m s/rad or N s/m
  bool ideal = false;  // velocity servo as a constraint row (joint_row_count counts it)
  double max_effort = kInfinity;  // N m or N
};

// A joint limit (revolute and prismatic joints): beyond `lower` or `upper` a one-sided
// spring-damper on the joint coordinate pushes back, effort max(0, k p + c p') against the
// penetration p past the bound (never pulling). Each side switches on and off by a logged event
// (limit_on / limit_off), so the damper's jump at the bound is an event, not a kink in the step.
struct JointLimit {
  bool enabled = false;
  double lower = -kInfinity;  // rad or m (a revolute bound inside (-pi, pi))
  double upper = kInfinity;
  double stiffness = 0.0;  // N m/rad or N/m, > 0
  double damping = 0.0;    // N m s/rad or N s/m
};

// The hysteresis of a limit side's switch (rad or m): it switches on where the penetration
// crosses 0 and off where it falls below -kJointLimitHysteresis (the effort is zero there), so
// that the restart after either switch does not sit on the other's root.
inline constexpr double kJointLimitHysteresis = 1e-9;

struct Joint {
  std::string name;  // unique among Model::joints
  JointType type = JointType::revolute;
  int parent = -1;  // index into Model::bodies
  int child = -1;   // index into Model::bodies, != parent
  // The anchor J as a point of each body (body frame, m). They coincide at the zero
  // configuration; a prismatic joint keeps them on the axis.
  Vec3 p_PJ_P = Vec3::Zero();
  Vec3 p_CJ_C = Vec3::Zero();
  // Unit joint axis and two unit vectors that complete a right-handed basis (axis, u, w = axis x
  // u), in the parent frame; the child's copies agree with them at the zero configuration.
  Vec3 axis_P = Vec3::UnitX();
  Vec3 u_P = Vec3::UnitY();
  Vec3 w_P = Vec3::UnitZ();
  Vec3 axis_C = Vec3::UnitX();
  Vec3 u_C = Vec3::UnitY();
  // Orientation of the child relative to the parent at the zero configuration, R_PC.
  Quat q_PC0 = Quat::Identity();
  // Joint coordinate and rate at t = 0 (rad and rad/s, or m and m/s); applied at load.
  double initial_position = 0.0;
  double initial_velocity = 0.0;
  bool can_collide = false;  // shapes of parent and child may touch
  int input = -1;            // index into Model::inputs driving the effort (N m or N); -1 none
  // Optional spring and damper on the joint coordinate: effort = -k (q - q_ref) - c q'.
  double stiffness = 0.0;         // N m/rad or N/m
  double damping = 0.0;           // N m s/rad or N s/m
  double spring_reference = 0.0;  // rad or m
  // Optional dry friction on the rate, regularised as the contacts' Coulomb friction is (Modia3D's
  // reg, core/friction_law.hpp): effort = -F q' / reg(|q'|, v_s), exactly -F sign(q') above v_s.
  double friction = 0.0;         // F, N m or N
  double friction_speed = 0.01;  // v_s, rad/s or m/s
  JointServo servo;
  JointLimit limit;
};

// Constraint rows of a joint: those of its type, plus one for an ideal velocity servo.
inline int joint_row_count(const Joint& joint) {
  return joint_constraint_count(joint.type) + (joint.servo.ideal ? 1 : 0);
}

// A joint's coordinate and rate (core/joint_constraints.hpp: compute_joint_coordinate).
struct JointCoordinate {
  double position = 0.0;  // rad (revolute, spherical, fixed) or m (prismatic)
  double velocity = 0.0;  // rad/s or m/s
};

}  // namespace hybridsim
