#include "integrators/reduced_klu_solver.hpp"

#include <klu.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <vector>

#include "integrators/block_jacobian.hpp"
#include "integrators/block_lu.hpp"

namespace hybridsim {
namespace {

using KluIndex = SuiteSparse_long;

// One block's elimination: which of its states are local and which kept, where their rows sit
// among the rows of each of the block's columns (all its columns have the same rows), and, from
// the last setup, A_LL^-1, W = A_LL^-1 A_LK and a row-major copy of A_KL.
struct BlockElimination {
  std::vector<int> local_states;     // ascending
  std::vector<int> kept_states;      // ascending
  std::vector<int> local_row_slots;  // per local state: its row's slot in the block's columns
  std::vector<int> kept_row_slots;   // the slots of the kept rows (own and coupled blocks')
  std::vector<KluIndex> kept_row_in_reduced;  // per kept row: its index in S
  std::vector<double> local_inverse;          // A_LL^-1, local × local, row-major
  std::vector<double> coupling;               // W, local × kept, column-major
  std::vector<double> kept_from_local;        // A_KL, kept rows × local, row-major
};

double dot(const double* a, const double* b, std::size_t size) {
  double sum = 0.0;
  for (std::size_t k = 0; k < size; ++k) sum += a[k] * b[k];
  return sum;
}

// A_LL^-1 into inverse by Gauss-Jordan elimination with partial pivoting of matrix (A_LL; both
// row-major, size x size; matrix is overwritten); false if A_LL is singular or a result is not
// finite. Hand-written: Eigen's inverse of a 7 x 7 goes through its blocked triangular solver and
// matrix product, made for larger matrices (4% of a 1,000-sphere pile's profile together; this
// loop costs 1-2% less per step on pile_100, BENCHMARKS.md).
bool invert_local_block(double* matrix, std::size_t size, double* inverse) {
  std::fill(inverse, inverse + size * size, 0.0);
  for (std::size_t k = 0; k < size; ++k) inverse[k * size + k] = 1.0;
  for (std::size_t k = 0; k < size; ++k) {
    std::size_t pivot_row = k;
    for (std::size_t r = k + 1; r < size; ++r) {
      if (std::abs(matrix[r * size + k]) > std::abs(matrix[pivot_row * size + k])) pivot_row = r;
    }
    if (matrix[pivot_row * size + k] == 0.0) return false;
    if (pivot_row != k) {
      std::swap_ranges(matrix + k * size, matrix + (k + 1) * size, matrix + pivot_row * size);
      std::swap_ranges(inverse + k * size, inverse + (k + 1) * size, inverse + pivot_row * size);
    }
    const double scale = 1.0 / matrix[k * size + k];
    for (std::size_t c = k; c < size; ++c) matrix[k * size + c] *= scale;
    for (std::size_t c = 0; c < size; ++c) inverse[k * size + c] *= scale;
    for (std::size_t r = 0; r < size; ++r) {
      const double factor = matrix[r * size + k];
      if (r == k || factor == 0.0) continue;
      for (std::size_t c = k; c < size; ++c) matrix[r * size + c] -= factor * matrix[k * size + c];
      for (std::size_t c = 0; c < size; ++c)
        inverse[r * size + c] -= factor * inverse[k * size + c];
    }
  }
  return std::all_of(inverse, inverse + size * size, [](double v) { return std::isfinite(v); });
}

class ReducedKlu {
 public:
  ReducedKlu(const BlockJacobian& jacobian, std::span<const char> local_states, bool allow_block_lu)
      : jacobian_(jacobian), local_states_(local_states), allow_block_lu_(allow_block_lu) {
    klu_l_defaults(&common_);
    // AMD on the symmetrised pattern, as for the full matrix before (cvode_integrator.cpp).
    common_.ordering = 0;
    // No row scaling: it costs a pass over S at every refactorisation (5% of a 1,000-sphere
    // pile's run) and changes no pivot of I - gamma J, whose diagonal dominates (the pile's
    // counters were identical with and without it); the condition test below still guards.
    common_.scale = -1;
  }
  ReducedKlu(const ReducedKlu&) = delete;
  ReducedKlu& operator=(const ReducedKlu&) = delete;
  ~ReducedKlu() { free_factors(); }

  std::size_t reduced_size() const { return kept_states_.size(); }
  bool used_blocks() const { return using_block_lu_; }
  void new_pattern() {
    free_factors();
    planned_ = false;
    using_block_lu_ = false;
  }
  int setup(SUNMatrix a);
  // Needs nothing of A beyond what the last setup kept.
  int solve(N_Vector x, N_Vector b);

 private:
  bool is_local(int state) const {
    return !local_states_.empty() && local_states_[static_cast<std::size_t>(state)] != 0;
  }
  void plan();
  // A block's A_LL^-1, W and A_KL, and its columns of S; false if A_LL is singular.
  bool reduce_block(BlockElimination& block, const double* values);
  int factor_with_pivoting();
  void free_factors() {
    if (numeric_ != nullptr) klu_l_free_numeric(&numeric_, &common_);
    if (symbolic_ != nullptr) klu_l_free_symbolic(&symbolic_, &common_);
  }

  const BlockJacobian& jacobian_;
  std::span<const char> local_states_;
  bool planned_ = false;
  std::vector<BlockElimination> blocks_;
  std::vector<int> eliminating_blocks_;     // the blocks with local states
  std::vector<KluIndex> reduced_of_state_;  // -1 for a local state
  std::vector<int> kept_states_;            // per index of S: the state
  std::vector<KluIndex> s_column_start_, s_row_index_;
  std::vector<double> s_values_, s_rhs_;
  std::size_t largest_local_count_ = 0;
  std::vector<double> local_matrix_, local_values_, local_solution_;  // scratch, per block
  // The dense-block factorisation (integrators/block_lu.hpp) where every block keeps six
  // states and there are enough of them; KLU where it declines a matrix, and for the rest.
  void plan_block_lu();
  bool block_mode_ = false;
  bool allow_block_lu_ = true;  // false: KLU always (linear_solver "klu-plain")
  bool using_block_lu_ = false;
  BlockLu block_lu_;
  std::vector<std::size_t> s_entry_in_blocks_;  // per entry of S: its place in block_lu_.values()
  std::vector<std::size_t> reduced_in_blocks_;  // per index of S: node * 6 + its state's offset
  std::vector<double> block_rhs_;
  klu_l_common common_{};
  klu_l_symbolic* symbolic_ = nullptr;
  klu_l_numeric* numeric_ = nullptr;
};

void ReducedKlu::plan() {
  const int n = jacobian_.state_count();
  reduced_of_state_.assign(static_cast<std::size_t>(n), -1);
  kept_states_.clear();
  for (int state = 0; state < n; ++state) {
    if (is_local(state)) continue;
    reduced_of_state_[state] = static_cast<KluIndex>(kept_states_.size());
    kept_states_.push_back(state);
  }

  const int block_count = jacobian_.block_count();
  blocks_.resize(static_cast<std::size_t>(block_count));
  eliminating_blocks_.clear();
  largest_local_count_ = 0;
  std::vector<int> block_of_state(static_cast<std::size_t>(n), 0);
  for (int b = 0; b < block_count; ++b) {
    BlockElimination& block = blocks_[b];
    block.local_states.clear();
    block.kept_states.clear();
    block.local_row_slots.clear();
    block.kept_row_slots.clear();
    block.kept_row_in_reduced.clear();
    for (int state : jacobian_.block_states(b)) {
      block_of_state[state] = b;
      (is_local(state) ? block.local_states : block.kept_states).push_back(state);
    }
    const std::span<const int> rows = jacobian_.block_rows(b);
    for (std::size_t slot = 0; slot < rows.size(); ++slot) {
      if (is_local(rows[slot])) {
        block.local_row_slots.push_back(static_cast<int>(slot));
      } else {
        block.kept_row_slots.push_back(static_cast<int>(slot));
        block.kept_row_in_reduced.push_back(reduced_of_state_[rows[slot]]);
      }
    }
    // A local row in another block's columns would depend on that block: not local after all.
    if (block.local_row_slots.size() != block.local_states.size()) {
      throw std::logic_error("reduced KLU: a local state's row depends on another block");
    }
    const std::size_t locals = block.local_states.size();
    const std::size_t kept = block.kept_states.size();
    if (locals == 0) continue;
    eliminating_blocks_.push_back(b);
    block.local_inverse.assign(static_cast<std::size_t>(locals * locals), 0.0);
    block.coupling.assign(static_cast<std::size_t>(locals * kept), 0.0);
    block.kept_from_local.assign(block.kept_row_slots.size() * locals, 0.0);
    largest_local_count_ = std::max(largest_local_count_, static_cast<std::size_t>(locals));
  }
  local_matrix_.assign(largest_local_count_ * largest_local_count_, 0.0);
  local_values_.assign(largest_local_count_, 0.0);
  local_solution_.assign(largest_local_count_, 0.0);

  // S's columns: a kept state's column has its block's kept rows, ascending in S as in A.
  const auto reduced_count = static_cast<KluIndex>(kept_states_.size());
  s_column_start_.assign(static_cast<std::size_t>(reduced_count) + 1, 0);
  s_row_index_.clear();
  for (KluIndex column = 0; column < reduced_count; ++column) {
    const BlockElimination& block = blocks_[block_of_state[kept_states_[column]]];
    s_row_index_.insert(s_row_index_.end(), block.kept_row_in_reduced.begin(),
                        block.kept_row_in_reduced.end());
    s_column_start_[column + 1] = static_cast<KluIndex>(s_row_index_.size());
  }
  s_values_.assign(s_row_index_.size(), 0.0);
  s_rhs_.assign(static_cast<std::size_t>(reduced_count), 0.0);
  plan_block_lu();
  planned_ = true;
}

void ReducedKlu::plan_block_lu() {
  // Below some 32 bodies KLU's factors hardly fill in and its scalar loops cost little; the
  // dense blocks pay where a pile's contacts make a mesh of them (BENCHMARKS.md).
  constexpr std::size_t kMinimumNodes = 32;
  constexpr auto kSize = static_cast<std::size_t>(BlockLu::kBlockSize);
  block_mode_ = false;
  using_block_lu_ = false;
  std::vector<int> node_of_block(blocks_.size(), -1);
  int nodes = 0;
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const std::size_t kept = blocks_[b].kept_states.size();
    if (kept == 0) continue;
    if (kept != kSize) return;
    node_of_block[b] = nodes++;
  }
  if (static_cast<std::size_t>(nodes) < kMinimumNodes || !allow_block_lu_) return;
  reduced_in_blocks_.assign(kept_states_.size(), 0);
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    for (std::size_t j = 0; j < blocks_[b].kept_states.size(); ++j) {
      reduced_in_blocks_[reduced_of_state_[blocks_[b].kept_states[j]]] =
          static_cast<std::size_t>(node_of_block[b]) * kSize + j;
    }
  }
  std::vector<std::vector<int>> neighbours(static_cast<std::size_t>(nodes));
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    if (node_of_block[b] < 0) continue;
    const int node = node_of_block[b];
    for (const KluIndex row : blocks_[b].kept_row_in_reduced) {
      const auto other = static_cast<int>(reduced_in_blocks_[row] / kSize);
      if (other != node && (neighbours[node].empty() || neighbours[node].back() != other)) {
        neighbours[node].push_back(other);
      }
    }
  }
  block_lu_.analyse(neighbours);
  s_entry_in_blocks_.assign(s_row_index_.size(), 0);
  for (std::size_t column = 0; column < kept_states_.size(); ++column) {
    const std::size_t column_place = reduced_in_blocks_[column];
    for (auto p = s_column_start_[column]; p < s_column_start_[column + 1]; ++p) {
      const std::size_t row_place = reduced_in_blocks_[s_row_index_[p]];
      s_entry_in_blocks_[p] = block_lu_.block_offset(static_cast<int>(row_place / kSize),
                                                     static_cast<int>(column_place / kSize)) +
                              row_place % kSize + kSize * (column_place % kSize);
    }
  }
  block_rhs_.assign(static_cast<std::size_t>(nodes) * kSize, 0.0);
  block_mode_ = true;
}

int ReducedKlu::factor_with_pivoting() {
  if (numeric_ != nullptr) klu_l_free_numeric(&numeric_, &common_);
  const auto reduced_count = static_cast<KluIndex>(kept_states_.size());
  numeric_ = klu_l_factor(s_column_start_.data(), s_row_index_.data(), s_values_.data(), symbolic_,
                          &common_);
  if (numeric_ != nullptr || reduced_count == 0) return SUNLS_SUCCESS;
  // Singular: CVODE may retry with a smaller step (a recoverable failure).
  return common_.status == KLU_SINGULAR ? SUNLS_LUFACT_FAIL : SUNLS_PACKAGE_FAIL_UNREC;
}

bool ReducedKlu::reduce_block(BlockElimination& block, const double* values) {
  const std::size_t locals = block.local_states.size();
  const std::span<const std::int64_t> column_start = jacobian_.column_starts();
  const std::size_t kept = block.kept_states.size();
  if (locals > 0) {
    // A_LL^-1 and W = A_LL^-1 A_LK from the block's own columns.
    for (std::size_t i = 0; i < locals; ++i) {
      const double* column = values + column_start[block.local_states[i]];
      for (std::size_t r = 0; r < locals; ++r) {
        local_matrix_[r * locals + i] = column[block.local_row_slots[r]];
      }
    }
    if (!invert_local_block(local_matrix_.data(), locals, block.local_inverse.data())) {
      return false;
    }
    for (std::size_t j = 0; j < kept; ++j) {
      const double* column = values + column_start[block.kept_states[j]];
      for (std::size_t r = 0; r < locals; ++r) {
        local_values_[r] = column[block.local_row_slots[r]];
      }
      double* coupling_column = block.coupling.data() + j * locals;
      for (std::size_t i = 0; i < locals; ++i) {
        coupling_column[i] =
            dot(block.local_inverse.data() + i * locals, local_values_.data(), locals);
      }
    }
    // A_KL in rows, for the Schur complement here and the forward elimination of each solve.
    for (std::size_t i = 0; i < locals; ++i) {
      const double* local_column = values + column_start[block.local_states[i]];
      for (std::size_t m = 0; m < block.kept_row_slots.size(); ++m) {
        block.kept_from_local[m * locals + i] = local_column[block.kept_row_slots[m]];
      }
    }
  }
  // S's columns of this block: A_KK - A_KL W.
  const std::size_t kept_rows = block.kept_row_slots.size();
  for (std::size_t j = 0; j < kept; ++j) {
    const int state = block.kept_states[j];
    const double* column = values + column_start[state];
    double* reduced_column = s_values_.data() + s_column_start_[reduced_of_state_[state]];
    const double* coupling_column = block.coupling.data() + j * locals;
    for (std::size_t m = 0; m < kept_rows; ++m) {
      reduced_column[m] = column[block.kept_row_slots[m]] -
                          dot(block.kept_from_local.data() + m * locals, coupling_column, locals);
    }
  }
  return true;
}

int ReducedKlu::setup(SUNMatrix a) {
  if (!planned_) plan();
  const double* values = SM_DATA_S(a);
  for (BlockElimination& block : blocks_) {
    if (!reduce_block(block, values)) return SUNLS_LUFACT_FAIL;
  }

  const auto reduced_count = static_cast<KluIndex>(kept_states_.size());
  if (reduced_count == 0) return SUNLS_SUCCESS;
  if (block_mode_) {
    block_lu_.zero_values();
    const std::span<double> blocks = block_lu_.values();
    for (std::size_t p = 0; p < s_values_.size(); ++p) blocks[s_entry_in_blocks_[p]] = s_values_[p];
    using_block_lu_ = block_lu_.factor();
    if (using_block_lu_) return SUNLS_SUCCESS;
  }
  if (symbolic_ == nullptr) {
    symbolic_ = klu_l_analyze(reduced_count, s_column_start_.data(), s_row_index_.data(), &common_);
    if (symbolic_ == nullptr) return SUNLS_PACKAGE_FAIL_UNREC;
  }
  if (numeric_ == nullptr) return factor_with_pivoting();
  // Same pivots as the last factorisation; if they have become poor, pivot anew. SUNDIALS' KLU
  // module's test: the cheap reciprocal condition estimate (smallest over largest pivot) below
  // u^(2/3), confirmed by KLU's 1-norm condition estimate above u^(-2/3).
  if (klu_l_refactor(s_column_start_.data(), s_row_index_.data(), s_values_.data(), symbolic_,
                     numeric_, &common_) == 0) {
    return factor_with_pivoting();
  }
  const double rcond_floor = std::pow(std::numeric_limits<double>::epsilon(), 2.0 / 3.0);
  if (klu_l_rcond(symbolic_, numeric_, &common_) == 0) return factor_with_pivoting();
  if (common_.rcond < rcond_floor) {
    if (klu_l_condest(s_column_start_.data(), s_values_.data(), symbolic_, numeric_, &common_) ==
            0 ||
        common_.condest > 1.0 / rcond_floor) {
      return factor_with_pivoting();
    }
  }
  return SUNLS_SUCCESS;
}

int ReducedKlu::solve(N_Vector x, N_Vector b) {
  // Only after a successful setup of the current pattern (CVODE sets up first after a restart).
  if (!planned_ || (!kept_states_.empty() && numeric_ == nullptr && !using_block_lu_)) {
    return SUNLS_PACKAGE_FAIL_UNREC;
  }
  double* solution = N_VGetArrayPointer(x);
  const double* rhs = N_VGetArrayPointer(b);
  const auto n = static_cast<std::size_t>(jacobian_.state_count());
  if (solution != rhs) std::copy(rhs, rhs + n, solution);

  // Forwards: y_L = A_LL^-1 b_L (into x_L), then S's right-hand side b_K - A_KL y_L.
  for (std::size_t r = 0; r < kept_states_.size(); ++r) s_rhs_[r] = solution[kept_states_[r]];
  for (int b_index : eliminating_blocks_) {
    const BlockElimination& block = blocks_[b_index];
    const std::size_t locals = block.local_states.size();
    for (std::size_t r = 0; r < locals; ++r) local_values_[r] = solution[block.local_states[r]];
    for (std::size_t i = 0; i < locals; ++i) {
      local_solution_[i] =
          dot(block.local_inverse.data() + i * locals, local_values_.data(), locals);
      solution[block.local_states[i]] = local_solution_[i];
    }
    for (std::size_t m = 0; m < block.kept_row_slots.size(); ++m) {
      s_rhs_[block.kept_row_in_reduced[m]] -=
          dot(block.kept_from_local.data() + m * locals, local_solution_.data(), locals);
    }
  }
  const auto reduced_count = static_cast<KluIndex>(kept_states_.size());
  if (using_block_lu_) {
    for (std::size_t r = 0; r < s_rhs_.size(); ++r) block_rhs_[reduced_in_blocks_[r]] = s_rhs_[r];
    block_lu_.solve(block_rhs_);
    for (std::size_t r = 0; r < s_rhs_.size(); ++r) s_rhs_[r] = block_rhs_[reduced_in_blocks_[r]];
  } else if (reduced_count > 0 &&
             klu_l_solve(symbolic_, numeric_, reduced_count, 1, s_rhs_.data(), &common_) == 0) {
    return SUNLS_PACKAGE_FAIL_UNREC;
  }
  for (std::size_t r = 0; r < kept_states_.size(); ++r) solution[kept_states_[r]] = s_rhs_[r];
  // Back: x_L = y_L - W x_K.
  for (int b_index : eliminating_blocks_) {
    const BlockElimination& block = blocks_[b_index];
    const std::size_t locals = block.local_states.size();
    for (std::size_t i = 0; i < locals; ++i) local_solution_[i] = solution[block.local_states[i]];
    for (std::size_t j = 0; j < block.kept_states.size(); ++j) {
      const double kept_value = solution[block.kept_states[j]];
      const double* coupling_column = block.coupling.data() + j * locals;
      for (std::size_t i = 0; i < locals; ++i)
        local_solution_[i] -= coupling_column[i] * kept_value;
    }
    for (std::size_t i = 0; i < locals; ++i) solution[block.local_states[i]] = local_solution_[i];
  }
  return SUNLS_SUCCESS;
}

ReducedKlu* content(SUNLinearSolver solver) {
  return static_cast<ReducedKlu*>(solver->content);
}

SUNLinearSolver_Type get_type(SUNLinearSolver) {
  return SUNLINEARSOLVER_DIRECT;
}
SUNLinearSolver_ID get_id(SUNLinearSolver) {
  return SUNLINEARSOLVER_CUSTOM;
}

int setup(SUNLinearSolver solver, SUNMatrix a) {
  try {
    return content(solver)->setup(a);
  } catch (...) {
    return SUNLS_PACKAGE_FAIL_UNREC;
  }
}

int solve(SUNLinearSolver solver, SUNMatrix /*a*/, N_Vector x, N_Vector b, realtype /*tolerance*/) {
  return content(solver)->solve(x, b);
}

int free_solver(SUNLinearSolver solver) {
  if (solver == nullptr) return SUNLS_SUCCESS;
  delete content(solver);
  solver->content = nullptr;
  SUNLinSolFreeEmpty(solver);
  return SUNLS_SUCCESS;
}

}  // namespace

SUNLinearSolver new_reduced_klu_solver(const BlockJacobian& jacobian,
                                       std::span<const char> local_states, bool allow_block_lu,
                                       SUNContext context) {
  SUNLinearSolver solver = SUNLinSolNewEmpty(context);
  if (solver == nullptr) throw std::bad_alloc();
  solver->ops->gettype = get_type;
  solver->ops->getid = get_id;
  solver->ops->setup = setup;
  solver->ops->solve = solve;
  solver->ops->free = free_solver;
  try {
    solver->content = new ReducedKlu(jacobian, local_states, allow_block_lu);
  } catch (...) {
    SUNLinSolFreeEmpty(solver);
    throw;
  }
  return solver;
}

void reduced_klu_new_pattern(SUNLinearSolver solver) {
  content(solver)->new_pattern();
}

std::size_t reduced_klu_size(SUNLinearSolver solver) {
  return content(solver)->reduced_size();
}

bool reduced_klu_used_blocks(SUNLinearSolver solver) {
  return content(solver)->used_blocks();
}

}  // namespace hybridsim
