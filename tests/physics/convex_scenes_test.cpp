// Catalog scenes whose pairs go through the general convex narrowphase (GJK, libccd's MPR and
// the translated refinement): an ellipsoid dropped on a sphere and a tilted cube dropped corner
// first on a slab.
// Each falls freely to its first contact, which the closed form of free fall times; after it,
// the bookkeeping and the energy are checked.
#include <doctest/doctest.h>

#include "test_support.hpp"

namespace hybridsim {
namespace {

TEST_CASE("ellipsoid on a sphere: first contact at sqrt(2 h / g), bounces, energy never rises") {
  // models/scenes/ellipsoid_on_sphere.yaml: the ellipsoid's lowest point 0.3 m above the
  // sphere's top, both on the vertical axis; the sphere is A (fixed body first), the normal up.
  testing::check_drop_and_bounce(load_scene_file("ellipsoid_on_sphere"), 0.3, Vec3::UnitZ());
}

TEST_CASE("box on box: a tilted cube's lowest corner first touches at sqrt(2 h / g), normal up") {
  // models/scenes/box_on_box.yaml: centre 0.35 m high, half edge 0.05 m; the lowest corner sits
  // 0.05 sum_j |R_zj| below the centre, the slab's top at 0.1 m.
  const Model model = load_scene_file("box_on_box");
  const Mat3 R = model.bodies[model.find_body("cube")].q_WB.toRotationMatrix();
  const double reach = 0.05 * R.row(2).cwiseAbs().sum();
  testing::check_drop_and_bounce(model, 0.35 - 0.1 - reach, Vec3::UnitZ());
}

}  // namespace
}  // namespace hybridsim
