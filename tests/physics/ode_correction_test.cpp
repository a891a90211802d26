// ODE's penetration correction on the linear law: min_depth (ODE's surface layer, which Gazebo
// sets per surface) and max_vel (ODE's contact_max_correcting_vel, a cap on the correcting
// speed): f_n = min(kp (delta - min_depth)+ + kd delta_dot, D (max_vel + delta_dot)), D = kd +
// max_vel_step kp, clamped at 0. Each check is a closed form of that law.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

constexpr double kRadius = 0.05;
constexpr double kDensity = 8000.0;
const double kMass = kDensity * 4.0 / 3.0 * std::numbers::pi * kRadius * kRadius * kRadius;

// A steel ball over a floor, under the linear law with `law_keys`, starting at height z0 (its
// centre) at rest.
std::string ball_scene(const std::string& law_keys, double gravity, double z0, double stop_time,
                       double output_interval) {
  return fmt::format(R"(
gravity: [0, 0, {gravity}]
simulation: {{stop_time: {stop_time}, rtol: 1.0e-10, atol: 1.0e-14, output_interval: {output}}}
materials: {{Steel: {{density: {density}, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}}}
contact_materials:
  - {{pair: [Steel, Steel], normal_law: linear, {law}}}
bodies:
  - {{name: ground, fixed: true, shapes: [{{type: halfspace, material: Steel}}]}}
  - name: ball
    position: [0, 0, {z0}]
    shapes: [{{type: sphere, radius: {radius}, material: Steel}}]
)",
                     fmt::arg("gravity", gravity), fmt::arg("stop_time", stop_time),
                     fmt::arg("output", output_interval), fmt::arg("density", kDensity),
                     fmt::arg("law", law_keys), fmt::arg("z0", z0), fmt::arg("radius", kRadius));
}

TEST_CASE("min_depth: the ball rests at min_depth + m g / kp") {
  // kd = 200 N s/m damps the bounce with the time constant 2 m / kd = 0.04 s: after 2 s the
  // transient is e^-48 of the 1e-4 m drop. The rest depth is then the spring's balance of the
  // weight beyond the uncorrected layer; rtol 1e-10 on a depth of ~1e-3 m leaves 1e-9 relative.
  const double kp = 1e5, g = 9.81;
  for (const double min_depth : {0.0, 1e-3}) {
    CAPTURE(min_depth);
    const auto run = testing::run_scene(
        load_scene_text(ball_scene(fmt::format("kp: {}, kd: 200, min_depth: {}", kp, min_depth), -g,
                                   kRadius + 1e-4, 2.0, 1.0),
                        "min_depth"));
    REQUIRE(run->result.status == SimulationStatus::ok);
    const double depth = kRadius - run->final_state[run->model.bodies[1].state_offset + 2];
    CHECK(depth == testing::relative(min_depth + kMass * g / kp, 1e-7));
  }
}

TEST_CASE("max_vel: a pressed-in ball leaves at most at max_vel, through the damper D") {
  // No gravity; the ball starts 1 cm inside the floor. The spring (kp 1e9: 1e7 N) is far above
  // the cap, so m dv/dt = D (max_vel - v) for the outward speed v: v = max_vel (1 - e^(-t/tau)),
  // tau = m / D, and the depth is 0.01 - max_vel (t - tau (1 - e^(-t/tau))). The spring takes
  // over only in the last D max_vel / kp = 4e-10 m, which changes the exit speed by ~1e-8.
  const double kp = 1e9, kd = 20.0, max_vel = 0.02, depth0 = 0.01;
  for (const double step : {0.0, 1e-7}) {
    CAPTURE(step);
    const double damper = kd + step * kp;  // ODE's implicit step adds step kp to the damper
    const double tau = kMass / damper;
    const auto run = testing::run_scene(load_scene_text(
        ball_scene(
            fmt::format("kp: {}, kd: {}, max_vel: {}, max_vel_step: {}", kp, kd, max_vel, step),
            0.0, kRadius - depth0, 1.5, 0.05),
        "max_vel"));
    REQUIRE(run->result.status == SimulationStatus::ok);
    const auto records = run->recorder.contact_records();
    REQUIRE(records.size() == 2);  // the start at t = 0, the end
    CHECK(records[0].t == 0.0);
    CHECK(records[1].kind == EventRecord::Kind::contact_end);
    // The end: depth0 = max_vel (t - tau (1 - e^(-t/tau))), solved by Newton's method.
    double t = depth0 / max_vel;
    for (int i = 0; i < 50; ++i) {
      const double residual = max_vel * (t - tau * (1.0 - std::exp(-t / tau))) - depth0;
      t -= residual / (max_vel * (1.0 - std::exp(-t / tau)));
    }
    CHECK(records[1].t == testing::relative(t, 1e-7));
    const double exit_speed =
        run->recorder.event_states.back()[run->model.bodies[1].state_offset + 9];
    CHECK(exit_speed == testing::relative(max_vel * (1.0 - std::exp(-t / tau)), 1e-6));
    CHECK(exit_speed < max_vel);
  }
}

TEST_CASE("max_vel: a weight above the cap sinks at m g / D - max_vel, as under ODE's stepper") {
  // A soft contact (kp 1e5, kd 1) under a correcting-speed cap of 0.01 m/s at a 1 ms step: the
  // cap D max_vel = 1.01 N at rest holds less than the ball's 41 N, and the ball sinks at the
  // speed where D (max_vel + delta_dot) = m g, as ODE's own stepper, whose right-hand side the
  // cap cuts, lets it. The time constant m / D = 0.04 s; after 0.5 s the transient is e^-12 of
  // 0.4 m/s, and the energy is not checked (the cap makes the spring's energy no measure).
  const double kp = 1e5, kd = 1.0, max_vel = 0.01, step = 1e-3, g = 9.81;
  const auto run = testing::run_scene(load_scene_text(
      ball_scene(
          fmt::format("kp: {}, kd: {}, max_vel: {}, max_vel_step: {}", kp, kd, max_vel, step), -g,
          kRadius, 0.5, 0.5),
      "sinking"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  for (const Warning& warning : run->recorder.warnings) CHECK(warning.kind != "energy_rise");
  const double vz = run->final_state[run->model.bodies[1].state_offset + 9];
  CHECK(-vz == testing::relative(kMass * g / (kd + step * kp) - max_vel, 1e-5));
}

TEST_CASE("min_depth, max_vel: belong to the linear law and need a damper") {
  const auto error_of = [](const std::string& law) {
    try {
      load_scene_text(ball_scene(law, -9.81, 1.0, 1.0, 0.1), "keys.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of("kp: 1e5, max_vel: 0.01").find("needs a damper") != std::string::npos);
  CHECK(error_of("kp: 1e5, kd: 1, max_vel_step: 0.001").find("belongs to max_vel") !=
        std::string::npos);
  CHECK(error_of("kp: 1e5, kd: 1, min_depth: -1").find("must not be negative") !=
        std::string::npos);
  CHECK(error_of("kp: 1e5, kd: 1, max_vel: 0.01, clamp: false").find("keep clamp true") !=
        std::string::npos);
  CHECK(error_of("kp: 1e5, kd: 1, max_vel: 0.01").empty());
}

TEST_CASE("max_vel: a pair combined from self pairs needs the damper and the clamp too") {
  // [Steel, Rubber] has no entry: the self pairs combine, kd in series (0 when one is 0), the
  // clamp only if both clamp, the smaller max_vel. Each self pair is valid on its own.
  const auto error_of = [](const std::string& rubber_keys) {
    const std::string scene = fmt::format(R"(
simulation: {{stop_time: 0.01}}
materials:
  Steel: {{density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}
  Rubber: {{density: 1100, youngs_modulus: 1.0e7, poisson_ratio: 0.49}}
contact_materials:
  - {{pair: [Steel, Steel], normal_law: linear, kp: 1e5, kd: 1, max_vel: 0.01}}
  - {{pair: [Rubber, Rubber], normal_law: linear, kp: 1e5, {}}}
bodies:
  - {{name: ground, fixed: true, shapes: [{{type: halfspace, material: Steel}}]}}
  - {{name: ball, position: [0, 0, 1], shapes: [{{type: sphere, radius: 0.05, material: Rubber}}]}}
)",
                                          rubber_keys);
    try {
      load_scene_text(scene, "combined.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string no_damper = error_of("kd: 0");
  CHECK(no_damper.find("combined from its self pairs: max_vel needs a damper") !=
        std::string::npos);
  CHECK(no_damper.find("[Steel, Rubber]") != std::string::npos);
  CHECK(error_of("kd: 1, clamp: false").find("keep clamp true") != std::string::npos);
  CHECK(error_of("kd: 1").empty());
}

}  // namespace
}  // namespace hybridsim
