// The scale scenes of the catalog: a 10 x 10 grid of spheres settling on a floor (every sphere
// the same single-contact problem, so each is checked against the static Hertz depth) and 100
// spheres poured into a box (chaotic: checked on invariants, energy, containment and event
// bookkeeping), and the first landings of the pile of 1,000.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace hybridsim {
namespace {

// The free bodies' positions in state x, by body index.
Vec3 body_position(const Model& model, int body, const VectorX& x) {
  return x.segment<3>(model.bodies[body].state_offset);
}

TEST_CASE("grid 10 x 10: every sphere settles at the static Hertz depth, 100 starts, no end") {
  const Model model = load_scene_file("grid_10x10");
  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts == 100);
  CHECK(run->result.contact_ends == 0);
  // Steel (models/materials.yaml: 7850 kg/m^3, E = 2e11, nu = 0.3), r = 0.05 against a
  // half-space: r_geo = r. 1e-3: the height 0.05 m is integrated to rtol 1e-8, 5e-10 m, 1e-3 of
  // the 1.3 um depth.
  const double radius = 0.05;
  const double mass = 7850.0 * 4.0 / 3.0 * std::numbers::pi * radius * radius * radius;
  const double c_res = 2.0e11 / (2.0 * (1.0 - 0.3 * 0.3));
  const double depth = std::pow(mass * 9.81 / (c_res * 4.0 / 3.0 * std::sqrt(radius)), 2.0 / 3.0);
  int balls = 0;
  for (std::size_t i = 0; i < model.bodies.size(); ++i) {
    if (model.bodies[i].fixed) continue;
    const int o = model.bodies[i].state_offset;
    CHECK((radius - run->final_state[o + 2]) == doctest::Approx(depth).epsilon(1e-3));
    CHECK(run->final_state.segment<3>(o + 7).norm() < 1e-6);
    ++balls;
  }
  CHECK(balls == 100);
  double lowest = run->recorder.output_energies.front();
  for (const double energy : run->recorder.output_energies) {
    CHECK(energy <= lowest + 1e-9);  // 100 x the 1e-11 J integration error of one sphere
    lowest = std::min(lowest, energy);
  }
}

TEST_CASE("pile of 100: energy never rises, every sphere stays in the box, events alternate") {
  // The first 0.16 s: the lowest layer lands at 0.128 s and the pile forms under the next ones
  // (about 300 contact starts); the whole scene takes about a minute (BENCHMARKS.md).
  const Model model = load_scene_file("pile_100", {"simulation.stop_time=0.16"});
  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts > 100);  // every sphere lands, many collide

  // Energy: no inputs, dissipative contacts. 1e-5 J of about 3 J: the integration error of the
  // contacts at rtol 1e-6.
  double lowest = run->recorder.output_energies.front();
  for (const double energy : run->recorder.output_energies) {
    CHECK(energy <= lowest + 1e-5);
    lowest = std::min(lowest, energy);
  }
  // Containment: inside walls at |x|, |y| <= 0.15 and the floor at z = 0, less the radius, with
  // the Hertz depth (micrometres) as slack: 1e-4 m.
  for (const VectorX& x : run->recorder.output_states) {
    for (std::size_t i = 0; i < model.bodies.size(); ++i) {
      if (model.bodies[i].fixed) continue;
      const Vec3 p = body_position(model, static_cast<int>(i), x);
      CHECK(std::abs(p.x()) <= 0.15 - 0.02 + 1e-4);
      CHECK(std::abs(p.y()) <= 0.15 - 0.02 + 1e-4);
      CHECK(p.z() >= 0.02 - 1e-4);
    }
  }
  // Bookkeeping: per pair, starts and ends alternate, beginning with a start.
  std::map<std::string, EventRecord::Kind> last_kind;
  for (const EventRecord& record : run->recorder.contact_records()) {
    const std::string pair = record.pair_a + "|" + record.pair_b;
    const auto previous = last_kind.find(pair);
    if (previous == last_kind.end()) {
      CHECK(record.kind == EventRecord::Kind::contact_start);
    } else {
      CHECK(record.kind != previous->second);
    }
    last_kind[pair] = record.kind;
  }
}

TEST_CASE("pile of 1,000: the first landing at sqrt(2 h / g), momentum as gravity says before it") {
  // Up to 0.126 s: 1,000 spheres fall freely, and the lowest ones (drops of 76 to 84 mm with the
  // lattice's jitter) begin to land on the floor. The whole second is a benchmark.
  const Model model = load_scene_file("pile_1000", {"simulation.stop_time=0.126"});
  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const VectorX& x0 = run->recorder.output_states.front();
  double lowest_drop = 1e9, mass = 0.0;
  int balls = 0;
  for (std::size_t i = 0; i < model.bodies.size(); ++i) {
    if (model.bodies[i].fixed) continue;
    lowest_drop = std::min(lowest_drop, body_position(model, static_cast<int>(i), x0).z() - 0.02);
    mass += model.bodies[i].mass;
    ++balls;
  }
  CHECK(balls == 1000);
  const std::vector<EventRecord> records = run->recorder.contact_records();
  REQUIRE(!records.empty());
  CHECK(records.front().kind == EventRecord::Kind::contact_start);
  // The located root lies within rtol's reach of the crossing: 1e-6 relative.
  CHECK(records.front().t == doctest::Approx(std::sqrt(2.0 * lowest_drop / 9.81)).epsilon(1e-6));
  // Before the first contact every sphere falls freely: sum m v = M g t (1e-9 of M g t; BDF
  // integrates the constant acceleration exactly).
  for (std::size_t k = 0; k < run->recorder.output_times.size(); ++k) {
    const double t = run->recorder.output_times[k];
    if (t >= records.front().t) break;
    Vec3 momentum = Vec3::Zero();
    for (std::size_t i = 0; i < model.bodies.size(); ++i) {
      if (model.bodies[i].fixed) continue;
      const int o = model.bodies[i].state_offset;
      momentum += model.bodies[i].mass * run->recorder.output_states[k].segment<3>(o + 7);
    }
    CHECK((momentum - mass * model.gravity_W * t).norm() <= 1e-9 * mass * 9.81 * t + 1e-12);
  }
}

}  // namespace
}  // namespace hybridsim
