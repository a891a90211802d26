// Convex hulls (collision/convex_hull.hpp): qhull's hull of a point set checked against solids
// with closed forms (a box, a regular octahedron), containment and corners of random point sets,
// the refusals of sets that span no solid, the support function against a brute-force maximum,
// and the exact half-space pair against the box's.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "collision/convex_hull.hpp"
#include "collision/signed_distance.hpp"
#include "core/errors.hpp"
#include "models/mass_properties.hpp"
#include "test_shapes.hpp"

namespace hybridsim {
namespace {

using testing::make_box;
using testing::make_box_hull;
using testing::make_convex;
using testing::make_halfspace;
using testing::random_quaternion;

std::string error_of(const std::vector<Vec3>& points) {
  try {
    build_convex_hull(points);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

// The largest relative difference of two matrices, against the larger's norm.
double relative_difference(const Mat3& a, const Mat3& b) {
  return (a - b).norm() / std::max(a.norm(), b.norm());
}

TEST_CASE("convex hull: a box's corners and inner points give the box, its faces and edges") {
  // Corners of a 0.2 x 0.3 x 0.1 m box offset by (1, 2, 3), plus points inside and on faces
  // that are not corners: the hull keeps the 8 corners, 6 faces and 3 edge directions.
  const Vec3 h(0.1, 0.15, 0.05), offset(1.0, 2.0, 3.0);
  std::vector<Vec3> points;
  for (int i = 0; i < 8; ++i) {
    points.push_back(offset + Vec3((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(),
                                   (i & 4) ? h.z() : -h.z()));
  }
  points.push_back(offset);
  points.push_back(offset + Vec3(0.05, 0.0, h.z()));  // on the top face
  points.push_back(offset + Vec3(0.02, -0.1, 0.01));
  const BuiltConvexHull built = build_convex_hull(points);
  const ConvexHull& hull = built.hull;
  CHECK(hull.vertices_S.size() == 8);
  CHECK(hull.face_normals_S.size() == 6);
  CHECK(hull.edge_directions_S.size() == 3);
  CHECK(hull.triangles.size() == 12);
  // Centred: the centroid of a box is its centre (1e-14 m: rounding of coordinates near 3 m).
  CHECK((built.centroid_input - offset).norm() < 1e-14);
  for (const Vec3& v : hull.vertices_S) CHECK((v.cwiseAbs() - h).norm() < 1e-14);
  // Thickness: the smallest edge; bounding radius: the half diagonal.
  CHECK(hull.thickness == doctest::Approx(0.1).epsilon(1e-12));
  CHECK(hull.bounding_radius == doctest::Approx(h.norm()).epsilon(1e-12));
  // Volume and inertia equal the box's closed forms (rounding only: 1e-12).
  Shape as_hull;
  as_hull.type = ShapeType::convex;
  as_hull.hull = std::make_shared<const ConvexHull>(hull);
  const Shape box = make_box(h);
  CHECK(compute_shape_volume(as_hull) == doctest::Approx(compute_shape_volume(box)).epsilon(1e-12));
  CHECK(compute_shape_centroid_S(as_hull).norm() < 1e-15);
  CHECK(relative_difference(compute_shape_inertia(as_hull, 2.5), compute_shape_inertia(box, 2.5)) <
        1e-12);
}

TEST_CASE("convex hull: a regular octahedron has volume 4a^3/3 and inertia m a^2/5") {
  // |x| + |y| + |z| <= a: V = 4 a^3 / 3; <x^2> = a^2 / 10 (Dirichlet integrals over the
  // simplex), so I = m (<y^2> + <z^2>) = m a^2 / 5 about every axis. Rotated, the inertia turns
  // with it: R I R^T = I for a multiple of the identity.
  const double a = 0.07;
  std::mt19937 random(3);
  const Mat3 R = random_quaternion(random).toRotationMatrix();
  std::vector<Vec3> points;
  for (int axis = 0; axis < 3; ++axis) {
    points.push_back(R * (a * Vec3::Unit(axis)));
    points.push_back(R * (-a * Vec3::Unit(axis)));
  }
  const Shape octahedron = make_convex(points);
  CHECK(octahedron.hull->face_normals_S.size() == 8);
  CHECK(octahedron.hull->edge_directions_S.size() == 6);
  CHECK(compute_shape_volume(octahedron) == doctest::Approx(4.0 * a * a * a / 3.0).epsilon(1e-12));
  const double mass = 1.3;
  CHECK(relative_difference(compute_shape_inertia(octahedron, mass),
                            Mat3::Identity() * (mass * a * a / 5.0)) < 1e-12);
  // Its smallest width is between opposite faces: 2 a / sqrt(3).
  CHECK(octahedron.hull->thickness == doctest::Approx(2.0 * a / std::sqrt(3.0)).epsilon(1e-12));
}

TEST_CASE("convex hull: of random points, every point is inside and every corner is a point") {
  std::mt19937 random(5);
  std::normal_distribution<double> normal;
  for (int set = 0; set < 20; ++set) {
    std::vector<Vec3> points;
    for (int i = 0; i < 200; ++i)
      points.emplace_back(normal(random), normal(random), normal(random));
    const BuiltConvexHull built = build_convex_hull(points);
    const ConvexHull& hull = built.hull;
    // Every input point on the inner side of every face plane (rounding: 1e-12 of the size).
    for (const auto& t : hull.triangles) {
      const Vec3& p0 = hull.vertices_S[t[0]];
      const Vec3 n = (hull.vertices_S[t[1]] - p0).cross(hull.vertices_S[t[2]] - p0).normalized();
      for (const Vec3& p : points) CHECK(n.dot(p - built.centroid_input - p0) < 1e-12);
    }
    // Every corner is one of the points.
    for (const Vec3& v : hull.vertices_S) {
      double nearest = kInfinity;
      for (const Vec3& p : points)
        nearest = std::min(nearest, (p - built.centroid_input - v).norm());
      CHECK(nearest < 1e-14);
    }
    // A closed surface: V - E + F = 2 over the triangles (E = 3F/2).
    CHECK(static_cast<int>(hull.vertices_S.size()) - static_cast<int>(hull.triangles.size()) / 2 ==
          2);
  }
}

TEST_CASE("convex hull: fewer than 4 points, flat, collinear or non-finite sets are refused") {
  CHECK(error_of({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)})
            .find("needs at least 4 non-coplanar vertices, got 3") != std::string::npos);
  std::vector<Vec3> flat;
  for (int i = 0; i < 10; ++i) flat.emplace_back(std::cos(i), std::sin(i), 0.5 * std::cos(i));
  CHECK(error_of(flat).find("vertices are flat") != std::string::npos);
  CHECK(error_of({Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3(2, 2, 2), Vec3(3, 3, 3)})
            .find("lie on one line") != std::string::npos);
  CHECK(error_of({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, kNaN)})
            .find("not finite") != std::string::npos);
  CHECK(error_of({Vec3(1, 1, 1), Vec3(1, 1, 1), Vec3(1, 1, 1), Vec3(1, 1, 1)}).find("coincide") !=
        std::string::npos);
}

TEST_CASE("convex hull: the support point is the farthest vertex, a face's middle on a tie") {
  std::mt19937 random(9);
  std::normal_distribution<double> normal;
  std::vector<Vec3> points;
  for (int i = 0; i < 50; ++i) points.emplace_back(normal(random), normal(random), normal(random));
  const Shape shape = make_convex(points);
  for (int trial = 0; trial < 1000; ++trial) {
    const Vec3 d(normal(random), normal(random), normal(random));
    double farthest = -kInfinity;
    for (const Vec3& v : shape.hull->vertices_S) farthest = std::max(farthest, v.dot(d));
    CHECK(compute_hull_support_point_S(*shape.hull, d).dot(d) == farthest);
  }
  // A box's top face is farthest up: its centre.
  const Shape box = make_box_hull(Vec3(0.1, 0.2, 0.3));
  CHECK((compute_hull_support_point_S(*box.hull, Vec3::UnitZ()) - Vec3(0, 0, 0.3)).norm() < 1e-15);
}

TEST_CASE("convex hull: against a half-space it equals the box's exact pair, contact point too") {
  // A hull of a box's corners is the box: the deepest vertex and the penetration-weighted mean of
  // the vertices below the plane are the box's (rounding: 1e-15 m at these sizes).
  std::mt19937 random(13);
  std::uniform_real_distribution<double> height(-0.05, 0.3);
  const Vec3 h(0.1, 0.15, 0.2);
  const Shape box = make_box(h), hull = make_box_hull(h), half = make_halfspace();
  const Pose X_H{Mat3::Identity(), Vec3(0.0, 0.0, 0.1)};
  for (int trial = 0; trial < 2000; ++trial) {
    const Pose X_B{random_quaternion(random).toRotationMatrix(), Vec3(0.3, -0.2, height(random))};
    const SignedDistance expected = compute_signed_distance(half, X_H, box, X_B);
    const SignedDistance got = compute_signed_distance(half, X_H, hull, X_B);
    const SignedDistance swapped = compute_signed_distance(hull, X_B, half, X_H);
    CHECK(std::abs(got.distance - expected.distance) < 1e-15);
    CHECK((got.n_AB_W - expected.n_AB_W).norm() < 1e-15);
    CHECK((got.p_B_W - expected.p_B_W).norm() < 1e-14);
    CHECK(std::abs(swapped.distance - expected.distance) < 1e-15);
    CHECK((swapped.n_AB_W + expected.n_AB_W).norm() < 1e-15);
  }
}

}  // namespace
}  // namespace hybridsim
