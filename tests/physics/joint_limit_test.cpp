// Joint limits (core/joint.hpp: JointLimit) against the closed form of a one-sided linear
// spring-damper: a rotor spinning freely about a revolute joint (no gravity, the centre of mass on
// the axis) meets its upper bound at t1 = bound / omega0 and is pushed back.
//
// Past the bound the penetration p = q - upper obeys I p'' = -k p - c p' from p = 0, p' = omega0:
//   p(s) = (omega0 / wd) exp(-a s) sin(wd s),  a = c / (2 I),  wd = sqrt(k / I - a^2).
// The effort never pulls: it lets go where k p + c p' = 0, at the s* in (pi/2, pi) / wd with
//   tan(wd s*) = -c wd / (k - c a),
// and the rotor leaves with the constant rate p'(s*) (exactly -omega0 exp(-a pi / wd) only when
// c = 0, where s* = pi / wd). The limit switches off where p falls below the hysteresis.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

using testing::relative;

std::string rotor_scene(double stiffness, double damping) {
  return fmt::format(R"(
gravity: [0, 0, 0]
simulation: {{stop_time: 0.6, integrator: cvode-bdf, rtol: 1.0e-11, atol: 1.0e-13,
              output_interval: 0.01}}
bodies:
  - {{name: ground, fixed: true}}
  - {{name: rotor, mass: 1.0, inertia: [0.1, 0.1, 0.2, 0, 0, 0]}}
joints:
  - name: hinge
    type: revolute
    parent: ground
    child: rotor
    anchor: [0, 0, 0]
    axis: [0, 0, 1]
    initial: {{velocity: 2.0}}
    limit: {{lower: -1.0, upper: 0.5, stiffness: {}, damping: {}}}
)",
                     stiffness, damping);
}

struct LimitReference {
  double t_on, t_release, rate_out, t_off;
};

LimitReference closed_form(double inertia, double k, double c, double omega0, double bound) {
  const double a = c / (2.0 * inertia);
  const double wd = std::sqrt(k / inertia - a * a);
  // The root of k p + c p' = 0 in (pi/2, pi) / wd: atan2 of a positive sine and the cosine's sign.
  const double s_release = std::atan2(c * wd, -(k - c * a)) / wd;
  const double amplitude = omega0 / wd;
  const double p = amplitude * std::exp(-a * s_release) * std::sin(wd * s_release);
  const double rate = amplitude * std::exp(-a * s_release) *
                      (wd * std::cos(wd * s_release) - a * std::sin(wd * s_release));
  const double t_on = bound / omega0;
  return {t_on, t_on + s_release, rate,
          t_on + s_release + (p + kJointLimitHysteresis) / std::abs(rate)};
}

std::vector<EventRecord> limit_records(const testing::Run& run) {
  std::vector<EventRecord> records;
  for (const EventInstant& instant : run.recorder.events) {
    for (const EventRecord& record : instant.outcome.records) {
      if (record.kind == EventRecord::Kind::limit_on ||
          record.kind == EventRecord::Kind::limit_off) {
        records.push_back(record);
      }
    }
  }
  return records;
}

TEST_CASE("joint limit: a spinning rotor meets its bound and leaves at the spring-damper's rate") {
  const double inertia = 0.2, omega0 = 2.0, upper = 0.5;
  // k = 200 N m/rad: contact about 0.1 s; c = 0 (elastic) and c = 2 N m s/rad (damping ratio
  // 0.16, released before the bound, leaving at 0.63 of omega0).
  for (const double damping : {0.0, 2.0}) {
    CAPTURE(damping);
    const double k = 200.0;
    const LimitReference reference = closed_form(inertia, k, damping, omega0, upper);
    auto run = testing::run_scene(load_scene_text(rotor_scene(k, damping), "rotor.yaml"));
    REQUIRE(run->result.status == SimulationStatus::ok);
    const std::vector<EventRecord> records = limit_records(*run);
    REQUIRE(records.size() == 2);
    CHECK(records[0].kind == EventRecord::Kind::limit_on);
    CHECK(records[0].joint == "hinge");
    CHECK(records[0].limit_side == "upper");
    CHECK(records[0].distance == upper);
    // Free spin up to the bound: the root finder places the event to about 1e-12 s.
    CHECK(records[0].t == relative(reference.t_on, 1e-9));
    CHECK(records[0].pre_impact_velocity == relative(omega0, 1e-9));
    CHECK(records[1].kind == EventRecord::Kind::limit_off);
    // The integration of the contact phase at rtol 1e-11 over ~1,000 steps: 1e-7 relative.
    CHECK(records[1].t == relative(reference.t_off, 1e-7));
    CHECK(records[1].pre_impact_velocity == relative(reference.rate_out, 1e-7));
    const double rate_out = run->system->compute_joint_coordinates(run->final_state)[0].velocity;
    CHECK(rate_out == relative(reference.rate_out, 1e-7));
    if (damping == 0.0) {
      CHECK(rate_out == relative(-omega0, 1e-7));  // elastic: the speed comes back whole
      // Half a period of sqrt(k / I) inside the limit.
      CHECK(records[1].t - records[0].t ==
            relative(std::numbers::pi * std::sqrt(inertia / k), 1e-6));
    } else {
      CHECK(std::abs(rate_out) < 0.7 * omega0);
    }
    // The energy (kinetic and the limit spring's) never rises; with c = 0 it is conserved.
    const std::vector<double>& energy = run->recorder.output_energies;
    for (std::size_t i = 1; i < energy.size(); ++i) {
      CHECK(energy[i] <= energy[i - 1] * (1.0 + 1e-9));
    }
    if (damping == 0.0) CHECK(energy.back() == relative(energy.front(), 1e-8));
  }
}

TEST_CASE("joint limit: the lower bound pushes the other way, and the rotor rattles between") {
  // Spinning backwards with damping from both bounds: it rattles between them, slower after each
  // bounce, every switch logged in on/off pairs.
  std::string scene = rotor_scene(200.0, 2.0);
  scene.replace(scene.find("velocity: 2.0"), 13, "velocity: -3.0");
  auto run = testing::run_scene(load_scene_text(scene, "rotor.yaml", {"simulation.stop_time=20"}));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const std::vector<EventRecord> records = limit_records(*run);
  REQUIRE(records.size() >= 4);
  CHECK(records[0].limit_side == "lower");
  CHECK(records[0].t == relative(1.0 / 3.0, 1e-9));
  for (std::size_t i = 0; i < records.size(); ++i) {
    CHECK(records[i].kind ==
          (i % 2 == 0 ? EventRecord::Kind::limit_on : EventRecord::Kind::limit_off));
  }
  // Inside the bounds, or past one by at most the deepest penetration of a bounce at the
  // starting speed, omega0 / sqrt(k / I) = 3 / 31.6 rad (every later bounce is slower).
  const JointCoordinate q = run->system->compute_joint_coordinates(run->final_state)[0];
  CHECK(q.position >= -1.0 - 0.095);
  CHECK(q.position <= 0.5 + 0.095);
  CHECK(std::abs(q.velocity) < 3.0 * 0.64 * 0.64);  // at least two bounces, each 0.64 or less
}

TEST_CASE("joint limit: bad limits are load errors naming the key") {
  const auto fails = [](const std::string& limit, const std::string& message) {
    CAPTURE(limit);
    std::string scene = rotor_scene(200.0, 2.0);
    const std::size_t at = scene.find("limit: {");
    scene.replace(at, scene.find('}', at) - at + 1, "limit: " + limit);
    CHECK_THROWS_WITH_AS(load_scene_text(scene, "rotor.yaml"), doctest::Contains(message.c_str()),
                         InputError);
  };
  // Messages name the file, the key path and the value (models/yaml_reader.cpp).
  fails("{stiffness: 1}", "key 'joints[0].limit.upper' (not given): give lower, upper or both");
  fails("{lower: 0.5, upper: 0.5, stiffness: 1}",
        "key 'joints[0].limit.upper' = 0.5: must be above lower (0.5)");
  fails("{lower: -1, upper: 3.2, stiffness: 1}",
        "key 'joints[0].limit.upper' = 3.2: 3.2 rad: a revolute");
  // One bound on a revolute joint: its angle wraps at +-pi, so the bound would be met from the
  // far side after a turn, deep in.
  fails("{upper: 0.5, stiffness: 1}",
        "key 'joints[0].limit.lower' (not given): is required on a revolute joint");
  fails("{lower: -1, upper: 0.5}", "joints[0].limit.stiffness");
  fails("{lower: -1, upper: 0.5, stiffness: 1, damping: -1}",
        "key 'joints[0].limit.damping' = -1: must not be negative");
  fails("{lower: -1, upper: 0.5, stiffness: 1, friction: 2}", "friction");
  // An ideal velocity servo holds the rate against any effort: the limit could not stop it.
  std::string servo = rotor_scene(200.0, 2.0);
  servo.replace(servo.find("    limit:"), 0, "    servo: {velocity: 1.0, ideal: true}\n");
  CHECK_THROWS_WITH_AS(load_scene_text(servo, "rotor.yaml"),
                       doctest::Contains("key 'joints[0].limit'"), InputError);
}

TEST_CASE("joint limit: a slider starting on its bound under gravity settles at m g / k") {
  // A 1 kg slider on a vertical prismatic joint starts at rest exactly on its lower bound (q = 0),
  // gravity pressing it in. Its crossing function is 0 at the start, which the root finder never
  // reports, so the side must push from the start. Inside, p = -q obeys m p'' = m g - k p - c p'
  // from rest: p = (m g / k) (1 - exp(-a t) (cos(wd t) + (a / wd) sin(wd t))), a = c / (2 m),
  // wd = sqrt(k / m - a^2); it never comes back to the bound (damping ratio 0.5: the overshoot is
  // exp(-pi a / wd) = 16% of m g / k, so p stays positive and the side never lets go).
  const double mass = 1.0, g = 9.81, k = 1000.0, c = std::sqrt(k * mass);
  const std::string scene = fmt::format(R"(
gravity: [0, 0, -{}]
simulation: {{stop_time: 0.4, integrator: cvode-bdf, rtol: 1.0e-11, atol: 1.0e-13,
              output_interval: 0.01}}
bodies:
  - {{name: ground, fixed: true}}
  - {{name: slider, mass: {}, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}}
joints:
  - {{name: rail, type: prismatic, parent: ground, child: slider, anchor: [0, 0, 0],
     axis: [0, 0, 1], limit: {{lower: 0.0, upper: 1.0, stiffness: {}, damping: {}}}}}
)",
                                        g, mass, k, c);
  auto run = testing::run_scene(load_scene_text(scene, "slider.yaml"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(limit_records(*run).empty() == false);
  const double a = c / (2.0 * mass), wd = std::sqrt(k / mass - a * a), t = 0.4;
  const double p_reference =
      mass * g / k * (1.0 - std::exp(-a * t) * (std::cos(wd * t) + a / wd * std::sin(wd * t)));
  const JointCoordinate q = run->system->compute_joint_coordinates(run->final_state)[0];
  // rtol 1e-11 over a few hundred steps of a smooth linear oscillator: 1e-7 relative. Without the
  // limit pushing from the start the slider would have fallen g t^2 / 2 = 0.78 m.
  CHECK(-q.position == relative(p_reference, 1e-7));
  // No switch off: the damped oscillation stays inside the limit.
  for (const EventRecord& record : limit_records(*run)) {
    CHECK(record.kind == EventRecord::Kind::limit_on);
  }
}

}  // namespace
}  // namespace hybridsim
