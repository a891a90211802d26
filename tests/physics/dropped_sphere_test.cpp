// A sphere dropped on a plate under gravity (the demo scene, tightened to rtol 1e-10):
//  - free fall: the first contact starts at sqrt(2h/g) with v- = sqrt(2gh);
//  - each rebound reaches e^(2k) h (ballistic flight after an impact of restitution e);
//  - below v_small the impact is fully damped and the sphere rests at the static Hertz
//    penetration (m g / K)^(2/3), K = c_res (4/3) sqrt(r), with no further event.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "test_support.hpp"

namespace hybridsim {
namespace {

constexpr double g = 9.81;

// The catalog scene with a small steel ball, so that gravity acting during the contact changes
// the rebound by well under the tolerance (see the apex test).
Model dropped_ball(double rtol, double stop_time, double radius) {
  return load_scene_file(
      "bouncing_sphere",
      {fmt::format("simulation.rtol={}", rtol), fmt::format("simulation.stop_time={}", stop_time),
       fmt::format("bodies.ball.shapes.sphere.radius={}", radius),
       fmt::format("bodies.ball.position=[0, 0, {}]", 1.0 + radius)});
}

TEST_CASE("dropped sphere: first contact at sqrt(2h/g) with v- = sqrt(2gh)") {
  const double h = 1.0;  // sphere bottom above the plate top
  const auto run = testing::run_scene(dropped_ball(1e-10, 0.5, 0.1));
  const auto records = run->recorder.contact_records();
  REQUIRE(!records.empty());
  // The event fires at distanceOrg = -3 eps: 3e-13 m below the surface, 7e-14 s later than
  // touching at 4.4 m/s, far inside the 1e-9 s bound.
  CHECK(std::abs(records[0].t - std::sqrt(2.0 * h / g)) < 1e-9);
  CHECK(records[0].pre_impact_velocity == testing::relative(std::sqrt(2.0 * g * h), 1e-8));
}

TEST_CASE("dropped sphere: rebound apex heights follow e^(2k) h") {
  // A 5 mm steel ball (a bearing ball). Gravity acts during its ~30-60 us contacts, which the
  // closed form ignores, and lowers each rebound speed by roughly g T_c (1 - e) / 2 against
  // e v-: about 2e-5 relative at the first rebound, growing as v^(-6/5) as the ball slows. Over
  // five rebounds the heights fall short of e^(2k) h by 4e-5 .. 5e-4 (measured), inside 1e-3;
  // a 0.1 m ball would miss it by 6e-3 at the fifth rebound for the same reason.
  const double h = 1.0, e = 0.7, radius = 0.005;
  const double dt = 1e-4;  // sampled apex error <= g dt^2 / 8 = 1.2e-8 m, 1e-6 of h e^10
  const auto run = testing::run_scene(dropped_ball(1e-10, 2.5, radius), "", dt);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto records = run->recorder.contact_records();
  REQUIRE(records.size() >= 11);
  const int z_index = run->model.bodies[1].state_offset + 2;
  for (int k = 1; k <= 5; ++k) {
    // Flight k: from the end of contact k to the start of contact k + 1.
    const double t_leave = records[2 * k - 1].t;
    const double t_land = records[2 * k].t;
    REQUIRE(records[2 * k - 1].kind == EventRecord::Kind::contact_end);
    double apex = -1.0;
    for (std::size_t i = 0; i < run->recorder.output_times.size(); ++i) {
      const double t = run->recorder.output_times[i];
      if (t > t_leave && t < t_land) {
        apex = std::max(apex, run->recorder.output_states[i][z_index] - radius);
      }
    }
    CAPTURE(k);
    CHECK(apex == testing::relative(std::pow(e, 2 * k) * h, 1e-3));
  }
}

TEST_CASE("dropped sphere: comes to rest at the static Hertz penetration, no event follows") {
  const double radius = 0.1;
  const auto run = testing::run_scene(dropped_ball(1e-10, 5.0, radius));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto records = run->recorder.contact_records();
  // A finite number of events; the last is a contact start below v_small (fully damped, d_max).
  REQUIRE(!records.empty());
  CHECK(records.size() < 60);
  const EventRecord& last = records.back();
  CHECK(last.kind == EventRecord::Kind::contact_start);
  CHECK(last.pre_impact_velocity < 0.01);
  CHECK(last.d_res == testing::relative(2000.0, 1e-12));
  // No event in the last two seconds of the run.
  CHECK(last.t < 3.0);

  const double mass = 8000.0 * 4.0 / 3.0 * std::numbers::pi * std::pow(radius, 3);
  const double c = 2.0e11 / (1.0 - 0.09);
  const double stiffness = 0.5 * c * 4.0 / 3.0 * std::sqrt(radius);
  const double static_penetration = std::pow(mass * g / stiffness, 2.0 / 3.0);
  const double z = run->final_state[run->model.bodies[1].state_offset + 2];
  const double penetration = radius - z - 1e-13;  // force-law penetration (eps = 1e-13)
  // Overdamped at rest (damping ratio ~5), the residual motion after 2.5 s is below 1e-9 of it.
  CHECK(penetration == testing::relative(static_penetration, 1e-3));
  CHECK(std::abs(run->final_state[run->model.bodies[1].state_offset + 9]) < 1e-9);
}

}  // namespace
}  // namespace hybridsim
