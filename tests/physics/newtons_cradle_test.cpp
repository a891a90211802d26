// Newton's cradle (models/scenes/newtons_cradle*.yaml): five steel balls on revolute pendulums,
// Hertz contact with restitution 1.
//  - 1 mm gaps: every impact is an isolated two-ball collision of equal masses, which exchanges
//    the velocities: one ball out gives one ball out.
//  - touching balls: the impact runs through a Hertz chain, whose outgoing velocities are
//    compared with an independent integration of the 1D chain m x_i'' = K (d_{i-1}^1.5 - d_i^1.5).
//  - momentum through each impact and energy over the run are conserved.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <numbers>

#include "test_support.hpp"

namespace hybridsim {
namespace {

constexpr int kBalls = 5;

std::array<double, kBalls> ball_velocities(testing::Run& run, const VectorX& x) {
  const auto kinematics = run.system->compute_kinematics(x);
  std::array<double, kBalls> v{};
  for (int i = 0; i < kBalls; ++i) {
    v[i] = kinematics[run.model.find_body(fmt::format("ball{}", i + 1))].v_WCom_W.x();
  }
  return v;
}

// The 1D Hertz chain: balls of mass m touching in a row, the first arriving at v0; contact
// force K d^1.5 on overlaps d > 0. RK4 with 2e-8 s steps (about 1e-4 of a pair's contact time)
// over 5 ms, more than ten times the chain's collision time. Returns the final velocities.
std::array<double, kBalls> hertz_chain(double m, double K, double v0) {
  using State = std::array<double, 2 * kBalls>;  // positions (relative to rest), velocities
  auto rate = [&](const State& s) {
    State d{};
    for (int i = 0; i < kBalls; ++i) d[i] = s[kBalls + i];
    for (int i = 0; i + 1 < kBalls; ++i) {
      const double overlap = s[i] - s[i + 1];
      const double f = overlap > 0.0 ? K * std::pow(overlap, 1.5) : 0.0;
      d[kBalls + i] -= f / m;
      d[kBalls + i + 1] += f / m;
    }
    return d;
  };
  State s{};
  s[kBalls] = v0;
  const double h = 2e-8;
  for (int step = 0; step < 250000; ++step) {
    const State k1 = rate(s);
    State tmp;
    for (int i = 0; i < 2 * kBalls; ++i) tmp[i] = s[i] + 0.5 * h * k1[i];
    const State k2 = rate(tmp);
    for (int i = 0; i < 2 * kBalls; ++i) tmp[i] = s[i] + 0.5 * h * k2[i];
    const State k3 = rate(tmp);
    for (int i = 0; i < 2 * kBalls; ++i) tmp[i] = s[i] + h * k3[i];
    const State k4 = rate(tmp);
    for (int i = 0; i < 2 * kBalls; ++i) s[i] += h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  std::array<double, kBalls> v{};
  for (int i = 0; i < kBalls; ++i) v[i] = s[kBalls + i];
  return v;
}

// States at the first contact start and after the last contact end.
struct Impact {
  VectorX before, after;
  double v0 = 0.0;  // pre-impact speed of the first contact, m/s
};

Impact impact_states(testing::Run& run) {
  Impact impact;
  bool started = false;
  for (std::size_t i = 0; i < run.recorder.events.size(); ++i) {
    for (const EventRecord& record : run.recorder.events[i].outcome.records) {
      if (record.kind == EventRecord::Kind::contact_start && !started) {
        impact.before = run.recorder.event_states[i];
        impact.v0 = record.pre_impact_velocity;
        started = true;
      }
      if (record.kind == EventRecord::Kind::contact_end)
        impact.after = run.recorder.event_states[i];
    }
  }
  return impact;
}

double relative_energy_change(testing::Run& run) {
  REQUIRE(!run.recorder.output_energies.empty());
  const double initial = run.recorder.output_energies.front();
  const double final = run.recorder.output_energies.back();
  return std::abs(final - initial) / initial;
}

TEST_CASE("Newton's cradle with gaps: one ball out gives one ball out") {
  for (const char* integrator : {"cvode-bdf", "ida"}) {
    CAPTURE(std::string(integrator));
    auto run = testing::run_scene(load_scene_file("newtons_cradle"), integrator);
    REQUIRE(run->result.status == SimulationStatus::ok);
    const Impact impact = impact_states(*run);
    REQUIRE(impact.after.size() > 0);
    // At the bottom, m g L (1 - cos 20 deg) = (m L^2 + I) w^2 / 2 with the ball's own inertia
    // I = (2/5) m R^2: v0 = L w. The first contact is 1 mm past the bottom, 1.7e-6 m higher:
    // 5e-5 relative less speed, inside the 1e-4.
    const double L = 0.3, R = 0.02;
    const double v0 = std::sqrt(2 * 9.81 * L * (1 - std::cos(20 * std::numbers::pi / 180)) /
                                (1 + 0.4 * R * R / (L * L)));
    CHECK(impact.v0 == testing::relative(v0, 1e-4));
    const auto v = ball_velocities(*run, impact.after);
    for (int i = 0; i < 4; ++i) CHECK(std::abs(v[i]) < 0.01 * v0);
    CHECK(v[4] == testing::relative(v0, 0.01));
    // Four contacts, one per neighbour pair, each starting and ending once.
    CHECK(run->result.contact_starts == 4);
    CHECK(run->result.contact_ends == 4);
    // Energy (kinetic + gravity + Hertz) over the whole run, impacts included, to the
    // integrator: rtol 1e-10 over ~2000 steps.
    CHECK(relative_energy_change(*run) < 1e-7);
  }
}

TEST_CASE("Newton's cradle touching: the Hertz chain's velocities, momentum and energy") {
  for (const char* integrator : {"cvode-bdf", "ida"}) {
    CAPTURE(std::string(integrator));
    auto run = testing::run_scene(load_scene_file("newtons_cradle_touching"), integrator);
    REQUIRE(run->result.status == SimulationStatus::ok);
    const Impact impact = impact_states(*run);
    REQUIRE(impact.after.size() > 0);
    // The chain's Hertz constant from the published formula for two equal spheres:
    // K = (4/3) E* sqrt(R*), E* = E / (2 (1 - nu^2)), R* = R / 2 (palette steel).
    const double E = 2.0e11, nu = 0.3, R = 0.02, density = 7850.0;
    const double m = density * 4.0 / 3.0 * std::numbers::pi * R * R * R;
    const double K = 4.0 / 3.0 * E / (2.0 * (1.0 - nu * nu)) * std::sqrt(R / 2.0);
    const auto expected = hertz_chain(m, K, impact.v0);
    const auto v = ball_velocities(*run, impact.after);
    // The pendulums act on the ~0.3 ms collision with a tangential gravity g d/L ~ 3e-4 m/s^2
    // (d ~ 1e-5 m of travel): ~1e-7 m/s, far inside 1e-3 v0.
    for (int i = 0; i < kBalls; ++i) {
      CAPTURE(i);
      CHECK(std::abs(v[i] - expected[i]) < 1e-3 * impact.v0);
    }
    // Dispersion: unlike the gapped cradle, the first balls keep visible velocities.
    double largest_left_behind = 0.0;
    for (int i = 0; i < 4; ++i) largest_left_behind = std::max(largest_left_behind, std::abs(v[i]));
    INFO(fmt::format("touching cradle: v/v0 = {:.4f} {:.4f} {:.4f} {:.4f} {:.4f}", v[0] / impact.v0,
                     v[1] / impact.v0, v[2] / impact.v0, v[3] / impact.v0, v[4] / impact.v0));
    CHECK(largest_left_behind > 0.01 * impact.v0);
    // Momentum through the collision: sum m v_x before the first contact and after the last.
    const auto before = ball_velocities(*run, impact.before);
    double p_before = 0.0, p_after = 0.0;
    for (int i = 0; i < kBalls; ++i) {
      p_before += m * before[i];
      p_after += m * v[i];
    }
    CHECK(p_after == testing::relative(p_before, 1e-5));
    CHECK(relative_energy_change(*run) < 1e-7);
  }
}

}  // namespace
}  // namespace hybridsim
