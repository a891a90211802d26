// The reduced KLU solver (integrators/reduced_klu_solver.hpp) against a dense LU of the same
// matrix: eliminating the local states and factorising the Schur complement is exact algebra, so
// the solutions agree to round-off. The matrices are diagonally dominant (each diagonal entry
// exceeds its row's other entries' sum), so their condition numbers are small and a relative
// residual of 1e-12 leaves a margin of about a thousand over double round-off.
#include <doctest/doctest.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "integrators/block_jacobian.hpp"
#include "integrators/reduced_klu_solver.hpp"

namespace hybridsim {
namespace {

// Blocks of free-body size (13 states, the first 7 local; the last of them coupled to nothing),
// one of 5 states with 2 local and one of 3 with none.
struct Layout {
  std::vector<int> block_of_state;
  std::vector<char> local;
};

Layout test_layout() {
  Layout layout;
  auto add_block = [&layout](int id, int size, int locals) {
    for (int k = 0; k < size; ++k) {
      layout.block_of_state.push_back(id);
      layout.local.push_back(k < locals ? char{1} : char{0});
    }
  };
  for (int id = 0; id < 4; ++id) add_block(id, 13, 7);
  add_block(4, 5, 2);
  add_block(5, 3, 0);
  add_block(6, 13, 7);
  return layout;
}

// The kept states: 6 of each free body's 13, 3 of the 5-state block's, all 3 of the
// 3-state block's.
constexpr std::size_t kKeptStates = 5 * 6 + 3 + 3;

// One test's solver on test_layout() coupled by `pairs`, with the SUNDIALS objects it needs: the
// context, the CSC matrix in the Jacobian's pattern and two vectors (all freed at the end, also
// when a REQUIRE stops the test).
struct Fixture {
  Layout layout = test_layout();
  BlockJacobian jacobian;
  SUNContext context = nullptr;
  SUNMatrix matrix = nullptr;
  N_Vector x = nullptr, b = nullptr;
  SUNLinearSolver solver = nullptr;

  explicit Fixture(const std::vector<std::pair<int, int>>& pairs, Layout given = test_layout())
      : layout(std::move(given)) {
    SUNContext_Create(nullptr, &context);
    const auto n = static_cast<sunindextype>(layout.block_of_state.size());
    x = N_VNew_Serial(n, context);
    b = N_VNew_Serial(n, context);
    REQUIRE(jacobian.assign_blocks(layout.block_of_state, pairs, layout.local));
    new_matrix();
    solver = new_reduced_klu_solver(jacobian, layout.local, true, context);
  }
  // New couplings: a new pattern for the Jacobian, the matrix and the solver.
  void couple(const std::vector<std::pair<int, int>>& pairs) {
    REQUIRE(jacobian.assign_blocks(layout.block_of_state, pairs, layout.local));
    reduced_klu_new_pattern(solver);
    new_matrix();
  }
  void new_matrix() {
    if (matrix != nullptr) SUNMatDestroy(matrix);
    const int n = jacobian.state_count();
    matrix = SUNSparseMatrix(n, n, jacobian.nonzero_count(), CSC_MAT, context);
    jacobian.write_pattern(SM_INDEXPTRS_S(matrix), SM_INDEXVALS_S(matrix));
  }
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;
  ~Fixture() {
    if (solver != nullptr) SUNLinSolFree(solver);
    if (matrix != nullptr) SUNMatDestroy(matrix);
    N_VDestroy(x);
    N_VDestroy(b);
    SUNContext_Free(&context);
  }
};

// Random values in the matrix's pattern, diagonally dominant; returns the dense copy.
Eigen::MatrixXd fill_dominant(SUNMatrix matrix, std::mt19937& random) {
  const auto n = static_cast<Eigen::Index>(SM_COLUMNS_S(matrix));
  std::uniform_real_distribution<double> entry(-1.0, 1.0);
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index column = 0; column < n; ++column) {
    for (sunindextype k = SM_INDEXPTRS_S(matrix)[column]; k < SM_INDEXPTRS_S(matrix)[column + 1];
         ++k) {
      dense(SM_INDEXVALS_S(matrix)[k], column) = entry(random);
    }
  }
  for (Eigen::Index row = 0; row < n; ++row) {
    dense(row, row) = 1.0 + dense.row(row).cwiseAbs().sum();
  }
  for (Eigen::Index column = 0; column < n; ++column) {
    for (sunindextype k = SM_INDEXPTRS_S(matrix)[column]; k < SM_INDEXPTRS_S(matrix)[column + 1];
         ++k) {
      SM_DATA_S(matrix)[k] = dense(SM_INDEXVALS_S(matrix)[k], column);
    }
  }
  return dense;
}

// Solves A x = b with the solver and returns |A x - b| / |b| from the dense copy of A.
double relative_residual(Fixture& fixture, const Eigen::MatrixXd& dense, std::mt19937& random) {
  const auto n = dense.rows();
  std::uniform_real_distribution<double> entry(-1.0, 1.0);
  Eigen::Map<Eigen::VectorXd> b(N_VGetArrayPointer(fixture.b), n);
  for (Eigen::Index i = 0; i < n; ++i) b[i] = entry(random);
  REQUIRE(SUNLinSolSolve(fixture.solver, fixture.matrix, fixture.x, fixture.b, 0.0) ==
          SUNLS_SUCCESS);
  const Eigen::Map<const Eigen::VectorXd> x(N_VGetArrayPointer(fixture.x), n);
  // The dense LU's own solution as a second check of the same answer.
  const Eigen::VectorXd reference = dense.partialPivLu().solve(b);
  CHECK((x - reference).norm() <= 1e-12 * reference.norm());
  return (dense * x - b).norm() / b.norm();
}

// Solves A x = b in place (x and b the same vector) and returns the error against the dense LU.
double in_place_error(Fixture& fixture, const Eigen::MatrixXd& dense) {
  const auto n = dense.rows();
  Eigen::Map<Eigen::VectorXd> x(N_VGetArrayPointer(fixture.x), n);
  x = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0);
  const Eigen::VectorXd reference = dense.partialPivLu().solve(x);
  REQUIRE(SUNLinSolSolve(fixture.solver, fixture.matrix, fixture.x, fixture.x, 0.0) ==
          SUNLS_SUCCESS);
  return (x - reference).norm() / reference.norm();
}

TEST_CASE("reduced klu: solves like a dense LU, after refactorisations and a new pattern") {
  std::vector<std::pair<int, int>> pairs{{0, 1}, {1, 2}, {2, 4}, {3, 5}};
  Fixture fixture(pairs);
  std::mt19937 random(20261125);

  // First setup: analysis and a factorisation with pivoting.
  Eigen::MatrixXd dense = fill_dominant(fixture.matrix, random);
  REQUIRE(SUNLinSolSetup(fixture.solver, fixture.matrix) == SUNLS_SUCCESS);
  CHECK(reduced_klu_size(fixture.solver) == kKeptStates);  // the local states were eliminated
  CHECK(relative_residual(fixture, dense, random) < 1e-12);
  // New values in the same pattern: a refactorisation with the same pivots.
  dense = fill_dominant(fixture.matrix, random);
  REQUIRE(SUNLinSolSetup(fixture.solver, fixture.matrix) == SUNLS_SUCCESS);
  CHECK(relative_residual(fixture, dense, random) < 1e-12);
  CHECK(in_place_error(fixture, dense) < 1e-12);

  // A new coupling (block 0 with block 3, and the 3-state block with the 5-state one).
  pairs.emplace_back(0, 3);
  pairs.emplace_back(5, 4);
  fixture.couple(pairs);
  dense = fill_dominant(fixture.matrix, random);
  REQUIRE(SUNLinSolSetup(fixture.solver, fixture.matrix) == SUNLS_SUCCESS);
  CHECK(relative_residual(fixture, dense, random) < 1e-12);
}

TEST_CASE("reduced klu: a singular matrix is a recoverable failure, and the solver recovers") {
  Fixture fixture({{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}});
  std::mt19937 random(7);
  const Eigen::MatrixXd dense = fill_dominant(fixture.matrix, random);
  REQUIRE(SUNLinSolSetup(fixture.solver, fixture.matrix) == SUNLS_SUCCESS);

  double* values = SM_DATA_S(fixture.matrix);
  const std::span<const std::int64_t> column_start = fixture.jacobian.column_starts();
  auto zero_column = [&](int column) {
    std::vector<double> saved(values + column_start[column], values + column_start[column + 1]);
    std::fill(values + column_start[column], values + column_start[column + 1], 0.0);
    return saved;
  };
  auto restore_column = [&](int column, const std::vector<double>& saved) {
    std::copy(saved.begin(), saved.end(), values + column_start[column]);
  };
  // A local column of zeros: that block's A_LL is singular.
  const std::vector<double> local_saved = zero_column(3);
  CHECK(SUNLinSolSetup(fixture.solver, fixture.matrix) == SUNLS_LUFACT_FAIL);
  restore_column(3, local_saved);
  // A kept column of zeros: the Schur complement is singular (the refactorisation fails, and so
  // does the factorisation with pivoting that follows).
  const std::vector<double> kept_saved = zero_column(13 + 9);
  CHECK(SUNLinSolSetup(fixture.solver, fixture.matrix) == SUNLS_LUFACT_FAIL);
  restore_column(13 + 9, kept_saved);
  // The next setup factorises again and solves as before.
  REQUIRE(SUNLinSolSetup(fixture.solver, fixture.matrix) == SUNLS_SUCCESS);
  CHECK(relative_residual(fixture, dense, random) < 1e-12);
}

TEST_CASE("reduced klu: 40 free bodies factorise in dense blocks and solve like a dense LU") {
  // 40 free bodies (13 states, 7 local) in a ring with chords: past the 32 blocks where the
  // solver factorises the Schur complement in 6 x 6 blocks instead of with KLU.
  Layout layout;
  constexpr int kBodies = 40;
  for (int id = 0; id < kBodies; ++id) {
    for (int k = 0; k < 13; ++k) {
      layout.block_of_state.push_back(id);
      layout.local.push_back(k < 7 ? char{1} : char{0});
    }
  }
  std::vector<std::pair<int, int>> pairs;
  for (int id = 0; id < kBodies; ++id) pairs.emplace_back(id, (id + 1) % kBodies);
  for (int id = 0; id < kBodies; id += 5) pairs.emplace_back(id, (id + 17) % kBodies);
  Fixture fixture(pairs, layout);
  std::mt19937 random(40);
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    const Eigen::MatrixXd dense = fill_dominant(fixture.matrix, random);
    REQUIRE(SUNLinSolSetup(fixture.solver, fixture.matrix) == SUNLS_SUCCESS);
    CHECK(reduced_klu_used_blocks(fixture.solver));
    CHECK(reduced_klu_size(fixture.solver) == 6 * kBodies);
    CHECK(relative_residual(fixture, dense, random) < 1e-12);
    CHECK(in_place_error(fixture, dense) < 1e-12);
  }
  // A new pattern, analysed again.
  pairs.emplace_back(3, 30);
  fixture.couple(pairs);
  const Eigen::MatrixXd dense = fill_dominant(fixture.matrix, random);
  REQUIRE(SUNLinSolSetup(fixture.solver, fixture.matrix) == SUNLS_SUCCESS);
  CHECK(reduced_klu_used_blocks(fixture.solver));
  CHECK(relative_residual(fixture, dense, random) < 1e-12);

  // The test layout's 7 blocks (below 32, and one keeps 3 states): KLU.
  Fixture small({{0, 1}});
  fill_dominant(small.matrix, random);
  REQUIRE(SUNLinSolSetup(small.solver, small.matrix) == SUNLS_SUCCESS);
  CHECK_FALSE(reduced_klu_used_blocks(small.solver));
}

}  // namespace
}  // namespace hybridsim
