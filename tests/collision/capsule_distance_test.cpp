// Capsule pairs against independent references: the distance between two capsules is that of
// their axis segments minus the radii, found here by (nested) ternary search over the segment
// parameters (the distance is convex in them), not by the closed-form closest points the library
// uses. Mass properties against numerical integration over slices. Continuity through zero.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "approx.hpp"
#include "collision/aabb.hpp"
#include "collision/signed_distance.hpp"
#include "collision/test_shapes.hpp"
#include "core/errors.hpp"
#include "models/mass_properties.hpp"
#include "models/scene_loader.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

using testing::make_capsule;
using testing::make_halfspace;
using testing::make_sphere;

Vec3 axis_point(const Shape& c, const Pose& X, double u) {
  return X.transform_point(Vec3(0, 0, (u - 0.5) * c.length));
}

// Minimum of a convex function on [0, 1] by ternary search (200 rounds: the bracket shrinks by
// (2/3)^200, far below rounding).
template <typename F>
double minimize(F f) {
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 200; ++i) {
    const double m1 = lo + (hi - lo) / 3.0, m2 = hi - (hi - lo) / 3.0;
    if (f(m1) <= f(m2)) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  return f(0.5 * (lo + hi));
}

struct RandomPoses {
  std::mt19937_64 engine{20261122};
  std::uniform_real_distribution<double> unit{-1.0, 1.0};
  Pose next(double spread) {
    Quat q(unit(engine), unit(engine), unit(engine), unit(engine));
    q.normalize();
    return {q.toRotationMatrix(), spread * Vec3(unit(engine), unit(engine), unit(engine))};
  }
};

void check_witnesses(const SignedDistance& d, double size) {
  CHECK(d.n_AB_W.norm() == testing::relative(1.0, 1e-14));
  CHECK((d.p_B_W - d.p_A_W - d.distance * d.n_AB_W).norm() < 1e-12 * size);
}

TEST_CASE("capsule-sphere and capsule-capsule match a search over the axes, on both sides of 0") {
  // Sizes ~0.1-0.4 m, poses within 0.5 m: about half the pairs penetrate. Tolerance 1e-12 of the
  // shape size: the search is exact to rounding, the closed forms to a few ulps.
  RandomPoses poses;
  const Shape a = make_capsule(0.1, 0.4), b = make_capsule(0.15, 0.25), s = make_sphere(0.12);
  int penetrating = 0, apart = 0;
  for (int k = 0; k < 2000; ++k) {
    const Pose X_A = poses.next(0.2), X_B = poses.next(0.5);
    const SignedDistance cs = compute_signed_distance(a, X_A, s, X_B);
    const double cs_reference =
        minimize([&](double u) { return (axis_point(a, X_A, u) - X_B.translation).norm(); }) -
        a.radius - s.radius;
    CHECK(std::abs(cs.distance - cs_reference) < 1e-12 * 0.4);
    check_witnesses(cs, 0.4);
    const SignedDistance cc = compute_signed_distance(a, X_A, b, X_B);
    const double cc_reference =
        minimize([&](double u) {
          const Vec3 p = axis_point(a, X_A, u);
          return minimize([&](double v) { return (axis_point(b, X_B, v) - p).norm(); });
        }) -
        a.radius - b.radius;
    CHECK(std::abs(cc.distance - cc_reference) < 1e-12 * 0.4);
    check_witnesses(cc, 0.4);
    // Swapping A and B flips the normal and keeps the distance.
    const SignedDistance swapped = compute_signed_distance(b, X_B, a, X_A);
    CHECK(std::abs(swapped.distance - cc.distance) < 1e-15);
    (cc.distance < 0.0 ? penetrating : apart) += 1;
  }
  CHECK(penetrating > 200);
  CHECK(apart > 200);
}

TEST_CASE("capsule-half-space: the lower cap, and the witness in the middle when lying flat") {
  RandomPoses poses;
  const Shape c = make_capsule(0.05, 0.3), h = make_halfspace();
  const Pose X_H = {Mat3::Identity(), Vec3::Zero()};
  for (int k = 0; k < 1000; ++k) {
    const Pose X_C = poses.next(0.3);
    const SignedDistance d = compute_signed_distance(h, X_H, c, X_C);
    // Reference: the lowest point of the capsule is its lowest axis point minus r (z up).
    const double reference =
        minimize([&](double u) { return axis_point(c, X_C, u).z(); }) - c.radius;
    CHECK(std::abs(d.distance - reference) < 1e-12 * 0.3);
    CHECK(d.n_AB_W == Vec3::UnitZ());
    check_witnesses(d, 0.3);
  }
  // Lying flat, 1 mm deep: contact point under the centre.
  const Pose flat{Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitX()).toRotationMatrix(),
                  Vec3(0.2, -0.1, 0.049)};
  const SignedDistance d = compute_signed_distance(c, flat, h, X_H);
  CHECK(d.distance == doctest::Approx(-0.001).epsilon(1e-12));
  CHECK((d.contact_point_W().head<2>() - Vec3(0.2, -0.1, 0).head<2>()).norm() < 1e-12);
}

TEST_CASE("capsule distances are continuous through zero (Lipschitz 1 in translation)") {
  // Sweeping B along a line by steps dx, the distance changes by at most dx: no jump anywhere,
  // in particular not where the pairs start to penetrate or where axes become parallel.
  const Shape a = make_capsule(0.1, 0.4), b = make_capsule(0.1, 0.4), s = make_sphere(0.1),
              h = make_halfspace();
  const Pose X_A{Eigen::AngleAxisd(0.3, Vec3::UnitY()).toRotationMatrix(), Vec3(0, 0, 0.2)};
  for (const Shape* other : {&b, &s}) {
    double previous = kNaN;
    int sign_changes = 0;
    const double dx = 1e-4;
    for (int i = 0; i <= 8000; ++i) {
      const Pose X_B{Mat3::Identity(), Vec3(-0.4 + i * dx, 0.05, 0.25)};
      const double d = compute_signed_distance(a, X_A, *other, X_B).distance;
      if (i > 0) {
        CHECK(std::abs(d - previous) <= dx * (1.0 + 1e-9));
        if ((d < 0.0) != (previous < 0.0)) ++sign_changes;
      }
      previous = d;
    }
    CHECK(sign_changes == 2);  // in, then out
  }
  // A capsule sinking into the half-space while it tilts through horizontal.
  double previous = kNaN;
  for (int i = 0; i <= 2000; ++i) {
    const double angle = std::numbers::pi / 2 - 0.2 + 0.4 * i / 2000.0;
    const Pose X_C{Eigen::AngleAxisd(angle, Vec3::UnitX()).toRotationMatrix(),
                   Vec3(0, 0, 0.12 - 1e-4 * i)};
    const SignedDistance d = compute_signed_distance(h, Pose{}, a, X_C);
    if (i > 0) CHECK(std::abs(d.distance - previous) <= 1e-4 + 0.2 * 0.4 / 2000.0 + 1e-12);
    previous = d.distance;
  }
}

TEST_CASE("capsule mass properties match integration over slices, AABB contains the capsule") {
  // Volume and inertia about the centre by Simpson's rule over z-slices (disc of radius rho(z)):
  // V = int pi rho^2, I_zz = int pi rho^4 / 2, I_xx = int pi rho^2 (rho^2 / 4 + z^2) (density 1).
  // 20000 intervals resolve the cap's square-root edge to ~1e-7 relative: tolerance 1e-6.
  const double r = 0.07, L = 0.3;
  const auto rho = [&](double z) {
    const double beyond = std::max(0.0, std::abs(z) - L / 2);
    return std::sqrt(std::max(0.0, r * r - beyond * beyond));
  };
  const int n = 20000;
  const double z0 = -L / 2 - r, dz = (L + 2 * r) / n;
  double volume = 0, izz = 0, ixx = 0;
  for (int i = 0; i <= n; ++i) {
    const double z = z0 + i * dz, w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
    const double a = std::numbers::pi * rho(z) * rho(z);
    volume += w * a;
    izz += w * a * rho(z) * rho(z) / 2;
    ixx += w * a * (rho(z) * rho(z) / 4 + z * z);
  }
  volume *= dz / 3, izz *= dz / 3, ixx *= dz / 3;
  Model model;
  model.materials.push_back({.name = "unit", .density = 1.0});
  Shape c = make_capsule(r, L);
  c.material = 0;
  model.shapes.push_back(c);
  const int shapes[] = {0};
  const MassProperties m = compute_mass_properties(model, shapes);
  CHECK(compute_shape_volume(c) == testing::relative(volume, 1e-6));
  CHECK(m.mass == testing::relative(volume, 1e-6));
  CHECK(m.inertia_com_B(2, 2) == testing::relative(izz, 1e-6));
  CHECK(m.inertia_com_B(0, 0) == testing::relative(ixx, 1e-6));
  CHECK(m.inertia_com_B(1, 1) == testing::relative(ixx, 1e-6));

  RandomPoses poses;
  for (int k = 0; k < 100; ++k) {
    const Pose X = poses.next(1.0);
    const Aabb box = compute_aabb(c, X);
    for (double u : {0.0, 1.0}) {
      const Vec3 end = axis_point(c, X, u);
      CHECK(((end.array() - r) >= box.min_W.array() - 1e-15).all());
      CHECK(((end.array() + r) <= box.max_W.array() + 1e-15).all());
    }
  }
}

TEST_CASE("capsule scenes: degenerate sizes and the box pair are refused at load, by name") {
  const auto scene = [](const std::string& shape, const std::string& other) {
    return "materials: {Steel: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}\n"
           "contact_materials: [{pair: [Steel, Steel]}]\n"
           "bodies:\n"
           "  - {name: ground, fixed: true, shapes: [" +
           other +
           "]}\n"
           "  - {name: c, position: [0, 0, 1], shapes: [" +
           shape + "]}\n";
  };
  const std::string floor = "{type: halfspace, material: Steel}";
  CHECK_NOTHROW(load_scene_text(
      scene("{type: capsule, radius: 0.1, length: 0.2, material: Steel}", floor), "ok.yaml"));
  CHECK_THROWS_WITH_AS(
      load_scene_text(scene("{type: capsule, radius: 0.1, length: -0.2, material: Steel}", floor),
                      "bad.yaml"),
      doctest::Contains("length"), InputError);
  CHECK_THROWS_WITH_AS(
      load_scene_text(scene("{type: capsule, radius: 0, length: 0.2, material: Steel}", floor),
                      "bad.yaml"),
      doctest::Contains("radius"), InputError);
  // The capsule-box pair goes through the general convex narrowphase.
  CHECK_NOTHROW(load_scene_text(scene("{type: capsule, radius: 0.1, length: 0.2, material: Steel}",
                                      "{type: box, size: [1, 1, 0.1], material: Steel}"),
                                "box.yaml"));
}

TEST_CASE(
    "collision masks: a filtered pair needs no support and no contact, a sphere falls freely") {
  // A box on a box floor is refused unless group / mask keep the two apart; a sphere whose mask
  // excludes the floor's group falls through it: z = z0 - g t^2 / 2 (rtol 1e-10: 1e-8), no event.
  const std::string scene = R"(
simulation: {stop_time: 1.0, rtol: 1.0e-10}
materials: {Steel: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}
contact_materials: [{pair: [Steel, Steel]}]
bodies:
  - {name: ground, fixed: true, shapes: [{name: slab, type: box, size: [2, 2, 0.1], material: Steel, group: 2}]}
  - {name: crate, position: [0, 0, 1], shapes: [{type: box, size: [0.2, 0.2, 0.2], material: Steel, mask: 1}]}
  - {name: ball, position: [1, 0, 0.2], shapes: [{type: sphere, radius: 0.05, material: Steel, mask: 5}]}
)";
  const Model model = load_scene_text(scene, "masks.yaml");
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->recorder.contact_records().empty());
  const int ball = model.bodies[model.find_body("ball")].state_offset;
  CHECK(run->final_state[ball + 2] == testing::relative(0.2 - 9.81 / 2, 1e-8));
  // Without the crate's mask the box pair touches (general convex narrowphase): its bottom face,
  // 0.9 m up, meets the slab's top, 0.05 m up, after free fall at t = sqrt(2 (0.85 m) / g), to
  // the event location tolerance (1e-8 s at rtol 1e-10; 1e-6 allows for the eps hysteresis).
  std::string unfiltered = scene;
  unfiltered.replace(unfiltered.find(", mask: 1"), 9, "");
  const Model touching = load_scene_text(unfiltered, "masks.yaml");
  const auto landed = testing::run_scene(touching);
  REQUIRE(landed->result.status == SimulationStatus::ok);
  const auto records = landed->recorder.contact_records();
  REQUIRE_FALSE(records.empty());
  CHECK(records.front().pair_a == "ground/slab");
  CHECK(records.front().pair_b == "crate/0");
  CHECK(std::abs(records.front().t - std::sqrt(2.0 * 0.85 / 9.81)) < 1e-6);
  CHECK((records.front().normal_W - Vec3::UnitZ()).norm() < 1e-9);
  std::string bad = scene;
  bad.replace(bad.find("mask: 5"), 7, "mask: -1");
  CHECK_THROWS_WITH_AS(load_scene_text(bad, "masks.yaml"), doctest::Contains("mask"), InputError);
}

}  // namespace
}  // namespace hybridsim
