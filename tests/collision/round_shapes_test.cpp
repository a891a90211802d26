// Cylinders, cones (and frustums) and ellipsoids: support functions against their implicit
// surfaces, bounding boxes, half-space distances against independent closed forms on both sides
// of zero, a continuous contact point as a cylinder tilts through flat, and mass properties
// against textbook formulas and slice integration.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "collision/aabb.hpp"
#include "collision/shape_geometry.hpp"
#include "collision/signed_distance.hpp"
#include "collision/test_shapes.hpp"
#include "models/mass_properties.hpp"

namespace hybridsim {
namespace {

using testing::make_cone;
using testing::make_cylinder;
using testing::make_ellipsoid;
using testing::make_halfspace;
using testing::random_quaternion;

// A point of the shape's surface, from two uniform parameters (u, v) in [0, 1).
Vec3 surface_point(const Shape& s, double u, double v) {
  const double angle = 2.0 * std::numbers::pi * u;
  switch (s.type) {
    case ShapeType::cylinder:
    case ShapeType::cone: {
      // The side wall at height v, or (every other sample) a point of a cap.
      const double top = s.type == ShapeType::cone ? s.top_radius : s.radius;
      const double z = (v - 0.5) * s.length;
      const double r = s.radius + (top - s.radius) * v;
      return Vec3(r * std::cos(angle), r * std::sin(angle), z);
    }
    case ShapeType::ellipsoid: {
      const double polar = std::acos(1.0 - 2.0 * v);
      return s.radii.cwiseProduct(Vec3(std::sin(polar) * std::cos(angle),
                                       std::sin(polar) * std::sin(angle), std::cos(polar)));
    }
    default:
      return Vec3::Zero();
  }
}

TEST_CASE("round shapes: support points lie on the surface and bound every surface point") {
  std::mt19937 random(3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const Shape& s : {make_cylinder(0.1, 0.3), make_cone(0.2, 0.0, 0.25),
                         make_cone(0.15, 0.05, 0.1), make_ellipsoid(Vec3(0.1, 0.2, 0.05))}) {
    CAPTURE(static_cast<int>(s.type));
    for (int trial = 0; trial < 200; ++trial) {
      const Vec3 d = random_quaternion(random) * Vec3::UnitX();
      const Vec3 p = compute_support_point_S(s, d);
      // No surface point lies farther along d (sampled on a 40 x 40 grid), to round-off.
      double farthest = -kInfinity;
      for (int i = 0; i < 40; ++i) {
        for (int j = 0; j <= 40; ++j) {
          farthest = std::max(farthest, d.dot(surface_point(s, i / 40.0, j / 40.0)));
        }
      }
      CHECK(d.dot(p) >= farthest - 1e-15);
      // ...and the support point is on the surface.
      if (s.type == ShapeType::ellipsoid) {
        CHECK(p.cwiseQuotient(s.radii).norm() == doctest::Approx(1.0).epsilon(1e-14));
      } else {
        const double top = s.type == ShapeType::cone ? s.top_radius : s.radius;
        CHECK(std::abs(std::abs(p.z()) - 0.5 * s.length) < 1e-15);
        CHECK(std::hypot(p.x(), p.y()) ==
              doctest::Approx(p.z() > 0.0 ? top : s.radius).epsilon(1e-14));
      }
    }
    // The AABB of a random pose is the support in the 6 world directions: samples inside,
    // touching on every side.
    const Pose X_WS{random_quaternion(random).toRotationMatrix(), Vec3(0.3, -0.2, 1.0)};
    const Aabb box = compute_aabb(s, X_WS);
    Vec3 low = Vec3::Constant(kInfinity), high = Vec3::Constant(-kInfinity);
    for (int i = 0; i < 200; ++i) {
      for (int j = 0; j <= 200; ++j) {
        const Vec3 p = X_WS.transform_point(surface_point(s, i / 200.0, j / 200.0));
        low = low.cwiseMin(p);
        high = high.cwiseMax(p);
      }
    }
    CHECK((low - box.min_W).minCoeff() >= -1e-15);
    CHECK((box.max_W - high).minCoeff() >= -1e-15);
    // A 200 x 200 sampling reaches the true extreme to about (pi / 200)^2 / 2 of the size.
    CHECK((low - box.min_W).maxCoeff() < 2e-4 * compute_bounding_radius(s));
    CHECK((box.max_W - high).maxCoeff() < 2e-4 * compute_bounding_radius(s));
  }
}

TEST_CASE("round shapes: the thickness is the smallest width over all directions") {
  // Width along unit u: u.(s(u) - s(-u)) from the support function. These shapes are thinnest in
  // one of their coordinate planes (an axial section of a solid of revolution; an axis of the
  // ellipsoid), so directions on a fine grid of each coordinate plane (100,000 angles, the axes
  // included) find the minimum; where it sits on a kink between grid angles (a cone's slanted
  // side) the sample lies above it by at most the grid step times the size: 1e-4 relative.
  for (const Shape& s : {make_cylinder(0.1, 0.3), make_cylinder(0.2, 0.05),
                         make_cone(0.2, 0.0, 0.25), make_cone(0.15, 0.05, 0.1),
                         make_cone(0.05, 0.2, 0.6), make_ellipsoid(Vec3(0.1, 0.2, 0.05))}) {
    CAPTURE(static_cast<int>(s.type));
    const int samples = 100000;
    double narrowest = kInfinity;
    for (int plane = 0; plane < 3; ++plane) {
      for (int i = 0; i < samples; ++i) {
        const double angle = std::numbers::pi * i / samples;
        Vec3 u = Vec3::Zero();
        u[plane] = std::cos(angle);
        u[(plane + 1) % 3] = std::sin(angle);
        narrowest = std::min(narrowest,
                             u.dot(compute_support_point_S(s, u) - compute_support_point_S(s, -u)));
      }
    }
    const double thickness = compute_shape_thickness(s);
    CHECK(narrowest >= thickness * (1.0 - 1e-12));
    CHECK(narrowest <= thickness * (1.0 + 1e-4));
  }
}

TEST_CASE("round shapes on a half-space: closed-form distances over random poses") {
  // Closed forms of the lowest point's height, with c the centre's height and a_z the z component
  // of the shape's axis (or, for the ellipsoid, R A^2 R^T):
  //  - cylinder: c - (L/2)|a_z| - r sqrt(1 - a_z^2);
  //  - frustum: min over both rims (z_i = -+L/2, r_i) of c + z_i a_z - r_i sqrt(1 - a_z^2);
  //  - ellipsoid: c - sqrt(e_z^T R A^2 R^T e_z).
  // Centre heights from -0.2 to 1.4 times the bounding radius put about half the poses on each
  // side of zero. 1e-12 of the size is round-off of a few operations on numbers of the size.
  std::mt19937 random(11);
  std::uniform_real_distribution<double> spread(-0.5, 0.5);
  const Shape plane = make_halfspace();
  const Pose X_WG{Mat3::Identity(), Vec3::Zero()};
  int penetrating = 0, separated = 0;
  for (const Shape& s : {make_cylinder(0.1, 0.3), make_cone(0.2, 0.0, 0.25),
                         make_cone(0.15, 0.05, 0.1), make_ellipsoid(Vec3(0.1, 0.2, 0.05))}) {
    CAPTURE(static_cast<int>(s.type));
    const double size = compute_bounding_radius(s);
    for (int trial = 0; trial < 2000; ++trial) {
      const Mat3 R = random_quaternion(random).toRotationMatrix();
      const Vec3 centre(spread(random), spread(random), size * (0.6 + 1.6 * spread(random)));
      const Pose X_WS{R, centre};
      double expected = 0.0;
      const double a_z = R(2, 2), sine = std::sqrt(std::max(0.0, 1.0 - a_z * a_z));
      if (s.type == ShapeType::cylinder) {
        expected = centre.z() - 0.5 * s.length * std::abs(a_z) - s.radius * sine;
      } else if (s.type == ShapeType::cone) {
        expected = std::min(centre.z() - 0.5 * s.length * a_z - s.radius * sine,
                            centre.z() + 0.5 * s.length * a_z - s.top_radius * sine);
      } else {
        const Vec3 row = R.row(2).transpose().cwiseProduct(s.radii);
        expected = centre.z() - row.norm();
      }
      const SignedDistance d = compute_signed_distance(plane, X_WG, s, X_WS);
      CHECK(std::abs(d.distance - expected) < 1e-12 * size);
      CHECK(d.n_AB_W == Vec3::UnitZ());
      // The witnesses: p_A on the plane, p_B = p_A + distance n.
      CHECK(std::abs(d.p_A_W.z()) < 1e-12 * size);
      CHECK((d.p_B_W - d.p_A_W - d.distance * d.n_AB_W).norm() < 1e-12 * size);
      // Swapped order: the same distance, the normal reversed.
      const SignedDistance swapped = compute_signed_distance(s, X_WS, plane, X_WG);
      CHECK(swapped.distance == d.distance);
      CHECK(swapped.n_AB_W == -d.n_AB_W);
      (d.distance < 0.0 ? penetrating : separated)++;
    }
  }
  CHECK(penetrating > 2500);
  CHECK(separated > 2500);
}

TEST_CASE("a cylinder tilting through flat: distance and contact point are continuous") {
  // A cylinder (r = 0.1 m, L = 0.2 m) whose lowest rim point is kept 1 mm deep while it tilts
  // about x from -0.05 to +0.05 rad. Flat, the contact point is the face centre; from a tilt of
  // depth / r = 0.01 rad on only the low side presses and the point sits near the rim. Between,
  // it moves steeply (about r^2 / depth = 10 m/rad) but continuously: halving the tilt step
  // halves the largest step of the point, which a jump would not do.
  const Shape c = make_cylinder(0.1, 0.2), plane = make_halfspace();
  const Pose X_WG{Mat3::Identity(), Vec3::Zero()};
  struct Sweep {
    double largest_jump = 0.0, largest_distance_step = 0.0;
  };
  auto sweep = [&](int steps) {
    Sweep result;
    Vec3 previous_point = Vec3::Zero();
    double previous_distance = 0.0;
    for (int i = 0; i <= steps; ++i) {
      const double tilt = -0.05 + 0.1 * i / steps;
      const Mat3 R = Eigen::AngleAxisd(tilt, Vec3::UnitX()).toRotationMatrix();
      // The lowest rim point sits (L/2)|cos| + r|sin| below the centre.
      const double centre_height = 0.1 * std::abs(std::cos(tilt)) + 0.1 * std::abs(std::sin(tilt));
      const SignedDistance d =
          compute_signed_distance(plane, X_WG, c, Pose{R, Vec3(0, 0, centre_height - 0.001)});
      CHECK(d.distance == doctest::Approx(-0.001).epsilon(1e-12));
      const Vec3 point = d.contact_point_W();
      if (i > 0) {
        result.largest_jump = std::max(result.largest_jump, (point - previous_point).norm());
        result.largest_distance_step =
            std::max(result.largest_distance_step, std::abs(d.distance - previous_distance));
      }
      // Flat: the centre of the bottom face, half the depth down.
      if (2 * i == steps) CHECK((point - Vec3(0, 0, -0.0005)).norm() < 1e-15);
      previous_point = point;
      previous_distance = d.distance;
    }
    return result;
  };
  const Sweep coarse = sweep(2000), fine = sweep(4000);
  // Measured 9.85e-4 and 4.95e-4 m: the ratio of a Lipschitz-continuous motion, 0.5.
  CHECK(fine.largest_jump < 0.6 * coarse.largest_jump);
  CHECK(coarse.largest_jump < 1.5e-3);
  CHECK(coarse.largest_distance_step < 1e-15);
}

TEST_CASE("round shapes: mass properties against textbook formulas and slice integration") {
  const double density = 1000.0;
  // Cylinder: V = pi r^2 L, I_zz = m r^2 / 2, I_xx = m (3 r^2 + L^2) / 12.
  {
    const Shape s = make_cylinder(0.1, 0.3);
    const double V = std::numbers::pi * 0.01 * 0.3, m = density * V;
    CHECK(compute_shape_volume(s) == doctest::Approx(V).epsilon(1e-14));
    const Mat3 I = compute_shape_inertia(s, m);
    CHECK(I(2, 2) == doctest::Approx(m * 0.01 / 2).epsilon(1e-14));
    CHECK(I(0, 0) == doctest::Approx(m * (0.03 + 0.09) / 12).epsilon(1e-14));
  }
  // Ellipsoid: V = 4/3 pi abc, I_xx = m (b^2 + c^2) / 5.
  {
    const Shape s = make_ellipsoid(Vec3(0.1, 0.2, 0.05));
    const double V = 4.0 / 3.0 * std::numbers::pi * 0.1 * 0.2 * 0.05, m = density * V;
    CHECK(compute_shape_volume(s) == doctest::Approx(V).epsilon(1e-14));
    const Mat3 I = compute_shape_inertia(s, m);
    CHECK(I(0, 0) == doctest::Approx(m * (0.04 + 0.0025) / 5).epsilon(1e-14));
    CHECK(I(2, 2) == doctest::Approx(m * (0.01 + 0.04) / 5).epsilon(1e-14));
  }
  // Pointed cone (radius r, height h): V = pi r^2 h / 3, centroid h/4 above the base,
  // I_axis = 3 m r^2 / 10, I_transverse about the centroid = m (3 r^2 / 20 + 3 h^2 / 80).
  {
    const double r = 0.2, h = 0.25;
    const Shape s = make_cone(r, 0.0, h);
    const double V = std::numbers::pi * r * r * h / 3.0, m = density * V;
    CHECK(compute_shape_volume(s) == doctest::Approx(V).epsilon(1e-14));
    CHECK(compute_shape_centroid_S(s).z() == doctest::Approx(-h / 2 + h / 4).epsilon(1e-14));
    const Mat3 I = compute_shape_inertia(s, m);
    CHECK(I(2, 2) == doctest::Approx(0.3 * m * r * r).epsilon(1e-13));
    CHECK(I(0, 0) == doctest::Approx(m * (3 * r * r / 20 + 3 * h * h / 80)).epsilon(1e-13));
  }
  // Frustum: midpoint-rule slices (100,000 thin disks, error ~1e-10 relative).
  {
    const Shape s = make_cone(0.15, 0.05, 0.1);
    const int slices = 100000;
    double V = 0.0, first = 0.0, axial = 0.0, transverse_origin = 0.0;
    for (int i = 0; i < slices; ++i) {
      const double t = (i + 0.5) / slices, z = (t - 0.5) * 0.1, dz = 0.1 / slices;
      const double r = 0.15 + (0.05 - 0.15) * t, dV = std::numbers::pi * r * r * dz;
      V += dV;
      first += z * dV;
      axial += dV * r * r / 2;
      transverse_origin += dV * (r * r / 4 + z * z);
    }
    const double z_c = first / V, m = density * V;
    CHECK(compute_shape_volume(s) == doctest::Approx(V).epsilon(1e-9));
    CHECK(compute_shape_centroid_S(s).z() == doctest::Approx(z_c).epsilon(1e-8));
    const Mat3 I = compute_shape_inertia(s, m);
    CHECK(I(2, 2) == doctest::Approx(density * axial).epsilon(1e-9));
    CHECK(I(0, 0) == doctest::Approx(density * transverse_origin - m * z_c * z_c).epsilon(1e-8));
  }
}

}  // namespace
}  // namespace hybridsim
