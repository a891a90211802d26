// The overlap of two boxes (collision/box_overlap.cpp) against closed forms that share none of its
// code: two boxes with parallel axes overlap in a box (interval intersections per axis), a cube
// corner pushed into a large slab cuts off a tetrahedron (legs along the three edges), and a face
// lying flat in a slab overlaps in a thin box. Then the property the contact point is for: it
// moves continuously through a flat face-on-face pose, where the closest points jump.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "collision/box_overlap.hpp"
#include "collision/signed_distance.hpp"
#include "collision/test_shapes.hpp"

namespace hybridsim {
namespace {

using testing::make_box;

Mat3 random_rotation(std::mt19937& random) {
  return testing::random_quaternion(random).toRotationMatrix();
}

TEST_CASE(
    "box overlap: boxes with parallel axes overlap in the box of the interval intersections") {
  // Reference: per axis of the common frame, the overlap is [max(lo), min(hi)]; volume and centre
  // of that box, rotated into W. Tolerance: the clipped coordinates (up to 1 m) round at about
  // 1e-16 m each, some hundred operations deep, so the volume is good to 1e-14 m times the
  // overlap's surface area, on top of 1e-12 relative; the centroid to 1e-12 m.
  std::mt19937 random(11);
  std::uniform_real_distribution<double> extent(0.05, 0.5), offset(-0.5, 0.5);
  int overlapping = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Vec3 h_a(extent(random), extent(random), extent(random));
    const Vec3 h_b(extent(random), extent(random), extent(random));
    const Vec3 c_a(offset(random), offset(random), offset(random));
    const Vec3 c_b = c_a + Vec3(offset(random), offset(random), offset(random));
    const Mat3 R = random_rotation(random);
    const Vec3 lo = (c_a - h_a).cwiseMax(c_b - h_b), hi = (c_a + h_a).cwiseMin(c_b + h_b);
    const auto overlap =
        compute_box_overlap(make_box(h_a), Pose{R, R * c_a}, make_box(h_b), Pose{R, R * c_b});
    if ((hi - lo).minCoeff() <= 1e-6) {
      CHECK_FALSE(overlap.has_value());
      continue;
    }
    ++overlapping;
    REQUIRE(overlap.has_value());
    const double volume = (hi - lo).prod();
    const Vec3 size = hi - lo;
    const double area = 2.0 * (size.x() * size.y() + size.y() * size.z() + size.z() * size.x());
    CHECK(std::abs(overlap->volume - volume) <= 1e-12 * volume + 1e-14 * area);
    CHECK((overlap->centroid_W - R * (0.5 * (lo + hi))).norm() <= 1e-12);
  }
  CHECK(overlapping > 500);
}

TEST_CASE("box overlap: a cube corner pushed into a slab cuts off the tetrahedron on its edges") {
  // A corner at depth delta along the slab's normal n (unit components u_i > 0 along the inward
  // edges e_i) cuts the edges at delta / u_i: volume delta^3 / (6 u_1 u_2 u_3), centroid the mean
  // of the corner and the three cut points. Coordinates near 0.5 m round at 5e-17 m, relative 5e-13
  // of delta = 1e-4 m per clipped point: volume to 1e-10 relative, centroid to 1e-13 m.
  std::mt19937 random(12);
  const Shape cube = make_box(Vec3::Constant(0.05));
  const Shape slab = make_box(Vec3(2.0, 2.0, 0.5));  // top face at z = 0.5, far wider than the cube
  const Pose X_W_slab{Mat3::Identity(), Vec3::Zero()};
  int checked = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const Mat3 R = random_rotation(random);
    // The lowest corner and its three inward edges.
    int lowest = 0;
    Vec3 corners[8];
    for (int i = 0; i < 8; ++i) {
      corners[i] = R * Vec3((i & 1) ? 0.05 : -0.05, (i & 2) ? 0.05 : -0.05, (i & 4) ? 0.05 : -0.05);
      if (corners[i].z() < corners[lowest].z()) lowest = i;
    }
    Vec3 u;
    Vec3 edges_W[3];
    for (int axis = 0; axis < 3; ++axis) {
      edges_W[axis] = corners[lowest ^ (1 << axis)] - corners[lowest];  // length 0.1
      u[axis] = edges_W[axis].normalized().z();
    }
    if (u.minCoeff() < 0.02) continue;  // an edge nearly flat: more than the corner would enter
    const double delta = 1e-4;          // cuts the edges within 0.005 m of the corner
    const Vec3 p_W_cube(0.1, -0.2, 0.5 - delta - corners[lowest].z());
    const auto overlap = compute_box_overlap(slab, X_W_slab, cube, Pose{R, p_W_cube});
    REQUIRE(overlap.has_value());
    const Vec3 corner_W = p_W_cube + corners[lowest];
    Vec3 centroid_W = corner_W;
    for (int axis = 0; axis < 3; ++axis) {
      centroid_W += 0.25 * (delta / u[axis]) * edges_W[axis].normalized();
    }
    const double volume = std::pow(delta, 3) / (6.0 * u.prod());
    CHECK(std::abs(overlap->volume - volume) <= 1e-10 * volume);
    CHECK((overlap->centroid_W - centroid_W).norm() <= 1e-13);
    ++checked;
  }
  CHECK(checked > 300);
}

TEST_CASE("box overlap: the contact point of a cube on a slab moves continuously through flat") {
  // The cube rests in the slab with its lowest edge at depth 1e-6 m and is tilted about x through
  // the flat pose. Reference (elastic layer): with depth delta0 + theta y over the face of half
  // width h, the centroid sits at y = theta h^2 / (3 delta0) while the whole face is in contact, so
  // a tilt step dtheta moves it by at most h^2 dtheta / (3 delta0) plus the rigid motion. The
  // closest points jump from one edge to the other at theta = 0 (a move of 2h = 0.1 m).
  const Shape cube = make_box(Vec3::Constant(0.05));
  const Shape slab = make_box(Vec3(0.2, 0.2, 0.05));
  const Pose X_W_slab{Mat3::Identity(), Vec3(0, 0, 0.05)};
  const double delta0 = 1e-6, h = 0.05, step = 2e-9;
  const double bound = h * h * step / (3.0 * delta0) + 1e-12;
  Vec3 previous = Vec3::Constant(kNaN);
  double largest_move = 0.0;
  for (double theta = -2e-6; theta <= 2e-6; theta += step) {
    const Mat3 R = Eigen::AngleAxisd(theta, Vec3::UnitX()).toRotationMatrix();
    // Centre height so that the face centre is at depth delta0: the lowest edge is deeper.
    const Pose X_W_cube{R, Vec3(0.02, -0.01, 0.1 - delta0 + h * std::cos(theta))};
    const SignedDistance contact = compute_signed_distance(slab, X_W_slab, cube, X_W_cube);
    REQUIRE(contact.distance < 0.0);
    const Vec3 point_W = contact.contact_point_W();
    if (previous.allFinite()) largest_move = std::max(largest_move, (point_W - previous).norm());
    previous = point_W;
    // Flat: the middle of the face, half the depth down.
    if (std::abs(theta) < 0.5 * step) {
      CHECK((point_W - Vec3(0.02, -0.01, 0.1 - 0.5 * delta0)).norm() <= 1e-12);
    }
  }
  CHECK(largest_move <= bound);
  CHECK(largest_move > 0.1 * bound);  // it does move with the tilt (the elastic-layer shift)
}

TEST_CASE("box overlap: symmetric in the two boxes, nothing when apart, the whole box when equal") {
  std::mt19937 random(13);
  const Shape a = make_box(Vec3(0.1, 0.2, 0.3)), b = make_box(Vec3(0.25, 0.15, 0.05));
  for (int trial = 0; trial < 200; ++trial) {
    const Pose X_WA{random_rotation(random), Vec3::Zero()};
    const Pose X_WB{random_rotation(random), Vec3(0.1, 0.05, -0.1)};
    const auto ab = compute_box_overlap(a, X_WA, b, X_WB),
               ba = compute_box_overlap(b, X_WB, a, X_WA);
    REQUIRE(ab.has_value());
    REQUIRE(ba.has_value());
    CHECK(std::abs(ab->volume - ba->volume) <= 1e-12 * ab->volume);
    CHECK((ab->centroid_W - ba->centroid_W).norm() <= 1e-12);
  }
  CHECK_FALSE(compute_box_overlap(a, Pose{}, b, Pose{Mat3::Identity(), Vec3(0.36, 0, 0)}));
  // Touching faces share no volume.
  CHECK_FALSE(compute_box_overlap(a, Pose{}, b, Pose{Mat3::Identity(), Vec3(0.35, 0, 0)}));
  // One box at the pose of an equal box: every face coincides, counted once.
  const Pose X_W{random_rotation(random), Vec3(1, 2, 3)};
  const auto same = compute_box_overlap(a, X_W, a, X_W);
  REQUIRE(same.has_value());
  CHECK(std::abs(same->volume - 8.0 * 0.1 * 0.2 * 0.3) <= 1e-12 * same->volume);
  CHECK((same->centroid_W - Vec3(1, 2, 3)).norm() <= 1e-12);
}

}  // namespace
}  // namespace hybridsim
