// Math types used throughout hybridsim: Eigen fixed-size vectors and small helpers.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <limits>

namespace hybridsim {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;
using VectorX = Eigen::VectorXd;

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A rigid transform X_AB: orientation R_AB and position p_AB (of B's origin in A).
struct Pose {
  Mat3 rotation = Mat3::Identity();
  Vec3 translation = Vec3::Zero();

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

inline bool all_finite(const Vec3& v) {
  return v.allFinite();
}

}  // namespace hybridsim
