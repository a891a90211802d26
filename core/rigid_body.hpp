// Free rigid bodies: the 13-state layout, kinematics from the state, Newton-Euler with gyroscopic
// terms, and energy.
//
// State of a free body at its offset o (design.md §2):
//   x[o+0..2]   p_WB      position of the body origin in world, m
//   x[o+3..6]   q_WB      unit quaternion (w, x, y, z), body to world
//   x[o+7..9]   v_WB_W    velocity of the body origin, world frame, m/s
//   x[o+10..12] w_WB_B    angular velocity, body frame, rad/s (outputs use world frame)
#pragma once

#include "core/math.hpp"
#include "core/model.hpp"

namespace hybridsim {

inline constexpr int kFreeBodyStateSize = 13;
// The first velocity state of a free body (v_WB_W, then w_WB_B up to the end of the block).
inline constexpr int kFreeBodyVelocityOffset = 7;

// Rate (1/s) at which the quaternion derivative pulls |q| back to 1. The exact flow keeps |q| = 1;
// this term removes the integrator's drift without changing the exact solution.
inline constexpr double kQuaternionStabilization = 1.0;

struct BodyKinematics {
  Pose X_WB;                     // pose with the normalised quaternion
  Quat q_WB = Quat::Identity();  // normalised
  Vec3 p_WCom = Vec3::Zero();    // centre of mass, world
  Vec3 v_WCom_W = Vec3::Zero();  // velocity of the centre of mass, world
  Vec3 w_WB_W = Vec3::Zero();    // angular velocity, world
  Vec3 w_WB_B = Vec3::Zero();    // angular velocity, body
};

// Total force and the moment about the centre of mass acting on one body, world frame.
struct BodyWrench {
  Vec3 f_W = Vec3::Zero();
  Vec3 tau_Com_W = Vec3::Zero();

  void set_zero() {
    f_W.setZero();
    tau_Com_W.setZero();
  }
  // A force applied at point Q (world) adds its moment about the centre of mass.
  void add_force_at(const Vec3& f, const Vec3& p_WQ, const Vec3& p_WCom) {
    f_W += f;
    tau_Com_W += (p_WQ - p_WCom).cross(f);
  }
};

// Kinematics of a body from the state (a fixed body ignores x).
void compute_body_kinematics(const Body& body, const double* x, BodyKinematics& kinematics);

// Velocity of a world point Q rigidly attached to the body.
inline Vec3 velocity_of_point(const BodyKinematics& kinematics, const Vec3& p_WQ) {
  return kinematics.v_WCom_W + kinematics.w_WB_W.cross(p_WQ - kinematics.p_WCom);
}

// Newton-Euler: writes the 13 state derivatives of a free body at x + offset.
void compute_body_derivatives(const Body& body, const BodyKinematics& kinematics,
                              const BodyWrench& wrench, const double* x, double* xdot);

// Accelerations of a free body under a wrench: (a_Com_W, alpha_W), centre of mass and angular,
// world frame, m/s^2 and rad/s^2, with Euler's gyroscopic term.
Vec6 compute_body_acceleration(const Body& body, const BodyKinematics& kinematics,
                               const BodyWrench& wrench);

// Writes the 13 state derivatives of a free body at x + offset from given accelerations
// (a_Com_W, alpha_W), e.g. constrained ones.
void write_body_derivatives(const Body& body, const BodyKinematics& kinematics, const Vec6& nu_dot,
                            const double* x, double* xdot);

// The inverse of write_body_derivatives for the velocity part: (a_Com_W, alpha_W) from the state
// derivatives of a free body at x + offset.
Vec6 body_acceleration_from_derivatives(const Body& body, const BodyKinematics& kinematics,
                                        const double* xdot);

// Kinetic energy (translation of the centre of mass plus rotation about it), J.
double compute_kinetic_energy(const Body& body, const BodyKinematics& kinematics);

// Linear momentum and angular momentum about the world origin, world frame.
Vec3 compute_linear_momentum(const Body& body, const BodyKinematics& kinematics);
Vec3 compute_angular_momentum(const Body& body, const BodyKinematics& kinematics);

// Writes the initial 13 states of a free body from its Model entry.
void write_initial_body_state(const Body& body, double* x);

// Normalises the quaternion of a free body in place (used at restarts).
void normalize_body_quaternion(const Body& body, double* x);

}  // namespace hybridsim
