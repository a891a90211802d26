// A capsule's side against terrain ridges (collision/terrain_side.hpp), against brute force and
// geometry: the side's distance is the distance between the axis and the ridge's edge, found by
// dense sampling; where the axis' nearest point passes an end, the end's point and the side's
// take over from each other at the same place, never both and never neither.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "collision/terrain_contact.hpp"
#include "collision/terrain_side.hpp"
#include "collision/triangle_surface.hpp"
#include "test_shapes.hpp"

namespace hybridsim {
namespace {

// A roof: two planes falling at beta from a ridge along the y axis (y in [-1, 1], at z = 0).
Shape make_roof(double beta) {
  const double s = -std::tan(beta);
  std::vector<Vec3> v = {{-1, -1, s}, {0, -1, 0}, {1, -1, s}, {-1, 1, s}, {0, 1, 0}, {1, 1, s}};
  Shape roof;
  roof.type = ShapeType::mesh;
  roof.surface = std::make_shared<const TriangleSurface>(
      build_mesh_surface(v, {{0, 1, 4}, {0, 4, 3}, {1, 2, 5}, {1, 5, 4}}));
  return roof;
}

// A capsule pose: its axis (local z) along `axis`, its centre at `centre`.
Pose capsule_pose(const Vec3& centre, const Vec3& axis) {
  Pose X;
  X.rotation = Quat::FromTwoVectors(Vec3::UnitZ(), axis.normalized()).toRotationMatrix();
  X.translation = centre;
  return X;
}

const ManifoldPoint* find_side(const ContactManifold& manifold) {
  for (int k = 0; k < manifold.count; ++k) {
    if (manifold.points[static_cast<std::size_t>(k)].feature_b == kCapsuleSide) {
      return &manifold.points[static_cast<std::size_t>(k)];
    }
  }
  return nullptr;
}

TEST_CASE("capsule side: its distance is the axis' distance to the ridge, less the radius") {
  // Random capsules across the ridge (axis within 60 degrees of x, nearest point inside both
  // segments, within 0.1 mm of touching): the side point's distance against the least distance
  // between 20,001 points of the axis and the ridge's segment (each point's distance to the segment
  // exact), refined by ternary search (the distance is convex along the axis) to rounding: within
  // 1e-12 m.
  const Shape roof = make_roof(0.3);
  const double r = 0.05, length = 0.6;
  const Shape capsule = testing::make_capsule(r, length);
  std::mt19937 random(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    // The axis passes r + 0.1 mm (at most) over the ridge at y0, at right angles to both.
    const Vec3 axis = Vec3(1.0, 0.6 * unit(random), 0.3 * unit(random)).normalized();
    Vec3 up = Vec3::UnitY().cross(axis).normalized();
    if (up.z() < 0.0) up = -up;
    const Vec3 over_ridge = Vec3(0.0, 0.5 * unit(random), 0.0) + (r + 1e-4 * unit(random)) * up;
    const Vec3 centre = over_ridge - 0.4 * unit(random) * length * axis;
    const Pose X_WP = capsule_pose(centre, axis);
    ContactManifold manifold;
    compute_terrain_manifold(roof, Pose{}, capsule, X_WP, manifold);
    double nearest = kInfinity;
    const Vec3 p0 = X_WP.transform_point(Vec3(0, 0, -length / 2));
    const Vec3 p1 = X_WP.transform_point(Vec3(0, 0, length / 2));
    double nearest_u = 0.0;
    for (int i = 0; i <= 20000; ++i) {
      const Vec3 p = p0 + (i / 20000.0) * (p1 - p0);
      const Vec3 on_ridge(0.0, std::clamp(p.y(), -1.0, 1.0), 0.0);
      const double d = (p - on_ridge).norm();
      if (d < nearest) nearest = d, nearest_u = i / 20000.0;
    }
    // The distance to the segment is convex along the axis: refined by ternary search.
    const auto distance_at = [&](double u) {
      const Vec3 p = p0 + u * (p1 - p0);
      return (p - Vec3(0.0, std::clamp(p.y(), -1.0, 1.0), 0.0)).norm();
    };
    double low = std::max(0.0, nearest_u - 1e-4), high = std::min(1.0, nearest_u + 1e-4);
    for (int i = 0; i < 200; ++i) {
      const double a = low + (high - low) / 3.0, b = high - (high - low) / 3.0;
      if (distance_at(a) < distance_at(b)) {
        high = b;
      } else {
        low = a;
      }
    }
    nearest = distance_at(0.5 * (low + high));
    const ManifoldPoint* side = find_side(manifold);
    // The ridge reaches the capsule within the search's margin (1e-3 of its bounding radius).
    const bool inside = nearest_u > 1e-3 && nearest_u < 1.0 - 1e-3;
    if (!inside || std::abs(nearest - r) > 1e-4) continue;
    ++checked;
    CAPTURE(trial);
    CAPTURE(nearest_u);
    CAPTURE(nearest - r);
    REQUIRE(side != nullptr);
    CHECK(std::abs(side->geometry.distance - (nearest - r)) < 1e-12);
    // Its normal points from the ridge to the axis, at right angles to both.
    CHECK(std::abs(side->geometry.n_AB_W.dot((p1 - p0).normalized())) < 1e-9);
    CHECK(std::abs(side->geometry.n_AB_W.y()) < 1e-9);
  }
  CHECK(checked > 50);
}

TEST_CASE("capsule side: an end on the ridge and the side take over from each other in place") {
  // A capsule across the ridge with its end 0 on it; the axis rises from the end at +theta (the
  // end's ball is the capsule's nearest point to the ridge) or falls at -theta (a point of the
  // axis just inside the end is nearer: the side's). Exactly one of the two holds the ridge in
  // each case; at theta -> 0 both name the same place and distance, so that an event hands one
  // contact over to the other with nothing jumping.
  const Shape roof = make_roof(0.3);
  const double r = 0.05, length = 0.6;
  const Shape capsule = testing::make_capsule(r, length);
  for (const double theta : {1e-3, -1e-3, 1e-6, -1e-6, 0.0}) {
    CAPTURE(theta);
    const Vec3 axis(std::cos(theta), 0.0, std::sin(theta));
    const Vec3 end0(0.0, 0.1, r - 1e-6);  // 1 um into the ridge
    const Pose X_WP = capsule_pose(end0 + 0.5 * length * axis, axis);
    ContactManifold manifold;
    compute_terrain_manifold(roof, Pose{}, capsule, X_WP, manifold);
    int on_ridge = 0;
    const ManifoldPoint* held = nullptr;
    for (int k = 0; k < manifold.count; ++k) {
      const ManifoldPoint& point = manifold.points[static_cast<std::size_t>(k)];
      if (point.geometry.distance < 0.0) ++on_ridge, held = &point;
    }
    REQUIRE(on_ridge == 1);
    // Level (theta = 0) is a tie that rounding settles: either holds, never both.
    if (theta != 0.0) CHECK((held->feature_b == kCapsuleSide) == (theta < 0.0));
    // The same place and depth within theta's lever: the side's foot lies r theta inside the
    // end.
    CHECK(std::abs(held->geometry.distance + 1e-6) <= r * theta * theta + 1e-12);
    CHECK(std::abs(held->geometry.contact_point_W().x()) <= 2.0 * r * std::abs(theta) + 1e-12);
    // Evaluated from the other's features, the point asks for an event (validity > 0).
    if (theta == 0.0) continue;
    const Feature other = theta < 0.0 ? Feature{FeatureKind::vertex, 0, 0} : kCapsuleSide;
    const ManifoldPoint moved = evaluate_manifold_point(roof, Pose{}, capsule, X_WP,
                                                        manifold.reference, held->feature_a, other);
    CHECK(moved.validity > 0.0);
  }
}

// A ridge along y at x = 0 (z = 0.3, faces falling 0.3 m over 1 m) as a heightmap of 20 x 40
// cells of 0.1 m over [-1, 1] x [-2, 2]: a chain of 40 edges whose vertices are no peaks.
Shape make_ridge_heightmap() {
  std::vector<std::vector<double>> heights(41, std::vector<double>(21));
  for (auto& row : heights) {
    for (int column = 0; column < 21; ++column) {
      row[static_cast<std::size_t>(column)] = 0.3 - 0.3 * std::abs(-1.0 + 0.1 * column);
    }
  }
  Shape ridge;
  ridge.type = ShapeType::heightmap;
  ridge.surface =
      std::make_shared<const TriangleSurface>(build_heightmap_surface(heights, 2.0, 4.0));
  return ridge;
}

// The same ridge as one edge: two rectangles.
Shape make_ridge_mesh() {
  std::vector<Vec3> v = {{-1, -2, 0}, {0, -2, 0.3}, {1, -2, 0}, {-1, 2, 0}, {0, 2, 0.3}, {1, 2, 0}};
  Shape ridge;
  ridge.type = ShapeType::mesh;
  ridge.surface = std::make_shared<const TriangleSurface>(
      build_mesh_surface(v, {{0, 1, 4}, {0, 4, 3}, {1, 2, 5}, {1, 5, 4}}));
  return ridge;
}

// The points deeper than 0 of a manifold, the deepest first.
std::vector<ManifoldPoint> touching(const ContactManifold& manifold) {
  std::vector<ManifoldPoint> points;
  for (int k = 0; k < manifold.count; ++k) {
    const ManifoldPoint& point = manifold.points[static_cast<std::size_t>(k)];
    if (point.geometry.distance < 0.0) points.push_back(point);
  }
  std::sort(points.begin(), points.end(), [](const ManifoldPoint& x, const ManifoldPoint& y) {
    return x.geometry.distance < y.geometry.distance;
  });
  return points;
}

TEST_CASE("capsule side: a ridge of many edges gives the points of a ridge of one") {
  // The same ridge as a chain of 40 edges (heightmap) and as one edge (mesh): a capsule across it
  // at right angles, right over a vertex of the chain (a tie of its two edges, held by the
  // vertex), across it between vertices, and nearly along it (turned 1e-3 rad, its ends on edges
  // of the chain 0.3 m from where the axis crosses the ridge line: the side's walk from each end
  // reaches that crossing, so neither end is a nearest point). Each is held by the side alone,
  // 1 um deep, with the same distance and place on both (1e-12 m: rounding; the place along a
  // nearly parallel ridge over the sine of the angle).
  const Shape grid = make_ridge_heightmap();
  const Shape roof = make_ridge_mesh();
  const double r = 0.05, length = 0.6;
  const Shape capsule = testing::make_capsule(r, length);
  const std::array<std::pair<double, double>, 3> cases{{{-1.5, 0.0}, {0.05, 0.0}, {0.05, 1e-3}}};
  for (const auto& place : cases) {
    // Named copies: clang 14 cannot capture structured bindings in CAPTURE's lambda.
    const double y = place.first, turn = place.second;
    CAPTURE(y);
    CAPTURE(turn);
    // At right angles: the axis along x; nearly along: along y, turned.
    const Vec3 axis = turn == 0.0 ? Vec3(Vec3::UnitX()) : Vec3(std::sin(turn), std::cos(turn), 0.0);
    const Pose X_WP = capsule_pose(Vec3(0.0, y, 0.3 + r - 1e-6), axis);
    ContactManifold on_grid, on_roof;
    compute_terrain_manifold(grid, Pose{}, capsule, X_WP, on_grid);
    compute_terrain_manifold(roof, Pose{}, capsule, X_WP, on_roof);
    const auto grid_points = touching(on_grid);
    const auto roof_points = touching(on_roof);
    REQUIRE(grid_points.size() == 1);
    REQUIRE(roof_points.size() == 1);
    CHECK(grid_points[0].feature_b == kCapsuleSide);
    CHECK(roof_points[0].feature_b == kCapsuleSide);
    CHECK(std::abs(grid_points[0].geometry.distance - roof_points[0].geometry.distance) < 1e-12);
    CHECK(std::abs(grid_points[0].geometry.distance + 1e-6) < 1e-9);
    // Where a nearly parallel axis crosses the ridge line is rounding over the sine of their
    // angle: 1e-12 m / sin(turn).
    CHECK((grid_points[0].geometry.contact_point_W() - roof_points[0].geometry.contact_point_W())
              .norm() < 1e-12 / std::abs(axis.x()));
  }
}

TEST_CASE("capsule side: a point whose nearest axis point is past an end stops there") {
  // A ridge vertex beside the axis' end 0, the ridge edge from it rising towards the axis: from
  // the vertex the clamped axis point says move onto the edge, whose closest point on the axis'
  // line lies before end 0 and would say move back. The point stops at the vertex with a
  // positive validity (an event settles it) and the vertex's distance.
  const Shape roof = make_ridge_mesh();
  const double r = 0.05, length = 0.6;
  const Shape capsule = testing::make_capsule(r, length);
  const Vec3 vertex(0.0, -2.0, 0.3);  // vertex 1
  const Vec3 axis = Vec3(1.0, 1.0, 0.0).normalized();
  const Vec3 end0 = vertex + Vec3(0.1, 0.01, 0.1);
  const Pose X_WP = capsule_pose(end0 + 0.5 * length * axis, axis);
  const ManifoldPoint point =
      evaluate_manifold_point(roof, Pose{}, capsule, X_WP, {ManifoldKind::terrain, -1},
                              {FeatureKind::vertex, 1, 0}, kCapsuleSide);
  CHECK(point.validity > 0.0);
  CHECK(std::abs(point.geometry.distance - ((end0 - vertex).norm() - r)) < 1e-12);
}

}  // namespace
}  // namespace hybridsim
