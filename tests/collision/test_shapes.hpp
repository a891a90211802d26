// Shapes and random orientations for the collision tests: each factory sets the type and the
// parameters of core/model.hpp's Shape, in the shape's own frame; everything else keeps its
// default (material, pose in the body, filters).
#pragma once

#include <random>

#include "core/math.hpp"
#include "core/model.hpp"

namespace hybridsim::testing {

inline Shape make_sphere(double radius) {
  Shape s;
  s.type = ShapeType::sphere;
  s.radius = radius;
  return s;
}

// A box of half extents `half_extents` (m).
inline Shape make_box(const Vec3& half_extents) {
  Shape s;
  s.type = ShapeType::box;
  s.half_extents = half_extents;
  return s;
}

inline Shape make_capsule(double radius, double length) {
  Shape s;
  s.type = ShapeType::capsule;
  s.radius = radius;
  s.length = length;
  return s;
}

inline Shape make_cylinder(double radius, double length) {
  Shape s;
  s.type = ShapeType::cylinder;
  s.radius = radius;
  s.length = length;
  return s;
}

// A cone (top_radius 0) or frustum, base radius at z = -length / 2.
inline Shape make_cone(double radius, double top_radius, double length) {
  Shape s;
  s.type = ShapeType::cone;
  s.radius = radius;
  s.top_radius = top_radius;
  s.length = length;
  return s;
}

inline Shape make_ellipsoid(const Vec3& radii) {
  Shape s;
  s.type = ShapeType::ellipsoid;
  s.radii = radii;
  return s;
}

// The half-space z <= 0 of its frame.
inline Shape make_halfspace() {
  Shape s;
  s.type = ShapeType::halfspace;
  s.normal_S = Vec3::UnitZ();
  return s;
}

// A rotation uniform over SO(3): a normalised 4D Gaussian.
inline Quat random_quaternion(std::mt19937& random) {
  std::normal_distribution<double> normal;
  return Quat(normal(random), normal(random), normal(random), normal(random)).normalized();
}

}  // namespace hybridsim::testing
