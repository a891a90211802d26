// Shapes with a smoothing radius s (rounded edges) against references that share none of the
// narrowphase's code. A shape rounded by s is the set of points within s of its core (the shape
// moved in by s), so its signed distance from a point is the core's minus s, inside and out; a
// sphere of radius r against it is that at the sphere's centre minus r. Faces stay where they
// were; a cone's tip becomes the ball of radius s inscribed in it.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "collision/shape_geometry.hpp"
#include "collision/signed_distance.hpp"
#include "collision/test_shapes.hpp"

namespace hybridsim {
namespace {

using testing::make_box;
using testing::make_cone;
using testing::make_cylinder;
using testing::make_sphere;

// Signed distance from p (shape frame) to a sharp box of half extents h.
double point_box_signed_distance(const Vec3& h, const Vec3& p) {
  const Vec3 q = p.cwiseAbs() - h;
  return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
}

// Signed distance from p (shape frame) to a sharp cylinder of radius r and length L about z:
// the 2-D box (r, L/2) in the meridian half-plane.
double point_cylinder_signed_distance(double r, double length, const Vec3& p) {
  const double q_rho = std::hypot(p.x(), p.y()) - r, q_z = std::abs(p.z()) - 0.5 * length;
  return std::hypot(std::max(q_rho, 0.0), std::max(q_z, 0.0)) + std::min(std::max(q_rho, q_z), 0.0);
}

TEST_CASE(
    "smoothing radius: a sphere against a rounded box or cylinder is the core's distance "
    "less the radii") {
  // 2000 random poses each, about half penetrating. Tolerance 1e-12 of the size: the closed
  // forms (sphere-box) and the general path (sphere-cylinder, 3e-13 of the size in
  // convex_distance_test) both round far below it.
  std::mt19937 random(21);
  std::uniform_real_distribution<double> coordinate(-0.25, 0.25);
  const double s = 0.01;
  Shape box = make_box(Vec3(0.1, 0.15, 0.2));
  box.smoothing_radius = s;
  Shape cylinder = make_cylinder(0.1, 0.3);
  cylinder.smoothing_radius = s;
  const Shape ball = make_sphere(0.05);
  int penetrating = 0, near_cylinder = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Pose X_W_box{testing::random_quaternion(random).toRotationMatrix(), Vec3(0.1, 0.2, 0.3)};
    const Vec3 c_W =
        X_W_box.translation + Vec3(coordinate(random), coordinate(random), coordinate(random));
    const Pose X_W_ball{Mat3::Identity(), c_W};
    const Vec3 c_S = X_W_box.rotation.transpose() * (c_W - X_W_box.translation);

    const double expected_box =
        point_box_signed_distance(box.half_extents - Vec3::Constant(s), c_S) - s - ball.radius;
    const SignedDistance d_box = compute_signed_distance(box, X_W_box, ball, X_W_ball);
    CHECK(std::abs(d_box.distance - expected_box) <= 1e-12 * 0.1);
    // The witnesses are on the rounded surfaces: B's is r from the centre along -n.
    CHECK((d_box.p_B_W - (c_W - ball.radius * d_box.n_AB_W)).norm() <= 1e-12);

    const double expected_cylinder =
        point_cylinder_signed_distance(0.1 - s, 0.3 - 2.0 * s, c_S) - s - ball.radius;
    const SignedDistance d_cylinder = compute_signed_distance(cylinder, X_W_box, ball, X_W_ball);
    // The general path: within the 1e-9 of the smaller size (the ball, 0.05 m) from 1%
    // of it deep to 1% apart (convex_distance_test finds 3e-13 there). Farther apart GJK stops
    // when its bounds stop improving on curved-against-flat pairs: 1e-9 m here (worst seen
    // 4.5e-10 m at 0.3 m); only the sign matters to z2 that far out.
    const double error = std::abs(d_cylinder.distance - expected_cylinder);
    if (std::abs(expected_cylinder) <= 5e-4) {
      CHECK(error <= 1e-9 * 0.05);
      ++near_cylinder;
    } else if (expected_cylinder > 0.0) {
      CHECK(error <= 1e-9);
    }
    if (expected_box < 0.0) ++penetrating;

    // And a ball placed along a random direction from the cylinder's centre, within 1% of its
    // size of touching (bisection on the reference along the ray, monotone for convex shapes).
    const Vec3 u_S = testing::random_quaternion(random).toRotationMatrix().col(0);
    const double target = 5e-4 * std::uniform_real_distribution<double>(-1.0, 1.0)(random);
    const auto reference = [&](double t) {
      return point_cylinder_signed_distance(0.1 - s, 0.3 - 2.0 * s, t * u_S) - s - ball.radius;
    };
    double low = 0.0, high = 1.0;
    for (int k = 0; k < 60; ++k)
      (reference(0.5 * (low + high)) < target ? low : high) = 0.5 * (low + high);
    const double t = 0.5 * (low + high);
    const Pose X_W_near{Mat3::Identity(), X_W_box.transform_point(t * u_S)};
    const SignedDistance d_near = compute_signed_distance(cylinder, X_W_box, ball, X_W_near);
    CHECK(std::abs(d_near.distance - reference(t)) <= 1e-9 * 0.05);
    ++near_cylinder;
  }
  CHECK(penetrating > 400);
  CHECK(near_cylinder >= 2000);
}

TEST_CASE("smoothing radius: faces stay, edges round, a cone's tip is the inscribed ball") {
  // Support values: across a face the rounded shape reaches as far as the sharp one; across an
  // edge or corner it falls short by s (sqrt(2) - 1) and s (sqrt(3) - 1) of the sharp reach
  // measured along the diagonal. A cone of base radius r0 and height L (half angle
  // alpha = atan(r0 / L)) ends in the ball of radius s touching its side, centred s / sin(alpha)
  // below the apex, so it reaches L/2 - s / sin(alpha) + s along z. Tolerance 1e-15 m: one
  // rounding of sums of size 0.1.
  const double s = 0.01;
  Shape box = make_box(Vec3(0.1, 0.15, 0.2));
  box.smoothing_radius = s;
  CHECK(compute_support_point_S(box, Vec3::UnitX()).x() == doctest::Approx(0.1).epsilon(1e-15));
  const Vec3 diagonal = Vec3(1, 1, 1).normalized();
  const double sharp_reach = diagonal.dot(Vec3(0.1, 0.15, 0.2));
  CHECK(std::abs(diagonal.dot(compute_support_point_S(box, diagonal)) -
                 (sharp_reach - s * (std::sqrt(3.0) - 1.0))) <= 1e-15);

  for (const double top_radius : {0.0, 0.04}) {
    CAPTURE(top_radius);
    const double r0 = 0.1, length = 0.3;
    Shape cone = make_cone(r0, top_radius, length);
    cone.smoothing_radius = s;
    const Shape sharp = make_cone(r0, top_radius, length);
    // The base and the slanted side are faces: same reach as the sharp cone.
    CHECK(compute_support_point_S(cone, -Vec3::UnitZ()).z() ==
          doctest::Approx(-0.5 * length).epsilon(1e-15));
    const Vec3 side_normal = Vec3(length, 0.0, r0 - top_radius).normalized();
    CHECK(std::abs(side_normal.dot(compute_support_point_S(cone, side_normal)) -
                   side_normal.dot(compute_support_point_S(sharp, side_normal))) <= 1e-15);
    const double top = compute_support_point_S(cone, Vec3::UnitZ()).z();
    if (top_radius == 0.0) {
      const double alpha = std::atan(r0 / length);
      CHECK(std::abs(top - (0.5 * length - s / std::sin(alpha) + s)) <= 1e-15);
    } else {
      CHECK(std::abs(top - 0.5 * length) <= 1e-15);  // the top face stays
    }
  }
}

TEST_CASE("smoothing radius: rounded shapes on a half-space and on each other") {
  // On a half-space a rounded box tilted about x rests on its edge arc: the lowest point is the
  // core's lowest edge less s. Two rounded boxes face to face: the sharp faces' gap. Tolerance
  // 1e-12 of the size.
  const double s = 0.005;
  Shape box = make_box(Vec3(0.05, 0.05, 0.05));
  box.smoothing_radius = s;
  const Shape ground = [] {
    Shape g;
    g.type = ShapeType::halfspace;
    return g;
  }();
  for (const double theta : {0.0, 0.1, 0.5}) {
    const Mat3 R = Eigen::AngleAxisd(theta, Vec3::UnitX()).toRotationMatrix();
    const double core_half = 0.05 - s;
    const double lowest_core = 0.2 - core_half * (std::cos(theta) + std::sin(theta));
    const SignedDistance d =
        compute_signed_distance(ground, Pose{}, box, Pose{R, Vec3(0.0, 0.0, 0.2)});
    CHECK(std::abs(d.distance - (lowest_core - s)) <= 1e-12 * 0.05);
    CHECK((d.n_AB_W - Vec3::UnitZ()).norm() <= 1e-12);
  }
  // Face to face, 1 mm apart and 1 mm into each other.
  for (const double gap : {1e-3, -1e-3}) {
    const SignedDistance d = compute_signed_distance(
        box, Pose{}, box, Pose{Mat3::Identity(), Vec3(0.03, 0.02, 0.1 + gap)});
    CHECK(std::abs(d.distance - gap) <= 1e-12 * 0.05);
    CHECK(std::abs(std::abs(d.n_AB_W.z()) - 1.0) <= 1e-9);
    if (gap < 0.0) {
      // The contact point: the centroid of the sharp boxes' common slab, (0.03 - 0.05 + 0.05) / 2
      // across x, (0.02) / 2 across y, mid-depth.
      CHECK((d.contact_point_W() - Vec3(0.015, 0.01, 0.05 + 0.5 * gap)).norm() <= 1e-12);
    }
  }
}

}  // namespace
}  // namespace hybridsim
