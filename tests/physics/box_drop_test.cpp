// A steel box dropped flat and tilted on a steel floor comes to rest: finitely many events, none
// in the last second, the box still and resting on a face at the static penetration.
// One contact point per pair (seed 002) carries no resistance to spin about the normal, which a
// real face has from friction spread over its area: torsional friction stands in for it, else a
// box that lands with spin keeps turning (0.02 rad/s here without it).
#include <doctest/doctest.h>

#include <cmath>

#include <fmt/format.h>

#include "test_support.hpp"

namespace hybridsim {
namespace {

Model box_drop(const std::string& orientation, double height) {
  return load_scene_text(fmt::format(R"(
simulation: {{stop_time: 4.0, rtol: 1.0e-8, output_interval: 0.01}}
materials: {{Steel: {{density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}}}
contact_materials:
  - pair: [Steel, Steel]
    restitution: 0.5
    friction: {{model: regularized_coulomb, mu_kinetic: 0.4, v_small: 0.01}}
    torsional_friction: 0.1
bodies:
  - {{name: ground, fixed: true, shapes: [{{type: halfspace, material: Steel}}]}}
  - name: box
    position: [0, 0, {}]
    orientation: {{rpy: {}}}
    shapes: [{{type: box, size: [0.2, 0.16, 0.1], material: Steel}}]
)",
                                     height, orientation),
                         "box_drop");
}

void check_comes_to_rest(const Model& model) {
  const auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto records = run->recorder.contact_records();
  CAPTURE(records.size());
  REQUIRE(!records.empty());
  CHECK(records.size() < 200);  // finitely many events, no chattering
  CHECK(records.back().t < model.simulation.stop_time - 1.0);  // none in the last second
  const int offset = run->model.bodies[1].state_offset;
  const VectorX& x = run->final_state;
  CHECK(x.segment<3>(offset + 7).norm() < 1e-6);   // m/s
  CHECK(x.segment<3>(offset + 10).norm() < 1e-5);  // rad/s
  // Resting on its largest face: the body z axis is vertical and the centre is 0.05 m up, less
  // a penetration of the order of microns.
  const Quat q(x[offset + 3], x[offset + 4], x[offset + 5], x[offset + 6]);
  CHECK(std::abs((q.normalized() * Vec3::UnitZ()).z()) == testing::relative(1.0, 1e-6));
  CHECK(x[offset + 2] == testing::relative(0.05, 1e-3));
  CHECK(x[offset + 2] < 0.05);
}

TEST_CASE("box dropped flat onto the ground comes to rest") {
  check_comes_to_rest(box_drop("[0, 0, 0]", 0.3));
}

TEST_CASE("box dropped tilted onto the ground comes to rest on a face") {
  check_comes_to_rest(box_drop("[0.25, 0.15, 0.4]", 0.4));
}

}  // namespace
}  // namespace hybridsim
