// Mechanisms with many joints, where the constraint solver factorises G M^-1 G^T sparsely:
//  - the sparse and the dense factorisation give the same derivatives, multipliers and
//    projections on every jointed scene of the catalog (loops with redundant rows included);
//  - a rod of 60 links welded together (fixed joints) and hinged at its top swings as one rigid
//    compound pendulum: its period is 4 sqrt(I_O / (M g d)) K(sin(theta0 / 2)).
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "core/constraint_solver.hpp"
#include "physics/pendulum_reference.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

Model with_factorization(Model model, ConstraintFactorization factorization) {
  model.simulation.constraint_factorization = factorization;
  return model;
}

double largest_difference(const VectorX& a, const VectorX& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

// A straight rod of `links` point-like links (0.1 kg, 1e-5 kg m^2) spaced 20 mm apart below a
// hinge about x at the origin, each welded to the one above; released at `angle`.
std::string welded_rod_scene(int links, double angle) {
  std::string scene = fmt::format(R"(name: welded_rod
simulation: {{stop_time: 2.5, rtol: 1.0e-10, atol: 1.0e-12}}
bodies:
  - {{name: ground, fixed: true}}
)");
  std::string joints = fmt::format(
      "joints:\n  - {{name: hinge, type: revolute, parent: ground, child: link0, anchor: [0, 0, "
      "0], axis: [1, 0, 0], initial: {{position: {:.17g}}}}}\n",
      angle);
  for (int i = 0; i < links; ++i) {
    scene += fmt::format(
        "  - {{name: link{}, mass: 0.1, inertia: [1.0e-5, 1.0e-5, 1.0e-5, 0, 0, 0], position: "
        "[0, 0, {:.17g}]}}\n",
        i, -0.02 * (i + 1));
    if (i > 0) {
      joints += fmt::format(
          "  - {{name: weld{}, type: fixed, parent: link{}, child: link{}, anchor: [0, 0, "
          "{:.17g}]}}\n",
          i, i - 1, i, -0.02 * (i + 0.5));
    }
  }
  return scene + joints;
}

TEST_CASE("constraint solver: the sparse factorisation gives the dense solution") {
  // Both solve the same regularised system with iterative refinement, to round-off times the
  // condition number: measured 1e-14 or less, except the projection of the slider-crank, whose
  // loop makes A singular: there the two factorisations resolve the null space at the level of
  // the 1e-10 regularisation (measured 2.7e-10). 1e-9 bounds both.
  // The catalog's jointed scenes, and a 20-link welded rod (119 rows), whose fill-reducing
  // ordering is far from the natural one.
  std::vector<Model> models;
  for (const char* scene : {"pendulum", "double_pendulum", "slider_crank", "newtons_cradle",
                            "newtons_cradle_touching", "prismatic_bounce"}) {
    models.push_back(load_scene_file(scene));
  }
  models.push_back(load_scene_text(welded_rod_scene(20, 0.3), "welded_rod.yaml"));
  for (const Model& loaded : models) {
    CAPTURE(loaded.name);
    const Model dense = with_factorization(loaded, ConstraintFactorization::dense);
    const Model sparse = with_factorization(loaded, ConstraintFactorization::sparse);
    CHECK(ConstraintSolver(dense).storage() == ConstraintMatrix::Storage::dense);
    CHECK(ConstraintSolver(sparse).storage() == ConstraintMatrix::Storage::sparse);
    MultibodySystem dense_system(dense), sparse_system(sparse);
    const int n = dense_system.state_size();
    VectorX x_dense(n), x_sparse(n);
    dense_system.initial_state(x_dense);
    // Off the manifold: positions and velocities disturbed by up to 1e-3 (m, -, m/s, rad/s), so
    // that the projection has work to do.
    std::mt19937 random(7);
    std::uniform_real_distribution<double> disturbance(-1e-3, 1e-3);
    for (int i = 0; i < n; ++i) x_dense[i] += disturbance(random);
    x_sparse = x_dense;
    dense_system.initialize(0.0, x_dense);
    sparse_system.initialize(0.0, x_sparse);
    CHECK(largest_difference(x_sparse, x_dense) < 1e-9);
    CHECK(dense_system.compute_constraint_error(x_dense).position < 1e-12);
    CHECK(sparse_system.compute_constraint_error(x_sparse).position < 1e-12);

    VectorX xdot_dense(n), xdot_sparse(n);
    dense_system.compute_derivatives(0.0, x_dense, xdot_dense);
    sparse_system.compute_derivatives(0.0, x_dense, xdot_sparse);
    CHECK(largest_difference(xdot_sparse, xdot_dense) < 1e-9);
    const int m = dense_system.algebraic_size();
    VectorX lambda_dense(m), lambda_sparse(m);
    dense_system.guess_algebraic(0.0, x_dense, lambda_dense);
    sparse_system.guess_algebraic(0.0, x_dense, lambda_sparse);
    CHECK(largest_difference(lambda_sparse, lambda_dense) < 1e-9);
    // The DAE residual at the same (x, lambda, x', 0): it includes the regularisation that
    // redundant rows get, so this also checks that both detect redundancy alike.
    VectorX y(n + m), yp(n + m), residual_dense(n + m), residual_sparse(n + m);
    y << x_dense, lambda_dense;
    yp << xdot_dense, VectorX::Zero(m);
    dense_system.compute_residual(0.0, y, yp, residual_dense);
    sparse_system.compute_residual(0.0, y, yp, residual_sparse);
    CHECK(largest_difference(residual_sparse, residual_dense) < 1e-9);
  }
}

TEST_CASE("welded rod of 60 links: the period of one rigid compound pendulum, sparse solver") {
  const int links = 60;
  const double theta0 = std::numbers::pi / 2.0, g = 9.81;
  const Model model = load_scene_text(welded_rod_scene(links, theta0), "welded_rod.yaml");
  // 59 welds of 6 rows and a hinge of 5: far above the dense range.
  const ConstraintSolver solver(model);
  REQUIRE(solver.row_count() == 59 * 6 + 5);
  CHECK(solver.storage() == ConstraintMatrix::Storage::sparse);

  // The rigid rod: I_O = sum (I_xx + m z_i^2) about the hinge, and M d = sum m z_i.
  double inertia_hinge = 0.0, first_moment = 0.0;
  for (int i = 0; i < links; ++i) {
    const double z = 0.02 * (i + 1);
    inertia_hinge += 1e-5 + 0.1 * z * z;
    first_moment += 0.1 * z;
  }
  const double period = 4.0 * std::sqrt(inertia_hinge / (g * first_moment)) *
                        testing::complete_elliptic_k(std::sin(theta0 / 2.0));

  // Adams: the motion is smooth and not stiff, and without a Jacobian the 780 states cost no
  // dense linear algebra in the integrator (cvode-bdf gives the same period in 70 times the
  // wall time, nearly all of it in CVODE's dense LU of the 780 x 780 Newton matrix).
  auto run = testing::run_scene(model, "cvode-adams", 1e-3);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const std::vector<double> crossings =
      testing::zero_crossings(testing::joint_history(*run, model.find_joint("hinge")));
  REQUIRE(crossings.size() == 2);  // at T/4 and 3T/4 within 2.5 s (T = 2.1 s)
  // rtol 1e-10 over ~1,200 steps of smooth motion: the crossing times carry the global error,
  // measured 1.6e-10 relative (cvode-bdf: 4e-9); 1e-8 bounds both.
  CHECK(crossings[0] == testing::relative(period / 4.0, 1e-8));
  CHECK(crossings[1] - crossings[0] == testing::relative(period / 2.0, 1e-8));
  // The welds hold: every link stays in place (measured 3e-12 m).
  CHECK(run->system->compute_constraint_error(run->final_state).position < 1e-9);
}

}  // namespace
}  // namespace hybridsim
