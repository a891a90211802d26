// Contact manifolds (collision/contact_manifold.hpp): the candidate points of a box or hull on a
// half-space and of two polytopes face on face are the corners of the overlap polygon, each with
// the features that make it; a point evaluated from its features alone is the candidate; the
// validity of a point crosses zero exactly where the clipping hands it to its neighbour.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "approx.hpp"
#include "collision/contact_manifold.hpp"
#include "collision/polytope.hpp"
#include "collision/signed_distance.hpp"
#include "test_shapes.hpp"

namespace hybridsim {
namespace {

using testing::make_box;
using testing::make_box_hull;
using testing::make_halfspace;

Pose pose_at(const Vec3& translation, const Quat& q = Quat::Identity()) {
  return Pose{q.toRotationMatrix(), translation};
}

Quat yaw(double angle) {
  return Quat(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
}

std::vector<ManifoldPoint> candidates(const Shape& a, const Pose& X_WA, const Shape& b,
                                      const Pose& X_WB, const ManifoldReference* kept = nullptr) {
  ContactManifold manifold;
  compute_contact_manifold(a, X_WA, b, X_WB, kept, ReferenceUse::reassess, manifold);
  return {manifold.points.begin(), manifold.points.begin() + manifold.count};
}

ManifoldReference reference_of(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB) {
  ContactManifold manifold;
  compute_contact_manifold(a, X_WA, b, X_WB, nullptr, ReferenceUse::reassess, manifold);
  return manifold.reference;
}

// The candidates below `depth_limit` (m), deepest first.
std::vector<ManifoldPoint> touching(std::vector<ManifoldPoint> points, double depth_limit = 0.0) {
  std::erase_if(points, [&](const ManifoldPoint& p) { return p.geometry.distance >= depth_limit; });
  std::sort(points.begin(), points.end(),
            [](const auto& x, const auto& y) { return x.geometry.distance < y.geometry.distance; });
  return points;
}

// Every candidate equals the point its features make when evaluated alone.
void check_features_reproduce(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB) {
  ContactManifold manifold;
  compute_contact_manifold(a, X_WA, b, X_WB, nullptr, ReferenceUse::reassess, manifold);
  for (int k = 0; k < manifold.count; ++k) {
    const ManifoldPoint& p = manifold.points[static_cast<std::size_t>(k)];
    const ManifoldPoint q =
        evaluate_manifold_point(a, X_WA, b, X_WB, manifold.reference, p.feature_a, p.feature_b);
    CHECK(q.geometry.distance == p.geometry.distance);
    CHECK(q.validity == p.validity);
    CHECK((q.geometry.p_A_W - p.geometry.p_A_W).norm() == 0.0);
    CHECK((q.geometry.p_B_W - p.geometry.p_B_W).norm() == 0.0);
  }
}

TEST_CASE("polytope: box and hull faces are counter-clockwise loops around their normals") {
  const Vec3 h(0.3, 0.2, 0.1);
  for (const Shape& shape : {make_box(h), make_box_hull(h)}) {
    const Polytope polytope(shape);
    REQUIRE(polytope.face_count() == 6);
    for (int f = 0; f < polytope.face_count(); ++f) {
      const auto loop = polytope.face_loop(f);
      REQUIRE(loop.size() == 4);
      // The loop's area vector (Newell) points along the outward normal, with the face's area.
      Vec3 area = Vec3::Zero();
      for (std::size_t k = 0; k < loop.size(); ++k) {
        area += polytope.vertex_S(loop[k]).cross(polytope.vertex_S(loop[(k + 1) % loop.size()]));
      }
      area *= 0.5;
      const Vec3 n = polytope.face_normal_S(f);
      CHECK(area.normalized().dot(n) == doctest::Approx(1.0).epsilon(1e-12));
      const double expected =
          4.0 * (h.x() * h.y() * std::abs(n.z()) + h.y() * h.z() * std::abs(n.x()) +
                 h.x() * h.z() * std::abs(n.y()));
      CHECK(area.norm() == doctest::Approx(expected).epsilon(1e-12));
      // Every corner of the loop lies on the face's plane.
      for (int v : loop) {
        CHECK(polytope.vertex_S(v).dot(n) == doctest::Approx(polytope.vertex_S(loop[0]).dot(n)));
      }
    }
  }
}

TEST_CASE("manifold: a box on a half-space has its eight corners, the four lowest at their depth") {
  const Shape ground = make_halfspace();
  const Shape box = make_box(Vec3(0.1, 0.08, 0.05));
  const Quat tilt(Eigen::AngleAxisd(0.01, Vec3::UnitX()));
  const Pose X_WB = pose_at(Vec3(0.3, -0.2, 0.05 - 1e-6), tilt * yaw(0.4));
  const auto points = candidates(ground, Pose{}, box, X_WB);
  REQUIRE(points.size() == 8);
  const Polytope polytope(box);
  for (const ManifoldPoint& p : points) {
    REQUIRE(p.feature_b.kind == FeatureKind::vertex);
    CHECK(p.feature_a == Feature{FeatureKind::face, 0, 0});
    // The vertex's height, the normal +z from the ground (A) to the box (B), the witnesses.
    const Vec3 corner_W = X_WB.transform_point(polytope.vertex_S(p.feature_b.index));
    CHECK(p.geometry.distance == doctest::Approx(corner_W.z()).epsilon(1e-15));
    CHECK(p.geometry.n_AB_W == Vec3::UnitZ());
    CHECK((p.geometry.p_B_W - corner_W).norm() == 0.0);
    CHECK(p.geometry.p_A_W.z() == 0.0);
    CHECK(p.validity == -kInfinity);
  }
  // The lowest corner is what the narrowphase calls the distance.
  const double lowest = touching(points, kInfinity).front().geometry.distance;
  CHECK(lowest == compute_signed_distance(ground, Pose{}, box, X_WB).distance);
  check_features_reproduce(ground, Pose{}, box, X_WB);
  // The order of the pair does not matter: B to A, the normal and the features swap.
  const auto swapped = candidates(box, X_WB, ground, Pose{});
  REQUIRE(swapped.size() == 8);
  for (std::size_t k = 0; k < 8; ++k) {
    CHECK(swapped[k].geometry.n_AB_W == -Vec3::UnitZ());
    CHECK(swapped[k].feature_a == points[k].feature_b);
    CHECK(swapped[k].geometry.distance == points[k].geometry.distance);
  }
  check_features_reproduce(box, X_WB, ground, Pose{});
}

TEST_CASE("manifold: a small box on a large one gives its four corners, turned or not") {
  const Shape slab = make_box(Vec3(0.5, 0.5, 0.05));
  const Shape cube = make_box(Vec3(0.1, 0.1, 0.1));
  const double depth = 2e-6;
  for (const double angle : {0.0, 0.3, std::numbers::pi / 4}) {
    CAPTURE(angle);
    const Pose X_WS = pose_at(Vec3(0, 0, -0.05));
    const Pose X_WC = pose_at(Vec3(0.05, -0.1, 0.1 - depth), yaw(angle));
    // The slab's top face (A's, index 5: +z) is the reference, the cube's bottom face incident.
    const ManifoldReference reference = reference_of(slab, X_WS, cube, X_WC);
    CHECK(reference == ManifoldReference{ManifoldKind::face_of_a, 5});
    const auto points = touching(candidates(slab, X_WS, cube, X_WC));
    REQUIRE(points.size() == 4);
    const Polytope polytope(cube);
    for (const ManifoldPoint& p : points) {
      CHECK(p.feature_a == Feature{FeatureKind::face, 5, 0});
      REQUIRE(p.feature_b.kind == FeatureKind::vertex);
      const Vec3 corner_W = X_WC.transform_point(polytope.vertex_S(p.feature_b.index));
      CHECK(corner_W.z() == testing::relative(-depth, 1e-9));
      CHECK(p.geometry.distance == testing::relative(-depth, 1e-9));
      CHECK((p.geometry.n_AB_W - Vec3::UnitZ()).norm() < 1e-15);
      CHECK(p.validity < 0.0);
    }
    check_features_reproduce(slab, X_WS, cube, X_WC);
  }
}

TEST_CASE("manifold: a box half over an edge is clipped at the edge, corners from their features") {
  // The cube's bottom square spans x in [0.4, 0.6]; the slab ends at x = 0.5: two cube corners
  // stand on it and its two edges cross the slab's side plane at x = 0.5.
  const Shape slab = make_box(Vec3(0.5, 0.5, 0.05));
  const Shape cube = make_box(Vec3(0.1, 0.1, 0.1));
  const Pose X_WS = pose_at(Vec3(0, 0, -0.05));
  const Pose X_WC = pose_at(Vec3(0.5, 0.0, 0.1 - 1e-6));
  const auto points = touching(candidates(slab, X_WS, cube, X_WC));
  REQUIRE(points.size() == 4);
  int vertices = 0, crossings = 0;
  for (const ManifoldPoint& p : points) {
    CHECK(p.geometry.distance == testing::relative(-1e-6, 1e-9));
    CHECK(p.validity <= 0.0);
    if (p.feature_b.kind == FeatureKind::vertex) {
      ++vertices;
      CHECK(p.geometry.p_B_W.x() == doctest::Approx(0.4));
    } else {
      ++crossings;
      CHECK(p.feature_a.kind == FeatureKind::face_edge);
      CHECK(p.feature_b.kind == FeatureKind::edge);
      // Where the slab's edge line crosses the cube's (the closest points of the two lines).
      CHECK(std::abs(p.geometry.p_B_W.x() - 0.5) < 1e-15);
      CHECK(std::abs(std::abs(p.geometry.p_B_W.y()) - 0.1) < 1e-12);
    }
  }
  CHECK(vertices == 2);
  CHECK(crossings == 2);
  check_features_reproduce(slab, X_WS, cube, X_WC);
}

TEST_CASE("manifold: a vertex leaving the reference face hands over where its validity is zero") {
  // The cube slides in +x over the slab's edge at x = 0.5: its corner at x = 0.6 - s crosses the
  // edge at s = 0.1 (its validity, how far outside, crosses zero there, less the tolerance).
  const Shape slab = make_box(Vec3(0.5, 0.5, 0.05));
  const Shape cube = make_box(Vec3(0.1, 0.1, 0.1));
  const Pose X_WS = pose_at(Vec3(0, 0, -0.05));
  const Polytope polytope(cube);
  const auto at = [&](double x) { return pose_at(Vec3(x, 0.0, 0.1 - 1e-6)); };
  const ManifoldReference reference{ManifoldKind::face_of_a, 5};
  // Corner 1 of the cube: (+x, -y, -z).
  const Feature corner{FeatureKind::vertex, 1, 0};
  const Feature top{FeatureKind::face, 5, 0};
  const double tolerance = 1e-9 * Polytope(slab).bounding_radius();
  for (const double x : {0.30, 0.39, 0.40 + 0.5 * tolerance, 0.40 + 2.0 * tolerance, 0.45}) {
    CAPTURE(x);
    const ManifoldPoint p =
        evaluate_manifold_point(slab, X_WS, cube, at(x), reference, top, corner);
    const double outside = x + 0.1 - 0.5;  // of the corner beyond the edge, m
    CHECK(std::abs(p.validity - (outside - tolerance)) < 1e-14);  // rounding of 0.5 m positions
    // In the manifold while inside; past the edge the crossing on its edge takes over.
    const auto points = candidates(slab, X_WS, cube, at(x));
    const bool listed = std::any_of(points.begin(), points.end(),
                                    [&](const ManifoldPoint& q) { return q.feature_b == corner; });
    CHECK(listed == (p.validity <= 0.0));
  }
  // Just past the edge, the crossing point sits where the corner left (continuity of the force).
  const double x = 0.40 + 3.0 * tolerance;
  int crossings = 0;
  for (const ManifoldPoint& q : candidates(slab, X_WS, cube, at(x))) {
    if (q.feature_b.kind != FeatureKind::edge) continue;
    if (q.geometry.p_B_W.y() > 0.0) continue;  // the edge through corner 1 (y = -0.1)
    ++crossings;
    const Vec3 corner_W = at(x).transform_point(polytope.vertex_S(1));
    CHECK((q.geometry.p_B_W - corner_W).norm() < 4.0 * tolerance);
    CHECK(q.validity <= 0.0);
  }
  CHECK(crossings == 1);
}

TEST_CASE("manifold: a large box on a small one gives the small one's corners on its face") {
  // A is the small cube below (reference, its top face; A wins the tie), B the wide slab above:
  // the slab's bottom face clipped to the cube's top square leaves the cube's four top corners,
  // dropped onto the slab's face (the reference corners).
  const Shape cube = make_box(Vec3(0.1, 0.1, 0.1));
  const Shape slab = make_box(Vec3(0.5, 0.5, 0.05));
  const Pose X_WC = pose_at(Vec3(0, 0, -0.1));
  const Pose X_WS = pose_at(Vec3(0.02, 0.03, 0.05 - 3e-6), yaw(0.2));
  const auto points = touching(candidates(cube, X_WC, slab, X_WS));
  REQUIRE(points.size() == 4);
  for (const ManifoldPoint& p : points) {
    CHECK(p.feature_a.kind == FeatureKind::vertex);
    CHECK(p.feature_b.kind == FeatureKind::face);
    CHECK(p.geometry.distance == testing::relative(-3e-6, 1e-9));
    CHECK(std::abs(p.geometry.p_A_W.x()) == doctest::Approx(0.1));
    CHECK(std::abs(p.geometry.p_A_W.y()) == doctest::Approx(0.1));
  }
  check_features_reproduce(cube, X_WC, slab, X_WS);
}

TEST_CASE("manifold: boxes of one size stacked exactly give four corners, and so do hulls") {
  const Vec3 h(0.1, 0.1, 0.1);
  for (const bool hulls : {false, true}) {
    CAPTURE(hulls);
    const Shape lower = hulls ? make_box_hull(h) : make_box(h);
    const Shape upper = hulls ? make_box_hull(h) : make_box(h);
    const Pose X_WL = pose_at(Vec3(0.1, 0.2, 0.1));
    const Pose X_WU = pose_at(Vec3(0.1, 0.2, 0.3 - 1e-6));
    const auto points = touching(candidates(lower, X_WL, upper, X_WU));
    REQUIRE(points.size() == 4);
    for (const ManifoldPoint& p : points) {
      CHECK(p.geometry.distance == testing::relative(-1e-6, 1e-9));
      CHECK(p.validity < 0.0);
    }
    check_features_reproduce(lower, X_WL, upper, X_WU);
  }
}

TEST_CASE("manifold: boxes touching edge on edge have one point, their closest points") {
  // The lower box turned 45 degrees about y (its top edge along y), the upper one 45 degrees
  // about x (its bottom edge along x): the edges cross, the normal +z lies 45 degrees from every
  // face normal of both.
  const Shape lower = make_box(Vec3(0.1, 0.1, 0.1));
  const Shape upper = make_box(Vec3(0.1, 0.1, 0.1));
  const Pose X_WL =
      pose_at(Vec3::Zero(), Quat(Eigen::AngleAxisd(std::numbers::pi / 4, Vec3::UnitY())));
  const Quat q(Eigen::AngleAxisd(std::numbers::pi / 4, Vec3::UnitX()));
  for (const double gap : {1e-3, -1e-6}) {
    CAPTURE(gap);
    const Pose X_WU = pose_at(Vec3(0.01, 0.02, 0.2 * std::sqrt(2.0) + gap), q);
    const auto points = candidates(lower, X_WL, upper, X_WU);
    const SignedDistance closest = compute_signed_distance(lower, X_WL, upper, X_WU);
    // Far from every face normal: one point, the narrowphase's.
    REQUIRE(points.size() == 1);
    CHECK(points[0].feature_a.kind == FeatureKind::shape);
    CHECK(points[0].geometry.distance == closest.distance);
    CHECK(std::abs(closest.distance - gap) < 1e-12);  // the narrowphase's 1e-11 of the size
    CHECK(points[0].validity < 0.0);
  }
}

TEST_CASE("manifold: a face of B as the reference gives A-to-B normals and B's face features") {
  // A is a cube tilted by 0.02 rad about x with its lowest edge 1e-6 m into B, a slab below:
  // the normal is the slab's face normal, a face of B; seen from A to B it points down.
  const Shape cube = make_box(Vec3(0.1, 0.1, 0.1));
  const Shape slab = make_box(Vec3(0.5, 0.5, 0.05));
  const double tilt = 0.02;
  const double reach = 0.1 * (std::cos(tilt) + std::sin(tilt));  // centre to lowest edge, z
  const Pose X_WC =
      pose_at(Vec3(0.01, 0.02, reach - 1e-6), Quat(Eigen::AngleAxisd(tilt, Vec3::UnitX())));
  const Pose X_WS = pose_at(Vec3(0, 0, -0.05));
  ContactManifold manifold;
  compute_contact_manifold(cube, X_WC, slab, X_WS, nullptr, ReferenceUse::reassess, manifold);
  CHECK(manifold.reference == ManifoldReference{ManifoldKind::face_of_b, 5});
  const auto points = touching(candidates(cube, X_WC, slab, X_WS));
  REQUIRE(points.size() == 2);  // the two corners of the lowest edge
  for (const ManifoldPoint& p : points) {
    CHECK(p.feature_a.kind == FeatureKind::vertex);
    CHECK(p.feature_b == Feature{FeatureKind::face, 5, 0});
    CHECK((p.geometry.n_AB_W + Vec3::UnitZ()).norm() < 1e-15);
    CHECK(p.geometry.distance == testing::relative(-1e-6, 1e-6));
    // p_B - p_A = distance n: the slab's point is above the cube's by the depth.
    CHECK((p.geometry.p_B_W - p.geometry.p_A_W - p.geometry.distance * p.geometry.n_AB_W).norm() <
          1e-16);
  }
  check_features_reproduce(cube, X_WC, slab, X_WS);
}

// A hexagonal prism (a hull with faces of six corners) of circumradius r and half height h.
Shape make_hexagonal_prism(double r, double h) {
  std::vector<Vec3> corners;
  for (int k = 0; k < 6; ++k) {
    const double angle = std::numbers::pi / 3.0 * k;
    for (const double z : {-h, h})
      corners.emplace_back(r * std::cos(angle), r * std::sin(angle), z);
  }
  return testing::make_convex(corners);
}

TEST_CASE("manifold: the clipping never makes a point whose features call it invalid") {
  // Random near-face contacts of boxes and hexagonal prisms (faces of 4 and 6 corners): turned,
  // tilted by up to 0.01 rad, overhanging, apart or 10 um deep. Every candidate the clipping
  // makes must have validity <= 0 (else a contact would start with z1 above -eps), and its
  // features must reproduce it.
  std::mt19937 random(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const std::array<Shape, 4> lowers{
      make_box(Vec3(0.3, 0.2, 0.05)), make_hexagonal_prism(0.25, 0.05),
      make_box(Vec3(0.1, 0.1, 0.05)), make_hexagonal_prism(0.1, 0.05)};
  const std::array<Shape, 3> uppers{make_box(Vec3(0.1, 0.08, 0.05)),
                                    make_hexagonal_prism(0.12, 0.05),
                                    make_box(Vec3(0.2, 0.2, 0.05))};
  int points = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const Shape& lower = lowers[static_cast<std::size_t>(trial) % lowers.size()];
    const Shape& upper = uppers[static_cast<std::size_t>(trial / 4) % uppers.size()];
    const Quat q = Quat(Eigen::AngleAxisd(0.01 * unit(random),
                                          Vec3(unit(random), unit(random), 0).normalized())) *
                   yaw(std::numbers::pi * unit(random));
    const Pose X_WL = pose_at(Vec3(0, 0, -0.05));
    const Pose X_WU =
        pose_at(Vec3(0.25 * unit(random), 0.25 * unit(random), 0.05 + 1e-5 * unit(random)), q);
    CAPTURE(trial);
    ContactManifold manifold;
    compute_contact_manifold(lower, X_WL, upper, X_WU, nullptr, ReferenceUse::reassess, manifold);
    for (int k = 0; k < manifold.count; ++k) {
      CHECK(manifold.points[static_cast<std::size_t>(k)].validity <= 0.0);
    }
    points += manifold.count;
    check_features_reproduce(lower, X_WL, upper, X_WU);
  }
  CHECK(points > 1000);  // the trials do make clipped polygons

  // The band the widened side planes add: a turned cube hanging off the slab's edge with only its
  // innermost corner on it, that corner swept across the edge in steps of an eighth of the
  // widening. Where the corner lies between the edge's plane and the widened one, the clipping
  // keeps the corner and crosses its two edges with the widened plane; those crossings too must
  // be valid.
  const Shape slab = make_box(Vec3(0.5, 0.5, 0.05));
  const Shape cube = make_box(Vec3(0.1, 0.1, 0.1));
  const double tolerance = 1e-9 * Polytope(slab).bounding_radius();
  int crossings = 0;
  // Turned 0.3 rad, and 0.02 rad: an edge nearly along the slab's edge crosses the widened
  // plane far from the corner, where the two are not merged.
  for (const double angle : {0.3, 0.02}) {
    const double reach = 0.1 * (std::cos(angle) + std::sin(angle));  // centre to corner, x
    for (int step = -16; step <= 16; ++step) {
      const double x = 0.5 + reach + step * tolerance / 8.0;
      const Pose X_WC = pose_at(Vec3(x, 0.0, 0.1 - 1e-6), yaw(angle));
      CAPTURE(angle);
      CAPTURE(step);
      // The slab's top face kept as the reference, as while the cube slid there (afresh, the
      // normal would be the slab's side's).
      ContactManifold manifold;
      const ManifoldReference top{ManifoldKind::face_of_a, 5};
      compute_contact_manifold(slab, pose_at(Vec3(0, 0, -0.05)), cube, X_WC, &top,
                               ReferenceUse::keep, manifold);
      for (int k = 0; k < manifold.count; ++k) {
        const ManifoldPoint& p = manifold.points[static_cast<std::size_t>(k)];
        CHECK(p.validity <= 0.0);
        if (p.feature_b.kind == FeatureKind::edge) ++crossings;
      }
    }
  }
  CHECK(crossings > 0);
}

TEST_CASE("manifold: single points and the shapes that have manifolds") {
  const Shape box = make_box(Vec3(0.1, 0.1, 0.1));
  const Shape ground = make_halfspace();
  Shape rounded = box;
  rounded.smoothing_radius = 0.01;
  CHECK(has_contact_manifold(box, ground));
  CHECK(has_contact_manifold(box, box));
  CHECK(has_contact_manifold(rounded, ground));
  CHECK(has_contact_manifold(make_box_hull(Vec3(0.1, 0.1, 0.1)), box));
  CHECK_FALSE(has_contact_manifold(ground, ground));
  CHECK_FALSE(has_contact_manifold(testing::make_sphere(0.1), ground));
  CHECK(has_contact_manifold(testing::make_cylinder(0.1, 0.2), ground));
  CHECK(has_contact_manifold(ground, testing::make_cone(0.1, 0.0, 0.2)));
  CHECK_FALSE(has_contact_manifold(testing::make_cylinder(0.1, 0.2), box));
  // A rounded box: its core's corners, grown by the radius.
  const Pose X_WB = pose_at(Vec3(0, 0, 0.1 - 1e-6));
  const auto points = touching(candidates(ground, Pose{}, rounded, X_WB));
  REQUIRE(points.size() == 4);
  for (const ManifoldPoint& p : points) {
    CHECK(p.geometry.distance == testing::relative(-1e-6, 1e-9));
    CHECK(std::abs(p.geometry.p_B_W.x()) == doctest::Approx(0.09));
  }
  // The formats the outputs use.
  CHECK(format_feature({FeatureKind::shape, 0, 0}) == "shape");
  CHECK(format_feature({FeatureKind::vertex, 3, 0}) == "v3");
  CHECK(format_feature({FeatureKind::edge, 3, 5}) == "e3-5");
  CHECK(format_feature({FeatureKind::face, 2, 0}) == "f2");
  CHECK(format_feature({FeatureKind::face_edge, 2, 1}) == "f2e1");
}

}  // namespace
}  // namespace hybridsim

namespace hybridsim {
namespace {

// The lowest point of a cylinder or cone over the plane z = 0, independently of the manifold:
// the closed-form signed distance of the single-point rule (collision/signed_distance.cpp).
double lowest_height(const Shape& round, const Pose& X_WS) {
  return compute_signed_distance(make_halfspace(), Pose{}, round, X_WS).distance;
}

TEST_CASE("manifold: a cylinder or cone on a half-space stands on four points of each rim") {
  const Shape ground = make_halfspace();
  const Shape cylinder = testing::make_cylinder(0.1, 0.3);
  // Upright, 1e-6 m deep: four bottom-rim points touch, a quarter turn apart on the rim; the top
  // rim's four are the height above.
  const Pose upright = pose_at(Vec3(0.2, -0.1, 0.15 - 1e-6));
  const auto all = candidates(ground, Pose{}, cylinder, upright);
  REQUIRE(all.size() == 8);
  const auto down = touching(all);
  REQUIRE(down.size() == 4);
  for (const ManifoldPoint& p : down) {
    CHECK(p.geometry.distance == doctest::Approx(-1e-6).epsilon(1e-9));
    CHECK(p.feature_b.kind == FeatureKind::vertex);
    CHECK(p.feature_b.index < 4);
    const Vec3 radial = p.geometry.p_B_W - upright.translation;
    CHECK(std::hypot(radial.x(), radial.y()) == doctest::Approx(0.1).epsilon(1e-14));
  }
  CHECK((down[0].geometry.p_B_W - down[1].geometry.p_B_W).norm() ==
        doctest::Approx(0.1 * std::sqrt(2.0)).epsilon(1e-12));
  check_features_reproduce(ground, Pose{}, cylinder, upright);

  // Tilted by 0.2 rad about a slanted axis: the deepest point is the rim's lowest point, as the
  // single-point closed form gives it; its neighbours a quarter turn on are r sin(tilt) higher
  // and the opposite one 2 r sin(tilt).
  const double tilt = 0.2;
  const Quat turn(Eigen::AngleAxisd(tilt, Vec3(1, 2, 0).normalized()));
  const Pose tilted = pose_at(Vec3(0, 0, 0.16), turn);
  const auto sorted = touching(candidates(ground, Pose{}, cylinder, tilted), kInfinity);
  REQUIRE(sorted.size() == 8);
  const double lowest = lowest_height(cylinder, tilted);
  CHECK(sorted[0].geometry.distance == doctest::Approx(lowest).epsilon(1e-12));
  // The side points: the anchor towards x (1e-9) turns the square by 1e-9 / sin(tilt), which
  // moves them up and down by r sin(tilt) times that, r 1e-9 = 1e-10 m at most.
  CHECK(std::abs(sorted[1].geometry.distance - (lowest + 0.1 * std::sin(tilt))) < 2e-10);
  CHECK(std::abs(sorted[2].geometry.distance - (lowest + 0.1 * std::sin(tilt))) < 2e-10);
  CHECK(sorted[3].geometry.distance ==
        doctest::Approx(lowest + 0.2 * std::sin(tilt)).epsilon(1e-12));
  check_features_reproduce(ground, Pose{}, cylinder, tilted);

  // Tilts of the order of rounding: the square keeps to S's x axis (the anchor, 1e-9) instead of
  // spinning with the rounding's direction. Between a hair one way and a hair the other way it
  // turns by at most 2 hair / 1e-9 (at 1e-9 by 90 degrees: the same square); the deepest point
  // stays within 0.3 r 1e-9 of the rim's lowest point (the closed form).
  for (const double hair : {1e-15, 1e-12, 1e-9, 1e-6}) {
    CAPTURE(hair);
    const Pose plus_pose = pose_at(Vec3(0, 0, 0.15), Quat(Eigen::AngleAxisd(hair, Vec3::UnitX())));
    const auto plus = candidates(ground, Pose{}, cylinder, plus_pose);
    const auto minus =
        candidates(ground, Pose{}, cylinder,
                   pose_at(Vec3(0, 0, 0.15), Quat(Eigen::AngleAxisd(-hair, Vec3::UnitX()))));
    for (const ManifoldPoint& p : plus) {
      double nearest = kInfinity;
      for (const ManifoldPoint& q : minus) {
        nearest = std::min(nearest, (p.geometry.p_B_W - q.geometry.p_B_W).norm());
      }
      if (hair < 1e-9) CHECK(nearest < 0.1 * 2.0 * hair / 1e-9 + 1e-12);
      if (hair == 1e-9) CHECK(nearest < 0.19 * 2.0 * hair);  // the rim's own motion (0.18 m arm)
    }
    const double deepest = touching(plus, kInfinity).front().geometry.distance;
    CHECK(deepest - lowest_height(cylinder, plus_pose) < 0.3 * 0.1 * 1e-9 + 1e-15);
    CHECK(deepest - lowest_height(cylinder, plus_pose) > -1e-15);
  }

  // Lying on its side (axis along x): one point on each rim at the line of contact.
  const Pose lying =
      pose_at(Vec3(0, 0, 0.1 - 1e-6), Quat(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitY())));
  const auto side = touching(candidates(ground, Pose{}, cylinder, lying));
  REQUIRE(side.size() == 2);
  CHECK(std::abs(side[0].geometry.p_B_W.x() - side[1].geometry.p_B_W.x()) ==
        doctest::Approx(0.3).epsilon(1e-12));
  CHECK(side[0].geometry.distance == doctest::Approx(-1e-6).epsilon(1e-9));

  // A cone (r = 0.1, height 0.3) on its side: its apex and its base rim's lowest point, along
  // the generatrix. A frustum has eight points, and a rounded cylinder its core's rims grown:
  // its lowest point as the single-point rule gives it.
  const Shape cone = testing::make_cone(0.1, 0.0, 0.3);
  const double slope = std::atan2(0.1, 0.3);
  // Turned by pi/2 + slope about y, the generatrix through the base's -x point lies level.
  Pose cone_side =
      pose_at(Vec3::Zero(), Quat(Eigen::AngleAxisd(std::numbers::pi / 2 + slope, Vec3::UnitY())));
  cone_side.translation.z() = -lowest_height(cone, cone_side) - 1e-7;
  const auto cone_all = candidates(ground, Pose{}, cone, cone_side);
  CHECK(cone_all.size() == 5);
  const auto cone_down = touching(cone_all, 1e-12);
  REQUIRE(cone_down.size() == 2);
  CHECK(cone_down[0].geometry.distance ==
        doctest::Approx(cone_down[1].geometry.distance).epsilon(1e-9));
  CHECK(candidates(ground, Pose{}, testing::make_cone(0.1, 0.05, 0.3), tilted).size() == 8);
  Shape rounded = cylinder;
  rounded.smoothing_radius = 0.01;
  const auto rounded_sorted = touching(candidates(ground, Pose{}, rounded, tilted), kInfinity);
  REQUIRE(rounded_sorted.size() == 8);
  CHECK(rounded_sorted[0].geometry.distance ==
        doctest::Approx(lowest_height(rounded, tilted)).epsilon(1e-12));
}

}  // namespace
}  // namespace hybridsim
