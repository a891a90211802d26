// No spurious events: the demo's contact starts do not depend on the tolerance, and no pair has
// two events closer than 1e-9 s (each impact of the demo lasts ~0.5 ms, each flight >= 2 ms).
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <map>

#include "test_support.hpp"

namespace hybridsim {
namespace {

void check_no_close_events(const std::vector<EventRecord>& records) {
  std::map<std::string, double> last_time;
  for (const EventRecord& record : records) {
    const std::string pair = record.pair_a + "|" + record.pair_b;
    if (last_time.contains(pair)) CHECK(record.t - last_time[pair] > 1e-9);
    last_time[pair] = record.t;
  }
}

TEST_CASE("demo: the contact starts are the same from rtol 1e-6 to 1e-10, with both methods") {
  // v_k = e^k v0 (minus a small gravity loss) falls below v_small = 0.01 m/s at the 16th impact,
  // which is then fully damped: 16 starts, whatever the tolerance.
  for (const char* integrator : {"cvode-bdf", "cvode-adams"}) {
    for (const double rtol : {1e-6, 1e-7, 1e-8, 1e-9, 1e-10}) {
      CAPTURE(integrator);
      CAPTURE(rtol);
      const auto run = testing::run_scene(
          load_scene_file("bouncing_sphere", {fmt::format("simulation.rtol={}", rtol)}),
          integrator);
      REQUIRE(run->result.status == SimulationStatus::ok);
      CHECK(run->result.contact_starts == 16);
      CHECK(run->result.contact_ends == 15);
      check_no_close_events(run->recorder.contact_records());
    }
  }
}

TEST_CASE("two spheres hitting the ground and each other: events per pair are well separated") {
  const auto run = testing::run_scene(load_scene_text(R"(
simulation: {stop_time: 3.0, rtol: 1.0e-8, output_interval: 0.1}
materials: {Steel: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}
contact_materials: [{pair: [Steel, Steel], restitution: 0.8, friction: {mu_kinetic: 0.3}}]
bodies:
  - {name: ground, fixed: true, shapes: [{type: halfspace, material: Steel}]}
  - name: a
    position: [0, 0, 0.5]
    linear_velocity: [1, 0, 0]
    shapes: [{type: sphere, radius: 0.1, material: Steel}]
  - name: b
    position: [0.6, 0, 0.3]
    linear_velocity: [-1, 0, 0]
    shapes: [{type: sphere, radius: 0.1, material: Steel}]
)",
                                                      "two_spheres"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto records = run->recorder.contact_records();
  bool spheres_met = false;
  for (const EventRecord& record : records) spheres_met |= record.pair_a == "a/0";
  CHECK(spheres_met);
  check_no_close_events(records);
}

}  // namespace
}  // namespace hybridsim
