// Exact signed distances against independent closed forms, the witness-point relation
// p_B - p_A = d n, swap symmetry, and continuity through zero (the root finder's need).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>

#include "collision/signed_distance.hpp"

namespace hybridsim {
namespace {

Shape sphere(double r) {
  Shape s;
  s.type = ShapeType::sphere;
  s.radius = r;
  return s;
}
Shape box(const Vec3& size) {
  Shape s;
  s.type = ShapeType::box;
  s.half_extents = 0.5 * size;
  return s;
}
Shape halfspace() {
  Shape s;
  s.type = ShapeType::halfspace;
  return s;
}
Pose at(const Vec3& p, const Quat& q = Quat::Identity()) {
  return {q.toRotationMatrix(), p};
}

void check_witnesses(const SignedDistance& d, double tolerance) {
  CHECK(d.n_AB_W.norm() == testing::relative(1.0, 1e-14));
  CHECK((d.p_B_W - d.p_A_W - d.distance * d.n_AB_W).norm() < tolerance);
}

TEST_CASE("signed distance sphere-sphere: |c2 - c1| - r1 - r2 along the line of centres") {
  const Vec3 c2(0.3, 0.4, 0.0);  // |c2| = 0.5
  const SignedDistance d =
      compute_signed_distance(sphere(0.1), at(Vec3::Zero()), sphere(0.2), at(c2));
  CHECK(d.distance == testing::relative(0.2, 1e-15));
  CHECK((d.n_AB_W - Vec3(0.6, 0.8, 0.0)).norm() < 1e-15);
  check_witnesses(d, 1e-15);
  // Coincident centres: finite, normal defined.
  const SignedDistance same =
      compute_signed_distance(sphere(0.1), at(Vec3::Zero()), sphere(0.1), at(Vec3::Zero()));
  CHECK(same.distance == testing::relative(-0.2, 1e-12));
  CHECK(same.n_AB_W.allFinite());
}

TEST_CASE("signed distance sphere-half-space: height of the centre minus the radius") {
  const Quat tilt(Eigen::AngleAxisd(0.3, Vec3::UnitX()));
  Shape plane = halfspace();
  plane.offset = 0.05;  // surface at n . x = 0.05 in the plane's frame
  const Pose X_WP = at(Vec3(0, 0, 0.1), tilt);
  const Vec3 n_W = tilt * Vec3::UnitZ();
  const Vec3 centre = Vec3(0, 0, 0.1) + 0.4 * n_W + Vec3(0.2, 0.0, 0.0);  // x is in the plane
  const SignedDistance d = compute_signed_distance(plane, X_WP, sphere(0.1), at(centre));
  CHECK(d.distance == testing::relative(0.4 - 0.05 - 0.1, 1e-14));
  check_witnesses(d, 1e-15);
  // Swapping the arguments flips the normal and the witnesses.
  const SignedDistance swapped = compute_signed_distance(sphere(0.1), at(centre), plane, X_WP);
  CHECK(swapped.distance == d.distance);
  CHECK((swapped.n_AB_W + d.n_AB_W).norm() < 1e-15);
}

TEST_CASE("signed distance box-half-space: the deepest vertex, contact point moves continuously") {
  const Shape b = box(Vec3(0.4, 0.2, 0.1));
  // Rotated 30 degrees about x: the lowest vertices are an edge at z = -(0.1 cos 30 + 0.05 sin
  // 30)/2.
  const double angle = std::numbers::pi / 6.0;
  const Quat q(Eigen::AngleAxisd(angle, Vec3::UnitX()));
  const double half_height = 0.5 * (0.2 * std::sin(angle) + 0.1 * std::cos(angle));
  const SignedDistance d =
      compute_signed_distance(halfspace(), at(Vec3::Zero()), b, at(Vec3(0, 0, 0.3), q));
  CHECK(d.distance == testing::relative(0.3 - half_height, 1e-14));
  // Before contact the witness is the middle of the lowest edge: x = 0.
  CHECK(std::abs(d.p_B_W.x()) < 1e-14);
  // Flat and penetrating by 1e-6: the contact point is the bottom face centre.
  const SignedDistance flat =
      compute_signed_distance(halfspace(), at(Vec3::Zero()), b, at(Vec3(0.1, 0.2, 0.05 - 1e-6)));
  CHECK(flat.distance == testing::relative(-1e-6, 1e-9));
  CHECK((flat.contact_point_W().head<2>() - Vec3(0.1, 0.2, 0).head<2>()).norm() < 1e-12);
}

TEST_CASE("signed distance sphere-box: outside, edge region and inside") {
  const Shape b = box(Vec3(0.4, 0.2, 0.1));
  // Face region: above the top face.
  SignedDistance d =
      compute_signed_distance(b, at(Vec3::Zero()), sphere(0.1), at(Vec3(0.1, 0, 0.2)));
  CHECK(d.distance == testing::relative(0.2 - 0.05 - 0.1, 1e-14));
  check_witnesses(d, 1e-15);
  // Edge region: beyond the +x, +z edge by (0.03, 0.04): distance 0.05 - r.
  d = compute_signed_distance(b, at(Vec3::Zero()), sphere(0.01), at(Vec3(0.23, 0.0, 0.09)));
  CHECK(d.distance == testing::relative(0.05 - 0.01, 1e-13));
  CHECK((d.n_AB_W - Vec3(0.6, 0.0, 0.8)).norm() < 1e-13);
  check_witnesses(d, 1e-15);
  // Centre inside, nearest the top face (depth 0.01): distance -(0.01 + r).
  d = compute_signed_distance(b, at(Vec3::Zero()), sphere(0.1), at(Vec3(0, 0, 0.04)));
  CHECK(d.distance == testing::relative(-0.11, 1e-14));
  CHECK((d.n_AB_W - Vec3::UnitZ()).norm() < 1e-15);
  check_witnesses(d, 1e-15);
}

TEST_CASE("signed distance is continuous through zero for every exact pair") {
  // Move B along the normal through contact in steps of 1e-13 m: the distance must change by
  // the step (to rounding), on both sides of zero, with no jump.
  const Quat q(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()));
  struct Case {
    Shape a, b;
    Pose X_WA;
    Vec3 contact_position, direction;
  };
  const std::vector<Case> cases = {
      {sphere(0.1), sphere(0.2), at(Vec3::Zero()), Vec3(0.3, 0, 0), Vec3::UnitX()},
      {halfspace(), sphere(0.1), at(Vec3::Zero()), Vec3(0, 0, 0.1), Vec3::UnitZ()},
      {box(Vec3(0.4, 0.2, 0.1)), sphere(0.1), at(Vec3::Zero(), q), q * Vec3(0, 0, 0.15),
       q * Vec3::UnitZ()},
  };
  for (const Case& c : cases) {
    double previous = kNaN;
    for (int k = -20; k <= 20; ++k) {
      const Vec3 p = c.contact_position + k * 1e-13 * c.direction;
      const double d = compute_signed_distance(c.a, c.X_WA, c.b, at(p)).distance;
      CHECK(std::abs(d - k * 1e-13) < 1e-15);
      if (k > -20) CHECK(std::abs(d - previous - 1e-13) < 1e-15);
      previous = d;
    }
  }
  // Box on a half-space, tilted: the distance follows the lowest vertex through zero.
  const Shape b = box(Vec3(0.4, 0.2, 0.1));
  const Vec3 lowest_S = Vec3(-0.2, -0.1, -0.05);
  const Quat tilt(Eigen::AngleAxisd(0.1, Vec3(1, -1, 0).normalized()));
  const double rest_height = -(tilt * lowest_S).z();
  for (int k = -20; k <= 20; ++k) {
    const double d = compute_signed_distance(halfspace(), at(Vec3::Zero()), b,
                                             at(Vec3(0, 0, rest_height + k * 1e-13), tilt))
                         .distance;
    CHECK(std::abs(d - k * 1e-13) < 1e-15);
  }
}

}  // namespace
}  // namespace hybridsim
