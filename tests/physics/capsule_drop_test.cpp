// The bouncing-capsules scene end to end: the upright capsule's first impact against free fall,
// its rebound against the restitution, energy that never increases, contact bookkeeping, and the
// lower capsule at rest lying on the floor.
#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "approx.hpp"
#include "hybridsim/simulator.hpp"
#include "models/scene_loader.hpp"

namespace hybridsim {
namespace {

TEST_CASE("bouncing capsules: free fall, restitution, energy and bookkeeping") {
  // Energy is read between advances: the elastic energy counts the pairs in contact at that time.
  Simulator simulator(load_scene_file("bouncing_capsules"));
  std::vector<double> energies{simulator.energy()};
  for (int k = 1; k <= 300; ++k) {
    REQUIRE(simulator.advance_to(0.01 * k).status == SimulationStatus::ok);
    energies.push_back(simulator.energy());
  }
  std::vector<EventRecord> records;
  for (const EventRecord& r : simulator.events()) {
    if (r.kind == EventRecord::Kind::contact_start || r.kind == EventRecord::Kind::contact_end) {
      records.push_back(r);
    }
  }
  const double g = 9.81, h = 0.5, e = 0.5;

  // Upright capsule: its lower cap starts h = 0.7 - 0.15 - 0.05 = 0.5 m above the floor.
  std::vector<EventRecord> upright;
  for (const EventRecord& r : records) {
    if (r.pair_b == "upright/capsule") upright.push_back(r);
  }
  REQUIRE(upright.size() >= 4);
  // rtol 1e-8 over the fall: 1e-7 relative.
  CHECK(upright[0].kind == EventRecord::Kind::contact_start);
  CHECK(upright[0].t == testing::relative(std::sqrt(2 * h / g), 1e-7));
  CHECK(upright[0].pre_impact_velocity == testing::relative(std::sqrt(2 * g * h), 1e-7));
  // The next impact speed is e v- up to the impulse of gravity during the contact (g T_c with
  // T_c the measured contact duration, on each side of it): |v2 - e v1| <= 2 g T_c.
  REQUIRE(upright[1].kind == EventRecord::Kind::contact_end);
  const double contact_time = upright[1].t - upright[0].t;
  CHECK(contact_time > 0.0);
  CHECK(contact_time < 1e-3);
  CHECK(std::abs(upright[2].pre_impact_velocity - e * upright[0].pre_impact_velocity) <=
        2.0 * g * contact_time);

  // Energy (kinetic + potential + elastic) never increases between outputs beyond the
  // integration error (rtol 1e-8 on states of order 1: 1e-6 of the initial energy).
  const double initial = energies.front();
  double energy_before = initial;
  for (const double energy : energies) {
    CHECK(energy <= energy_before + 1e-6 * initial);
    energy_before = energy;
  }
  CHECK(energy_before < initial);

  // Bookkeeping: per pair, starts and ends alternate, starting with a start.
  std::map<std::string, int> open;
  for (const EventRecord& r : records) {
    const std::string pair = r.pair_a + " " + r.pair_b;
    if (r.kind == EventRecord::Kind::contact_start) {
      CHECK(open[pair] == 0);
      open[pair] = 1;
    } else {
      CHECK(open[pair] == 1);
      open[pair] = 0;
    }
  }
  CHECK(open["lower/capsule upper/capsule"] == 0);  // the upper one has rolled off

  // The lower capsule rests lying on the floor: centre r above it, less a Hertz penetration of
  // microns (1e-3 relative), axis horizontal.
  const BodyState lower = simulator.body_state("lower");
  CHECK(lower.linear_velocity_W.norm() < 1e-6);
  CHECK(lower.position_W.z() == testing::relative(0.05, 1e-3));
  CHECK(std::abs((lower.orientation_WB * Vec3::UnitZ()).z()) < 1e-6);
}

}  // namespace
}  // namespace hybridsim
