// Gazebo's friction rings as catalog scenes (models/scenes/friction_cone_ring.yaml and
// fdir1_ring.yaml) against their closed forms (physics/friction_ring_checks.hpp).
#include <doctest/doctest.h>

#include "physics/friction_ring_checks.hpp"

namespace hybridsim {
namespace {

TEST_CASE("friction_cone_ring: 160 boxes slide straight out at v0 - mu g t under the cone") {
  Model model = load_scene_file("friction_cone_ring");
  model.simulation.stop_time = 0.5;  // the catalog runs 1.5 s (2.6 s wall); the laws hold from 0
  testing::check_friction_cone_ring(*testing::run_scene(model));
}

TEST_CASE(
    "fdir1_ring: a body-fixed fdir1 with mu 100 and mu2 0 lets the boxes slide outward only") {
  testing::check_fdir1_ring(*testing::run_scene(load_scene_file("fdir1_ring")), 1e-4);
}

}  // namespace
}  // namespace hybridsim
