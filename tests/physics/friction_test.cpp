// Friction laws in motion, each against a closed form of rigid-body mechanics. Slopes are made by
// tilting gravity by theta over a flat floor (as Gazebo's friction tests do): the tangential
// gravity is g sin(theta) along +x, the normal g cos(theta).
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/friction_law.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

constexpr double g = 9.81;

// A steel body with the given shapes (YAML flow list) on a steel floor, at height z0 (its static
// penetration: an initial, fully damped contact), moving at `velocity`, under gravity tilted by
// theta about y.
Model body_on_floor(double theta, const std::string& friction, const Vec3& velocity,
                    double stop_time, const std::string& shapes, double z0) {
  return load_scene_text(
      fmt::format(R"(
gravity: [{gx}, 0, {gz}]
simulation: {{stop_time: {stop}, rtol: 1.0e-9, output_interval: 0.01}}
materials: {{Steel: {{density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}}}
contact_materials:
  - {{pair: [Steel, Steel], restitution: 0.5, friction: {friction}}}
bodies:
  - {{name: floor, fixed: true, shapes: [{{type: halfspace, material: Steel}}]}}
  - name: body
    position: [0, 0, {z0}]
    linear_velocity: [{vx}, {vy}, 0]
    shapes: [{shapes}]
)",
                  fmt::arg("gx", g * std::sin(theta)), fmt::arg("gz", -g * std::cos(theta)),
                  fmt::arg("stop", stop_time), fmt::arg("friction", friction), fmt::arg("z0", z0),
                  fmt::arg("vx", velocity.x()), fmt::arg("vy", velocity.y()),
                  fmt::arg("shapes", shapes)),
      "body_on_floor");
}

// A sled on four steel balls (r = 2 cm, at (+-0.1, +-0.1) in its frame, 1.07 kg). Four contacts
// hold it level: no rocking, no rolling, one slip velocity. (A box on one contact point rocks in
// pitch while it slides, which one point per pair cannot damp: see docs/physics.md.)
Model sled_on_floor(double theta, const std::string& friction, const Vec3& velocity,
                    double stop_time, const std::string& ball_extra = "") {
  const double radius = 0.02;
  const double mass = 4.0 * 8000.0 * 4.0 / 3.0 * std::numbers::pi * std::pow(radius, 3);
  const double K = 0.5 * 2.0e11 / 0.91 * 4.0 / 3.0 * std::sqrt(radius);
  const double penetration = std::pow(mass / 4.0 * g * std::cos(theta) / K, 2.0 / 3.0);
  std::string balls;
  for (const auto& [x, y] : {std::pair{0.1, 0.1}, {0.1, -0.1}, {-0.1, 0.1}, {-0.1, -0.1}}) {
    balls += fmt::format("{}{{type: sphere, radius: {}, material: Steel, position: [{}, {}, 0]{}}}",
                         balls.empty() ? "" : ", ", radius, x, y, ball_extra);
  }
  return body_on_floor(theta, friction, velocity, stop_time, balls, radius - penetration - 1e-13);
}

// A steel box 0.2 x 0.16 x 0.1 m (one contact point) on a level floor.
Model box_on_floor(const std::string& friction, const Vec3& velocity, double stop_time,
                   const std::string& box_extra = "") {
  const double mass = 8000.0 * 0.2 * 0.16 * 0.1;
  const double K = 0.5 * 2.0e11 / 0.91 * 4.0 / 3.0 * std::sqrt(0.05);
  const double penetration = std::pow(mass * g / K, 2.0 / 3.0);
  return body_on_floor(
      0.0, friction, velocity, stop_time,
      fmt::format("{{type: box, size: [0.2, 0.16, 0.1], material: Steel{}}}", box_extra),
      0.05 - penetration - 1e-13);
}

// Velocity of body 1's origin at output time t (outputs every 0.01 s from 0).
Vec3 velocity_at(const testing::Run& run, double t) {
  const auto i = static_cast<std::size_t>(std::lround(t / 0.01));
  REQUIRE(i < run.recorder.output_states.size());
  REQUIRE(std::abs(run.recorder.output_times[i] - t) < 1e-12);
  return run.recorder.output_states[i].segment<3>(run.model.bodies[1].state_offset + 7);
}

TEST_CASE("regularized coulomb: a block slides down a slope at g (sin - mu cos)") {
  const double theta = std::numbers::pi / 6.0, mu = 0.3;
  const auto run = testing::run_scene(sled_on_floor(
      theta, "{model: regularized_coulomb, mu_kinetic: 0.3, v_small: 0.001}", Vec3::Zero(), 1.0));
  REQUIRE(run->result.status == SimulationStatus::ok);
  // Between 0.3 and 1 s the slip is far above v_small: the friction is mu f_n exactly.
  const double a = (velocity_at(*run, 1.0).x() - velocity_at(*run, 0.3).x()) / 0.7;
  CHECK(a == testing::relative(g * (std::sin(theta) - mu * std::cos(theta)), 1e-6));
}

TEST_CASE(
    "regularized coulomb: below the friction angle the block creeps at the regularized speed") {
  // Steady creep where mu cos(theta) v / reg(v, v_small) = sin(theta), solved here by bisection.
  const double theta = 0.1, mu = 0.3, vs = 0.01;
  const auto ratio = [vs](double v) {
    return v / (v * v / vs * (1.0 - v / (3.0 * vs)) + vs / 3.0);
  };
  double lo = 0.0, hi = vs;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (ratio(mid) < std::tan(theta) / mu ? lo : hi) = mid;
  }
  const double creep = 0.5 * (lo + hi);
  const auto run = testing::run_scene(sled_on_floor(
      theta, "{model: regularized_coulomb, mu_kinetic: 0.3, v_small: 0.01}", Vec3::Zero(), 1.0));
  REQUIRE(run->result.status == SimulationStatus::ok);
  // The creep settles within milliseconds (time constant ~ v_small / (mu g)).
  CHECK(velocity_at(*run, 1.0).x() == testing::relative(creep, 1e-6));
}

TEST_CASE("stribeck: a sliding block decelerates at mu_d g, stiction holds it on a slope") {
  const auto run = testing::run_scene(sled_on_floor(
      0.0, "{model: stribeck, mu_static: 0.5, mu_kinetic: 0.3, stiction_tolerance: 1.0e-3}",
      Vec3(2.0, 0.0, 0.0), 0.6));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const double a = (velocity_at(*run, 0.5).x() - velocity_at(*run, 0.1).x()) / 0.4;
  CHECK(a == testing::relative(-0.3 * g, 1e-6));
  // On a slope steeper than atan(mu_d) but below atan(mu_s) it sticks: the steady slip is in the
  // stiction branch, mu(v) = tan(theta) < mu_s, so v < v_s.
  const double theta = std::atan(0.4);
  const auto held = testing::run_scene(sled_on_floor(
      theta, "{model: stribeck, mu_static: 0.5, mu_kinetic: 0.3, stiction_tolerance: 1.0e-3}",
      Vec3::Zero(), 1.0));
  REQUIRE(held->result.status == SimulationStatus::ok);
  const double v = velocity_at(*held, 1.0).x();
  CHECK(v < 1e-3);
  CHECK(stribeck_coefficient(0.5, 0.3, v, 1e-3) == testing::relative(0.4, 1e-6));
}

TEST_CASE("slip compliance: steady slip m g_t c / n with time constant m c / n") {
  // n = 4: a box (four manifold corners of one shape pair); n = 3 and 4: a body on three or
  // four spheres (one point per shape pair), which can neither roll nor tip. Each contact carries
  // f_n = m g cos / n and f_t = v / c, unsaturated.
  const double theta = 0.02;
  struct Body_ {
    int n;                 // contact points
    int points_per_shape;  // contact points of each shape pair (Gazebo's count)
    std::string shapes;
    double mass;
  };
  const double ball_mass = 8000.0 * 4.0 / 3.0 * std::numbers::pi * std::pow(0.02, 3);
  const std::string ball = "{{type: sphere, radius: 0.02, material: Steel, position: [{}, {}, 0]}}";
  const std::vector<Body_> bodies = {
      {4, 4, "{type: box, size: [0.2, 0.16, 0.1], material: Steel, position: [0, 0, 0.03]}",
       8000.0 * 0.2 * 0.16 * 0.1},
      {3, 1,
       fmt::format(fmt::runtime(ball), 0.1, 0.0) + ", " +
           fmt::format(fmt::runtime(ball), -0.05, 0.0866) + ", " +
           fmt::format(fmt::runtime(ball), -0.05, -0.0866),
       3 * ball_mass},
      {4, 1,
       fmt::format(fmt::runtime(ball), 0.1, 0.1) + ", " +
           fmt::format(fmt::runtime(ball), 0.1, -0.1) + ", " +
           fmt::format(fmt::runtime(ball), -0.1, 0.1) + ", " +
           fmt::format(fmt::runtime(ball), -0.1, -0.1),
       4 * ball_mass},
  };
  // With scale_by_contact_count each contact's compliance is multiplied by the points of its
  // shape pair (Gazebo's normalisation): the box then slips like one contact, v = m g_t c,
  // tau = m c; the bodies on spheres, one point per shape pair, are not scaled (as in Gazebo).
  for (const bool scaled : {false, true}) {
    for (const Body_& body : bodies) {
      CAPTURE(body.n);
      CAPTURE(scaled);
      const double tau = 0.05;  // chosen time constant, s
      const double effective_n = scaled ? body.n / body.points_per_shape : body.n;
      const double c = tau * effective_n / body.mass;  // slip compliance giving it, m/s/N
      const double v_steady = body.mass * g * std::sin(theta) * c / effective_n;
      const auto run = testing::run_scene(load_scene_text(
          fmt::format(R"(
gravity: [{gx}, 0, {gz}]
simulation: {{stop_time: 0.5, rtol: 1.0e-9, output_interval: 0.01}}
materials: {{Steel: {{density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}}}
contact_materials:
  - {{pair: [Steel, Steel], restitution: 0.5,
     friction: {{model: slip_compliance, mu_kinetic: 0.5, slip_compliance: {c},
                scale_by_contact_count: {scaled}}}}}
bodies:
  - {{name: floor, fixed: true, shapes: [{{type: halfspace, material: Steel}}]}}
  - name: sled
    position: [0, 0, {z0}]
    shapes: [{shapes}]
)",
                      fmt::arg("gx", g * std::sin(theta)), fmt::arg("gz", -g * std::cos(theta)),
                      fmt::arg("c", c), fmt::arg("scaled", scaled), fmt::arg("shapes", body.shapes),
                      fmt::arg("z0", 0.02 - 1e-6)),
          "sled"));
      REQUIRE(run->result.status == SimulationStatus::ok);
      // The body settles onto its contacts in the first milliseconds; then v = v_ss (1 -
      // e^(-t/tau)): at 0.5 s = 10 tau within 4.5e-5 of v_ss, plus the settling transient.
      CHECK(velocity_at(*run, 0.5).x() == testing::relative(v_steady, 1e-3));
      const double v1 = velocity_at(*run, 0.1).x(), v2 = velocity_at(*run, 0.2).x();
      // (v_ss - v(0.2)) / (v_ss - v(0.1)) = exp(-0.1 / tau): the time constant, free of the start.
      CHECK(std::log((v_steady - v1) / (v_steady - v2)) == testing::relative(0.1 / tau, 1e-2));
    }
  }
}

// 32 directions on a flat floor, v0 = 1 m/s, mu = 0.3, checked at t = 0.1 s. Cone: the friction
// opposes the velocity, the direction stays and the speed falls at mu g. Pyramid with fdir1 = x:
// each component decelerates at mu g on its own, v_i(t) = v0_i - sign(v0_i) mu g t, until it
// stops (to within v_small). `make(friction, v0, t, shape_extra)` builds the scene.
struct DirectionTolerances {
  double cone_angle, cone_speed, pyramid_velocity;  // rad, relative, m/s
};

template <typename MakeScene>
void check_cone_and_pyramid(MakeScene make, const DirectionTolerances& tolerance) {
  const double mu = 0.3, t = 0.1;
  const std::string friction = "{model: regularized_coulomb, mu_kinetic: 0.3, v_small: 1.0e-4";
  for (int k = 0; k < 32; ++k) {
    const double phi = 2.0 * std::numbers::pi * k / 32.0;
    const Vec3 v0(std::cos(phi), std::sin(phi), 0.0);
    CAPTURE(k);
    const auto cone = testing::run_scene(make(friction + "}", v0, t, ""));
    const Vec3 v_cone = velocity_at(*cone, t);
    const double turn = std::atan2(v_cone.y(), v_cone.x()) - phi;
    CHECK(std::abs(std::remainder(turn, 2.0 * std::numbers::pi)) < tolerance.cone_angle);
    CHECK(v_cone.norm() == testing::relative(1.0 - mu * g * t, tolerance.cone_speed));

    const auto pyramid =
        testing::run_scene(make(friction + ", cone: false}", v0, t, ", fdir1: [1, 0, 0]"));
    Vec3 expected = Vec3::Zero();
    for (int i = 0; i < 2; ++i) {
      const double slowed = std::abs(v0[i]) - mu * g * t;
      expected[i] = slowed > 0.0 ? std::copysign(slowed, v0[i]) : 0.0;
    }
    CHECK((velocity_at(*pyramid, t) - expected).norm() < tolerance.pyramid_velocity);
  }
}

TEST_CASE("cone keeps the sliding direction, the pyramid bends it towards the nearer axis") {
  // On the four-ball sled the laws hold to the integration tolerance.
  check_cone_and_pyramid(
      [](const std::string& friction, const Vec3& v0, double t, const std::string& extra) {
        return sled_on_floor(0.0, friction, v0, t, extra);
      },
      {1e-6, 1e-6, 2e-4});
}

TEST_CASE("boxes pushed radially in 32 directions: the cone keeps them, the pyramid bends them") {
  // The issue's experiment with boxes. A box slides on one contact point and rocks in pitch
  // while it does (docs/physics.md), which perturbs its normal force: measured up to 3e-6 rad in
  // direction and 2e-4 in speed under the cone, 1.2e-3 m/s under the pyramid, against bends of
  // up to 0.29 m/s that the decoupled directions predict.
  check_cone_and_pyramid(
      [](const std::string& friction, const Vec3& v0, double t, const std::string& extra) {
        return box_on_floor(friction, v0, t, extra);
      },
      {1e-5, 5e-4, 2.5e-3});
}

// A billiard ball (palette BilliardBall on BilliardTable) at rest on the table, given v0 along x
// and a spin w0 about z, with the rolling resistance and torsional friction given.
Model billiard_ball(double v0, double spin, double rolling, double torsional, double stop_time,
                    double tilt = 0.0) {
  const double r = 0.028575;
  return load_scene_text(
      fmt::format(R"(
gravity: [{gx}, 0, {gz}]
simulation: {{stop_time: {stop}, rtol: 1.0e-9, output_interval: 0.01}}
contact_materials:
  - pair: [BilliardBall, BilliardTable]
    restitution: 0.5
    friction: {{model: regularized_coulomb, mu_kinetic: 0.2, v_small: 1.0e-4}}
    rolling_resistance: {rolling}
    torsional_friction: {torsional}
    w_small: 1.0e-3
bodies:
  - {{name: table, fixed: true, shapes: [{{type: halfspace, material: BilliardTable}}]}}
  - name: ball
    position: [0, 0, {z0}]
    linear_velocity: [{v0}, 0, 0]
    angular_velocity: [0, 0, {spin}]
    shapes: [{{type: sphere, radius: {r}, material: BilliardBall}}]
)",
                  fmt::arg("gx", g * std::sin(tilt)), fmt::arg("gz", -g * std::cos(tilt)),
                  fmt::arg("stop", stop_time), fmt::arg("rolling", rolling),
                  fmt::arg("torsional", torsional), fmt::arg("z0", r - 1e-6), fmt::arg("v0", v0),
                  fmt::arg("spin", spin), fmt::arg("r", r)),
      "billiard_ball");
}

// Static Hertz penetration of the ball on the table under normal gravity g_n: (m g_n / K)^(2/3).
double billiard_static_penetration(double g_n) {
  const double r = 0.028575, mass = 1740.0 * 4.0 / 3.0 * std::numbers::pi * r * r * r;
  const double c1 = 5.4e9 / (1.0 - 0.35 * 0.35), c2 = 4.0e10 / (1.0 - 0.25 * 0.25);
  const double K = c1 * c2 / (c1 + c2) * 4.0 / 3.0 * std::sqrt(r);
  return std::pow(mass * g_n / K, 2.0 / 3.0);
}

TEST_CASE("billiard ball: slides, then rolls at 5 v0 / 7 from t* = 2 v0 / (7 mu g)") {
  const double v0 = 2.0, mu = 0.2, r = 0.028575;
  const double t_star = 2.0 * v0 / (7.0 * mu * g);  // 0.2913 s
  const auto run = testing::run_scene(billiard_ball(v0, 0.0, 0.0, 0.0, 0.6));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const int offset = run->model.bodies[1].state_offset;
  // Slip v - w_y r falls linearly at (7/2) mu g until it reaches v_small: it crosses 0.1 m/s at
  // t* - 0.1 / ((7/2) mu g), interpolated between outputs 10 ms apart (a linear function).
  double t_cross = -1.0;
  for (std::size_t i = 1; i < run->recorder.output_times.size(); ++i) {
    const auto slip = [&](std::size_t k) {
      const VectorX& x = run->recorder.output_states[k];
      const Quat q(x[offset + 3], x[offset + 4], x[offset + 5], x[offset + 6]);
      const Vec3 w_W = q.normalized() * Vec3(x[offset + 10], x[offset + 11], x[offset + 12]);
      return x[offset + 7] - w_W.y() * r;
    };
    if (slip(i - 1) > 0.1 && slip(i) <= 0.1) {
      const double s0 = slip(i - 1), s1 = slip(i);
      t_cross = run->recorder.output_times[i - 1] + 0.01 * (s0 - 0.1) / (s0 - s1);
    }
  }
  CHECK(t_cross == testing::relative(t_star - 0.1 / (3.5 * mu * g), 1e-4));
  // Rolling afterwards at 5 v0 / 7, from the angular momentum about the contact point; the law
  // acts at C, half the static penetration inside the ball, so the ball pivots on the radius
  // r_c = r - delta_s / 2 and rolls at v0 / (1 + I / (m r_c^2)) (a 1.2e-5 correction).
  const double r_c = r - 0.5 * billiard_static_penetration(g);
  CHECK(velocity_at(*run, 0.5).x() ==
        testing::relative(v0 / (1.0 + 0.4 * r * r / (r_c * r_c)), 1e-7));
}

TEST_CASE("billiard ball: rolling resistance decelerates at (5/7) mu_r g") {
  const double v0 = 2.0, mu_r = 0.01;
  const auto run = testing::run_scene(billiard_ball(v0, 0.0, mu_r, 0.0, 1.0));
  REQUIRE(run->result.status == SimulationStatus::ok);
  // Rolling from about 0.3 s: m a = -F, I alpha = F r - mu_r r m g, a = alpha r.
  const double a = (velocity_at(*run, 1.0).x() - velocity_at(*run, 0.5).x()) / 0.5;
  CHECK(a == testing::relative(-5.0 / 7.0 * mu_r * g, 1e-4));
}

TEST_CASE("torsional friction stops a spinning ball at mu_t r m g / I") {
  // Spin about the vertical: torque mu_t r_geo f_n with r_geo = r, I = (2/5) m r^2, so the spin
  // falls at 5 mu_t g / (2 r) = 17.2 rad/s^2 for mu_t = 0.02.
  const double mu_t = 0.02, r = 0.028575, w0 = 20.0;
  const auto run = testing::run_scene(billiard_ball(0.0, w0, 0.0, mu_t, 0.5));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const VectorX& x = run->final_state;
  const int offset = run->model.bodies[1].state_offset;
  CHECK(x[offset + 12] == testing::relative(w0 - 2.5 * mu_t * g / r * 0.5, 1e-6));
}

TEST_CASE("a ball rolls down a slope at (5/7) g sin(theta)") {
  const double theta = 15.0 * std::numbers::pi / 180.0;
  const auto run = testing::run_scene(billiard_ball(0.0, 0.0, 0.0, 0.0, 0.6, theta));
  REQUIRE(run->result.status == SimulationStatus::ok);
  // mu = 0.2 > (2/7) tan(theta) = 0.077: it rolls; the regularized slip is constant, so the
  // acceleration is that of pure rolling, g sin / (1 + I / (m r_c^2)) on the pivot radius r_c
  // (see the billiard test), 5/7 g sin(theta) to 1.2e-5.
  const double r = 0.028575;
  const double r_c = r - 0.5 * billiard_static_penetration(g * std::cos(theta));
  const double a = (velocity_at(*run, 0.6).x() - velocity_at(*run, 0.2).x()) / 0.4;
  CHECK(a == testing::relative(g * std::sin(theta) / (1.0 + 0.4 * r * r / (r_c * r_c)), 1e-6));
  CHECK(a == testing::relative(5.0 / 7.0 * g * std::sin(theta), 2e-5));
}

}  // namespace
}  // namespace hybridsim
