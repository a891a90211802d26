// Shapes and random orientations for the collision tests: each factory sets the type and the
// parameters of core/model.hpp's Shape, in the shape's own frame; everything else keeps its
// default (material, pose in the body, filters).
#pragma once

#include <memory>
#include <random>
#include <vector>

#include "collision/convex_hull.hpp"

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

// The convex hull of `points`, its frame at the hull's centroid (the points' frame shifted by
// collision/convex_hull.hpp's centroid_input).
inline Shape make_convex(const std::vector<Vec3>& points) {
  Shape s;
  s.type = ShapeType::convex;
  s.hull = std::make_shared<const ConvexHull>(build_convex_hull(points).hull);
  return s;
}

// The hull of a box's eight corners: the same solid as make_box(half_extents).
inline Shape make_box_hull(const Vec3& h) {
  std::vector<Vec3> corners;
  for (int i = 0; i < 8; ++i) {
    corners.emplace_back((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(),
                         (i & 4) ? h.z() : -h.z());
  }
  return make_convex(corners);
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
