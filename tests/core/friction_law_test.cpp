// Friction laws (design.md §5) against their definitions: Stribeck's piecewise coefficient and its
// C1 joins, tangent directions from fdir1 with the fallback, pyramid and cone, slip compliance.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>

#include "core/friction_law.hpp"

namespace hybridsim {
namespace {

double smoothstep(double x) {
  return x * x * x * (10 - 15 * x + 6 * x * x);
}

TEST_CASE("stribeck: the coefficient follows the piecewise formula and is C1") {
  const double mu_s = 0.6, mu_d = 0.4, v_s = 1e-3;
  for (double s : {0.0, 0.1, 0.5, 0.99, 1.0, 1.5, 2.0, 2.9, 3.0, 5.0}) {
    const double expected = s < 1   ? mu_s * smoothstep(s)
                            : s < 3 ? mu_s - (mu_s - mu_d) * smoothstep((s - 1) / 2)
                                    : mu_d;
    CHECK(stribeck_coefficient(mu_s, mu_d, s * v_s, v_s) == testing::relative(expected, 1e-12));
  }
  // Continuous with continuous slope at the joins s = 1 and s = 3 (S'(0) = S'(1) = 0): one-sided
  // difference quotients agree to O(h).
  for (double s : {1.0, 3.0}) {
    const double h = 1e-7, v = s * v_s;
    const double left = (stribeck_coefficient(mu_s, mu_d, v, v_s) -
                         stribeck_coefficient(mu_s, mu_d, v - h * v_s, v_s)) /
                        (h * v_s);
    const double right = (stribeck_coefficient(mu_s, mu_d, v + h * v_s, v_s) -
                          stribeck_coefficient(mu_s, mu_d, v, v_s)) /
                         (h * v_s);
    CHECK(std::abs(left - right) < 1e-3);
  }
}

TEST_CASE("friction directions: fdir1 projected, fallback when parallel to the normal, no NaN") {
  const Vec3 n = Vec3(0, 0.6, 0.8);
  Vec3 t1, t2;
  compute_friction_directions(n, Vec3(1, 1, 0), t1, t2);
  CHECK(std::abs(t1.dot(n)) < 1e-15);
  CHECK(t1.norm() == testing::relative(1.0, 1e-12));
  CHECK((t2 - n.cross(t1)).norm() < 1e-15);
  compute_friction_directions(n, 3.0 * n, t1, t2);  // parallel: world x projected
  CHECK(t1.allFinite());
  CHECK((t1 - Vec3::UnitX()).norm() < 1e-15);
  compute_friction_directions(Vec3::UnitX(), Vec3::Zero(), t1, t2);  // world x parallel too
  CHECK((t1 - Vec3::UnitY()).norm() < 1e-15);
}

TEST_CASE("friction force: cone against the slip, pyramid per direction") {
  FrictionParameters f;
  f.model = FrictionModel::regularized_coulomb;
  f.mu_kinetic = 0.5;
  f.v_small = 1e-3;
  const Vec3 n = Vec3::UnitZ(), slip(0.3, 0.1, 0.0);
  const Vec3 cone = compute_friction_force(f, 10.0, slip, n, Vec3::Zero());
  CHECK(cone.norm() == testing::relative(5.0, 1e-12));
  CHECK(cone.normalized().dot(-slip.normalized()) == testing::relative(1.0, 1e-12));
  f.cone = false;
  f.mu2 = 0.2;
  const Vec3 pyramid = compute_friction_force(f, 10.0, slip, n, Vec3::UnitX());
  CHECK(pyramid.x() == testing::relative(-5.0, 1e-12));  // mu f_n along t1 = x
  CHECK(pyramid.y() == testing::relative(-2.0, 1e-12));  // mu2 f_n along t2 = y
}

TEST_CASE("slip compliance: linear in the slip, saturated at mu f_n") {
  FrictionParameters f;
  f.model = FrictionModel::slip_compliance;
  f.mu_kinetic = 0.5;
  f.slip_compliance = Eigen::Vector2d(0.01, 0.02);
  const Vec3 n = Vec3::UnitZ();
  // Unsaturated: f_i = -v_i / c_i along t1 = x, t2 = y.
  Vec3 force = compute_friction_force(f, 100.0, Vec3(0.1, 0.2, 0), n, Vec3::UnitX());
  CHECK(force.x() == testing::relative(-10.0, 1e-12));
  CHECK(force.y() == testing::relative(-10.0, 1e-12));
  // Saturated cone: magnitude mu f_n = 5.
  force = compute_friction_force(f, 10.0, Vec3(0.1, 0.2, 0), n, Vec3::UnitX());
  CHECK(force.norm() == testing::relative(5.0, 1e-12));
  // Saturated pyramid: each direction at mu f_n.
  f.cone = false;
  force = compute_friction_force(f, 10.0, Vec3(0.1, 0.2, 0), n, Vec3::UnitX());
  CHECK(force.x() == testing::relative(-5.0, 1e-12));
  CHECK(force.y() == testing::relative(-5.0, 1e-12));
}

}  // namespace
}  // namespace hybridsim
