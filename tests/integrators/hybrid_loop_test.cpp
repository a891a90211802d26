// The hybrid loop: time events from input steps (exact polynomial motion), outputs at and next
// to events, statistics summed over restarts, the Zeno guard, both CVODE methods.
#include <doctest/doctest.h>

#include <cmath>

#include <fmt/format.h>

#include "test_support.hpp"

namespace hybridsim {
namespace {

// A 2 kg body in free space pushed by a force that steps from 0 to (4, 0, 0) N at t_step, and a
// torque ramp about z from 0 to 1 N m over [1, 2] s.
Model pushed_body(double t_step, double output_interval) {
  return load_scene_text(fmt::format(R"(
gravity: [0, 0, 0]
simulation: {{stop_time: 3.0, rtol: 1.0e-10, output_interval: {}}}
materials: {{Steel: {{density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}}}
bodies:
  - name: body
    mass: 2.0
    inertia: [0.5, 0.5, 0.5, 0, 0, 0]
    shapes: [{{type: sphere, radius: 0.1, material: Steel}}]
inputs:
  - name: push
    target: {{body: body, kind: force, frame: world}}
    signal: {{step: {{time: {}, before: [0, 0, 0], after: [4, 0, 0]}}}}
  - name: twist
    target: {{body: body, kind: torque}}
    signal: {{ramp: {{time: 1.0, duration: 1.0, before: [0, 0, 0], after: [0, 0, 1]}}}}
)",
                                     output_interval, t_step),
                         "pushed_body");
}

TEST_CASE("simulator: input steps and ramps are time events, motion matches the closed form") {
  const double t_step = 0.5;
  const auto run = testing::run_scene(pushed_body(t_step, 0.01));
  REQUIRE(run->result.status == SimulationStatus::ok);
  // Breakpoints: the step at 0.5, the ramp's corners at 1 and 2.
  CHECK(run->result.time_events == 3);
  const int offset = run->model.bodies[0].state_offset;
  for (std::size_t i = 0; i < run->recorder.output_times.size(); ++i) {
    const double t = run->recorder.output_times[i];
    const VectorX& x = run->recorder.output_states[i];
    // x = F / (2m) (t - t_step)^2 after the step (a = 2 m/s^2), exactly polynomial.
    const double tau = std::max(0.0, t - t_step);
    CHECK(std::abs(x[offset + 0] - tau * tau) < 1e-9);
    CHECK(std::abs(x[offset + 7] - 2.0 * tau) < 1e-9);
    // w_z = int of (torque / I): ramp from t = 1 to 2 with slope 1 N m/s, then constant 1 N m.
    const double w = t < 1.0 ? 0.0 : t < 2.0 ? (t - 1.0) * (t - 1.0) : 1.0 + 2.0 * (t - 2.0);
    CHECK(std::abs(x[offset + 12] - w) < 1e-8);
  }
  // Outputs every 0.01 s from 0 to 3 s, each exactly once.
  CHECK(run->recorder.output_times.size() == 301);
  CHECK(run->recorder.output_times.back() == 3.0);
}

TEST_CASE("simulator: an output instant next to an event gives no solver failure") {
  // The step sits 1e-15 s after an output instant; then a state event exactly on an output.
  const auto run = testing::run_scene(pushed_body(0.5 + 1e-15, 0.01));
  CHECK(run->result.status == SimulationStatus::ok);
  CHECK(run->recorder.output_times.size() == 301);

  const Model sphere = load_scene_file("bouncing_sphere", {"simulation.stop_time=0.5"});
  const auto first = testing::run_scene(sphere);
  const double t_event = first->recorder.contact_records().front().t;
  for (const double interval : {t_event, t_event * (1 + 1e-15), t_event * (1 - 1e-15)}) {
    const auto near = testing::run_scene(sphere, "", interval);
    CHECK(near->result.status == SimulationStatus::ok);
    CHECK(near->recorder.contact_records().front().t == t_event);
  }
}

TEST_CASE("simulator: statistics are summed over all restarts") {
  for (const char* integrator : {"cvode-bdf", "cvode-adams"}) {
    const auto run = testing::run_scene(load_scene_file("bouncing_sphere"), integrator);
    REQUIRE(run->result.status == SimulationStatus::ok);
    CAPTURE(integrator);
    // The system counts every right-hand-side call itself, across all restarts; CVODE's counters
    // restart from zero at every ReInit, so the sums agree only if no segment is lost.
    CHECK(run->result.stats.rhs_evals == run->result.rhs_calls);
    CHECK(run->result.restarts == run->result.state_events);
    CHECK(run->result.contact_starts == 16);
  }
}

TEST_CASE("simulator: the Zeno guard stops a chattering run with a status, keeping the outputs") {
  // A small, nearly elastic ball with v_small ~ 0: bounces accumulate towards a finite time.
  const Model model = load_scene_file(
      "bouncing_sphere",
      {"contact_materials.0.restitution=0.9", "contact_materials.0.v_small=1e-7",
       "bodies.ball.shapes.sphere.radius=0.005", "bodies.ball.position=[0, 0, 1.005]",
       "contact.max_events_per_second=1000", "simulation.stop_time=20"});
  const auto run = testing::run_scene(model);
  CHECK(run->result.status == SimulationStatus::zeno_guard);
  CHECK(run->result.t_end < 20.0);
  REQUIRE(!run->recorder.events.empty());
  CHECK(run->recorder.events.back().kind == EventInstantKind::guard_stop);
  // Outputs up to the stop are kept, and the last one is at the stop.
  CHECK(run->recorder.output_times.back() == run->result.t_end);
}

TEST_CASE("simulator: a fast thin collision is caught") {
  // A 1 cm ball at 50 m/s towards a 2 mm plate, no gravity: without the step bound one step
  // could carry it through the plate between two evaluations of z2.
  const auto run = testing::run_scene(load_scene_text(R"(
gravity: [0, 0, 0]
simulation: {stop_time: 0.1, rtol: 1.0e-6, output_interval: 0.05}
materials: {Steel: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}
contact_materials: [{pair: [Steel, Steel], restitution: 0.8}]
bodies:
  - {name: plate, fixed: true, shapes: [{type: box, size: [1, 1, 0.002], material: Steel}]}
  - name: ball
    position: [0, 0, 2.0]
    linear_velocity: [0, 0, -50]
    shapes: [{type: sphere, radius: 0.01, material: Steel}]
)",
                                                      "thin_plate"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts == 1);
  const int offset = run->model.bodies[1].state_offset;
  // Bounced back at e v = 40 m/s (to the tolerance of the law, rtol 1e-6).
  CHECK(run->final_state[offset + 9] == testing::relative(40.0, 1e-4));
}

}  // namespace
}  // namespace hybridsim
