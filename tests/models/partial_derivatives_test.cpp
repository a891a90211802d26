// MultibodySystem's partial right-hand sides (HybridSystem::compute_partial_derivatives), which the
// coloured difference quotients of a pile's Jacobian use instead of full evaluations.
//  - A cube of 27 spheres pressed into each other and the floor (every neighbour in contact,
//    sliding and spinning, with rolling resistance), and a two-sphere body on top: perturbing any
//    one state, the partial evaluation gives the rows of that body and of the bodies in contact
//    with it equal to the full evaluation's, bit for bit, and writes no other row.
//  - The whole block Jacobian by coloured quotients, once with full and once with partial
//    evaluations: the same values, bit for bit (the partial path changes the cost only).
//  - Scenes with joints decline (their evaluations stay full).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/rigid_body.hpp"
#include "integrators/block_jacobian.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

// 27 steel spheres (r = 0.02 m) on a 3 x 3 x 3 lattice with spacing 0.0399 m (1e-4 m into each
// neighbour), the bottom layer 1e-5 m into the floor, all moving and spinning, and a body of two
// spheres resting 1e-4 m into two of the top layer.
Model pressed_cube() {
  const std::string text =
      testing::steel_materials(
          0.5,
          "    friction: {model: regularized_coulomb, mu_kinetic: 0.3, v_small: 0.01}\n"
          "    rolling_resistance: 0.001\n") +
      "bodies:\n"
      "  - name: floor\n    fixed: true\n"
      "    shapes: [{type: box, size: [1, 1, 0.05], position: [0, 0, -0.025], material: Steel}]\n"
      "  - name: ball\n    position: [-0.0399, -0.0399, 0.01999]\n"
      "    linear_velocity: [0.1, -0.05, -0.2]\n    angular_velocity: [3, -2, 1]\n"
      "    array: {counts: [3, 3, 3], spacing: [0.0399, 0.0399, 0.0399]}\n"
      "    shapes: [{type: sphere, radius: 0.02, material: Steel}]\n"
      "  - name: dumbbell\n    position: [-0.01995, -0.0399, 0.13969]\n"
      "    angular_velocity: [0, 0, 5]\n"
      "    shapes:\n"
      "      - {type: sphere, radius: 0.02, position: [-0.01995, 0, 0], material: Steel}\n"
      "      - {type: sphere, radius: 0.02, position: [0.01995, 0, 0], material: Steel}\n";
  return load_scene_text(text, "pressed_cube");
}

// The system at its initial state with its contacts found, its blocks and coupled pairs.
struct Cube {
  Cube() : model(pressed_cube()), system(model), x(system.state_size()), block(model.state_size) {
    system.initial_state(x);
    system.initialize(0.0, x);
    system.state_blocks(block, pairs);
    local.resize(block.size());
    system.local_states(local);
  }
  bool coupled(int p, int q) const {
    if (p == q) return true;
    for (const auto& [a, b] : pairs) {
      if ((a == p && b == q) || (a == q && b == p)) return true;
    }
    return false;
  }
  Model model;
  MultibodySystem system;
  VectorX x;
  std::vector<int> block;
  std::vector<std::pair<int, int>> pairs;
  std::vector<char> local;
};

TEST_CASE("partial derivatives: one perturbed state, the rows it reaches bit for bit") {
  Cube cube;
  const auto n = static_cast<int>(cube.x.size());
  // 54 sphere-sphere contacts in the lattice, 2 under the two-sphere body (the floor couples no
  // blocks): the coupling is there to be tested.
  REQUIRE(cube.pairs.size() == 56);

  int rows_written_most = 0;
  for (int j = 0; j < n; ++j) {
    VectorX x_perturbed = cube.x;
    x_perturbed[j] += 1e-6 * (1.0 + std::abs(cube.x[j]));
    VectorX full(n);
    cube.system.compute_derivatives(0.0, x_perturbed, full);

    REQUIRE(cube.system.prepare_partial_derivatives(0.0, cube.x));
    VectorX partial = VectorX::Constant(n, std::numeric_limits<double>::quiet_NaN());
    const int perturbed[] = {j};
    cube.system.compute_partial_derivatives(0.0, x_perturbed, perturbed, partial);
    int rows_written = 0;
    for (int i = 0; i < n; ++i) {
      if (cube.coupled(cube.block[i], cube.block[j])) {
        CHECK(partial[i] == full[i]);  // NaN (not written) fails too
      }
      if (!std::isnan(partial[i])) ++rows_written;
    }
    // The body and its neighbours (at most six spheres and the two-sphere body), never all.
    CHECK(rows_written <= 8 * kFreeBodyStateSize);
    rows_written_most = std::max(rows_written_most, rows_written);
  }
  CHECK(rows_written_most >= 4 * kFreeBodyStateSize);  // a sphere inside the lattice
}

TEST_CASE("partial derivatives: the coloured Jacobian equals the full evaluations' bit for bit") {
  Cube cube;
  const auto n = static_cast<int>(cube.x.size());
  BlockJacobian jacobian;
  jacobian.assign_blocks(cube.block, cube.pairs, cube.local);
  // A lattice needs several colours (distance-2): several bodies perturbed per evaluation.
  CHECK(jacobian.colour_count() > 2 * kFreeBodyStateSize);
  CHECK(jacobian.colour_count() < 28 * kFreeBodyStateSize);

  VectorX fy(n), f_perturbed(n), weight(n);
  cube.system.compute_derivatives(0.0, cube.x, fy);
  for (int i = 0; i < n; ++i) weight[i] = 1.0 / (1e-6 * std::abs(cube.x[i]) + 1e-9);
  const auto size = static_cast<std::size_t>(jacobian.nonzero_count());
  std::vector<double> full(size), partial(size);

  auto full_rhs = [&](double t, const double* y, double* f, std::span<const int>) {
    Eigen::Map<VectorX> out(f, n);
    cube.system.compute_derivatives(t, Eigen::Map<const VectorX>(y, n), out);
    return 0;
  };
  REQUIRE(jacobian.compute(0.0, 1e-5, cube.x.data(), fy.data(), weight.data(), f_perturbed.data(),
                           full.data(), full_rhs) == 0);

  REQUIRE(cube.system.prepare_partial_derivatives(0.0, cube.x));
  int evaluations = 0;
  auto partial_rhs = [&](double t, const double* y, double* f, std::span<const int> perturbed) {
    ++evaluations;
    Eigen::Map<VectorX> out(f, n);
    cube.system.compute_partial_derivatives(t, Eigen::Map<const VectorX>(y, n), perturbed, out);
    return 0;
  };
  f_perturbed.setConstant(std::numeric_limits<double>::quiet_NaN());
  REQUIRE(jacobian.compute(0.0, 1e-5, cube.x.data(), fy.data(), weight.data(), f_perturbed.data(),
                           partial.data(), partial_rhs) == 0);
  CHECK(evaluations == jacobian.colour_count());
  CHECK(partial == full);
  // The contacts do enter: some entry outside the diagonal blocks is not zero.
  int nonzero = 0;
  for (double value : full) nonzero += value != 0.0 ? 1 : 0;
  CHECK(nonzero > n * kFreeBodyStateSize / 2);
}

TEST_CASE("partial derivatives: scenes with joints evaluate in full") {
  // The double pendulum's links are jointed (their accelerations come from one constraint
  // solve); the billiard balls are free.
  for (const auto& entry : {std::pair{"double_pendulum", false}, std::pair{"billiards_16", true}}) {
    // Not a structured binding: clang 14 cannot capture one in a lambda (CAPTURE does).
    const auto& scene = std::get<0>(entry);
    const auto& supported = std::get<1>(entry);
    CAPTURE(scene);
    const Model model = load_scene_file(scene);
    MultibodySystem system(model);
    VectorX x(system.state_size());
    system.initial_state(x);
    system.initialize(0.0, x);
    CHECK(system.prepare_partial_derivatives(0.0, x) == supported);
  }
}

}  // namespace
}  // namespace hybridsim
