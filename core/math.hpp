// Math types used throughout hybridsim: Eigen fixed-size vectors and small helpers.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <limits>

namespace hybridsim {

// A 3-vector: a point, a direction, a velocity, a force... Its unit is the quantity's SI unit and
// its frame is given by the name's suffix (_W world, _B body, _S shape).
using Vec3 = Eigen::Vector3d;
// A spatial 6-vector (linear part, angular part), e.g. nu = (v_Com_W, w_W) of a body, m/s and
// rad/s, or its rate.
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;
// A 3x3 matrix: a rotation matrix R_AB (dimensionless) or an inertia tensor (kg m^2).
using Mat3 = Eigen::Matrix3d;
// A unit quaternion q_AB, the orientation of frame B in frame A (dimensionless). Eigen's
// constructor takes (w, x, y, z); see quaternion_from_wxyz.
using Quat = Eigen::Quaterniond;
// A vector of any length: a system state, its derivative, crossing values. Each entry has the unit
// of its state (for a scene, the 13-per-body layout of core/rigid_body.hpp).
using VectorX = Eigen::VectorXd;

// +inf: "no bound" (a step size, a time event) or a flat half-space's radius.
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Quiet NaN: "not given" (an optional parameter) or "not applicable" (an event record field).
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A rigid transform X_AB: orientation R_AB and position p_AB (of B's origin in A).
struct Pose {
  Mat3 rotation = Mat3::Identity();  // R_AB: B's axes expressed in A, dimensionless
  Vec3 translation = Vec3::Zero();   // p_AB: B's origin measured from A's origin, in A, m

  // p_A = X_AB p_B: a point given in B (m) expressed in A (m).
  Vec3 transform_point(const Vec3& p_B) const { return rotation * p_B + translation; }
  // X_AB * X_BC = X_AC
  Pose operator*(const Pose& X_BC) const {
    return {rotation * X_BC.rotation, rotation * X_BC.translation + translation};
  }
};

// Quaternions are stored in states and files as (w, x, y, z).
inline Quat quaternion_from_wxyz(const double* wxyz) {
  return Quat(wxyz[0], wxyz[1], wxyz[2], wxyz[3]);
}

// True when no component of v is NaN or infinite.
inline bool all_finite(const Vec3& v) {
  return v.allFinite();
}

}  // namespace hybridsim
