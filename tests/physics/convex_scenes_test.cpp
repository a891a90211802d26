// Catalog scenes whose pairs go through the general convex narrowphase (GJK, libccd's MPR and
// the translated refinement): an ellipsoid dropped on a sphere and a tilted cube dropped corner
// first on a slab.
// Each falls freely to its first contact, which the closed form of free fall times; after it,
// the bookkeeping and the energy are checked.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "test_support.hpp"

namespace hybridsim {
namespace {

constexpr double g = 9.81;

// Runs catalog scene `name`, whose moving body's lowest point starts `height` m above the point
// it first touches: the first contact starts at sqrt(2 h / g) with v- = g t and normal `normal`.
// The event is located on distance + 3 eps = 0 (eps = 1e-13 m) to the root finder's tolerance at
// rtol 1e-10, far inside 1e-9 s; v- is the integrated velocity, 1e-7 relative.
void check_drop(const std::string& name, double height, const Vec3& normal_W) {
  auto run = testing::run_scene(load_scene_file(name));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto records = run->recorder.contact_records();
  REQUIRE(records.size() >= 2);
  const double expected = std::sqrt(2.0 * height / g);
  CHECK(records[0].kind == EventRecord::Kind::contact_start);
  CHECK(records[0].t == doctest::Approx(expected).epsilon(1e-9));
  CHECK(records[0].pre_impact_velocity == doctest::Approx(g * expected).epsilon(1e-7));
  CHECK((records[0].normal_W - normal_W).norm() < 1e-9);
  // Each start is followed by its end: the body bounces off.
  for (std::size_t i = 0; i + 1 < records.size(); i += 2) {
    CHECK(records[i].kind == EventRecord::Kind::contact_start);
    CHECK(records[i + 1].kind == EventRecord::Kind::contact_end);
  }
  // Energy never rises (1e-6 J: the integration error of the contact phases at rtol 1e-10).
  REQUIRE(!run->recorder.output_energies.empty());
  double lowest = run->recorder.output_energies.front();
  for (const double energy : run->recorder.output_energies) {
    CHECK(energy <= lowest + 1e-6);
    lowest = std::min(lowest, energy);
  }
}

TEST_CASE("ellipsoid on a sphere: first contact at sqrt(2 h / g), bounces, energy never rises") {
  // models/scenes/ellipsoid_on_sphere.yaml: the ellipsoid's lowest point 0.3 m above the
  // sphere's top, both on the vertical axis; the sphere is A (fixed body first), the normal up.
  check_drop("ellipsoid_on_sphere", 0.3, Vec3::UnitZ());
}

TEST_CASE("box on box: a tilted cube's lowest corner first touches at sqrt(2 h / g), normal up") {
  // models/scenes/box_on_box.yaml: centre 0.35 m high, half edge 0.05 m; the lowest corner sits
  // 0.05 sum_j |R_zj| below the centre, the slab's top at 0.1 m.
  const Model model = load_scene_file("box_on_box");
  const Mat3 R = model.bodies[model.find_body("cube")].q_WB.toRotationMatrix();
  const double reach = 0.05 * R.row(2).cwiseAbs().sum();
  check_drop("box_on_box", 0.35 - 0.1 - reach, Vec3::UnitZ());
}

}  // namespace
}  // namespace hybridsim
