// The run's warnings (HybridSystem::start_warnings, event_warnings and the loop's energy check),
// each on a case where it must fire, against the closed form that says when; catalog scenes
// never raise one (checked by testing::run_scene on every catalog run of the suite).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "test_support.hpp"

namespace hybridsim {
namespace {

// A 1 kg ball (steel, r = 0.031 m) above a steel plate, with the given contact law and start.
std::string ball_scene(const std::string& law, double height, const std::string& simulation) {
  return fmt::format(R"(
name: warning_ball
simulation: {}
materials:
  Steel: {{density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}
contact_materials:
  - {{pair: [Steel, Steel], {}}}
bodies:
  - name: ground
    fixed: true
    shapes:
      - {{name: plate, type: box, size: [4, 4, 0.1], position: [0, 0, -0.05], material: Steel}}
  - name: ball
    position: [0, 0, {}]
    mass: 1.0
    inertia: [4.0e-4, 4.0e-4, 4.0e-4, 0, 0, 0]
    shapes:
      - {{name: sphere, type: sphere, radius: 0.031, material: Steel}}
)",
                     simulation, law, height);
}

std::vector<Warning> of_kind(const testing::Recorder& recorder, const std::string& kind) {
  std::vector<Warning> found;
  for (const Warning& warning : recorder.warnings) {
    if (warning.kind == kind) found.push_back(warning);
  }
  return found;
}

}  // namespace

TEST_CASE("warnings: energy_rise fires when explicit Euler's free fall gains n m g^2 h^2 / 2") {
  // Explicit Euler on free fall: z_{n+1} = z_n + v_n h, v_{n+1} = v_n - g h, so each step adds
  // m g^2 h^2 / 2 to the energy. The tolerance is 1e-3 m g (1 m), reached after
  // n = 2e-3 / (g h^2) = 203.9 steps of h = 1e-3 s: the first output after 0.2039 s is 0.21 s.
  const Model model = load_scene_text(
      ball_scene("restitution: 0.5", 10.0,
                 "{stop_time: 0.5, integrator: euler, step_size: 1.0e-3, output_interval: 0.01}"),
      "euler_fall.yaml");
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto rises = of_kind(run->recorder, "energy_rise");
  REQUIRE(rises.size() == 1);  // said once
  CHECK(rises[0].t == doctest::Approx(0.21).epsilon(1e-12));
  // The same fall with CVODE at its default tolerance: no rise.
  const auto exact = testing::run_scene(
      load_scene_text(ball_scene("restitution: 0.5", 10.0, "{stop_time: 0.5}"), "cvode_fall.yaml"));
  CHECK(exact->recorder.warnings.empty());
}

TEST_CASE("warnings: stiff_contact fires for a law whose static deflection is below atol") {
  // Linear law kp = 1e12 N/m under m g = 9.81 N: a deflection of 9.81e-12 m, below atol 1e-8 m.
  // With kp = 1e6 N/m it is 9.81e-6 m, resolved: no warning.
  const auto stiff = testing::run_scene(load_scene_text(
      ball_scene("normal_law: linear, kp: 1.0e12, kd: 2.0e5", 0.04, "{stop_time: 0.1}"),
      "stiff.yaml"));
  const auto warnings = of_kind(stiff->recorder, "stiff_contact");
  REQUIRE(warnings.size() == 1);  // once per contact material
  CHECK(warnings[0].message.find("ball/sphere") != std::string::npos);
  CHECK(warnings[0].message.find("9.81e-12") != std::string::npos);
  REQUIRE(stiff->result.contact_starts >= 1);
  CHECK(warnings[0].t == stiff->recorder.contact_records().front().t);

  const auto soft = testing::run_scene(load_scene_text(
      ball_scene("normal_law: linear, kp: 1.0e6, kd: 2.0e3", 0.04, "{stop_time: 0.1}"),
      "soft.yaml"));
  REQUIRE(soft->result.contact_starts >= 1);
  CHECK(of_kind(soft->recorder, "stiff_contact").empty());
}

TEST_CASE("warnings: initial_overlap names the pair and its depth") {
  // The ball's centre 0.026 m above the plate's top: 5 mm inside.
  const auto run = testing::run_scene(
      load_scene_text(ball_scene("restitution: 0.5", 0.026, "{stop_time: 0.01}"), "overlap.yaml"));
  const auto overlaps = of_kind(run->recorder, "initial_overlap");
  REQUIRE(overlaps.size() == 1);
  CHECK(overlaps[0].t == 0.0);
  CHECK(overlaps[0].message.find("ground/plate and ball/sphere overlap by 0.005 m") !=
        std::string::npos);
}

TEST_CASE("warnings: degenerate_mesh reaches the run's warnings with the count skipped") {
  // A floor of two triangles, one of them on a line (vertices 0, 1 and 3 collinear: zero area).
  // The loader skips it; the run reports it once, at the start, under its own kind.
  const std::string scene = R"(
name: degenerate_floor
simulation: {stop_time: 0.01}
materials:
  Steel: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}
contact_materials:
  - {pair: [Steel, Steel], restitution: 0.5}
bodies:
  - name: ground
    fixed: true
    shapes:
      - {name: floor, type: mesh, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [2, 0, 0]], triangles: [[0, 1, 2], [0, 1, 3]], material: Steel}
  - name: ball
    position: [0.2, 0.2, 0.5]
    shapes:
      - {name: sphere, type: sphere, radius: 0.031, material: Steel}
)";
  const auto run = testing::run_scene(load_scene_text(scene, "degenerate_floor.yaml"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  REQUIRE(run->recorder.warnings.size() == 1);
  CHECK(run->recorder.warnings[0].kind == "degenerate_mesh");
  CHECK(run->recorder.warnings[0].t == 0.0);
  CHECK(run->recorder.warnings[0].message.find("1 degenerate triangles skipped") !=
        std::string::npos);
}

}  // namespace hybridsim
