// A block-sparse Jacobian sparsity from the blocks of a HybridSystem and the pairs of blocks that
// interact, and its difference-quotient evaluation with few right-hand sides.
//
// HybridSystem::state_blocks puts the states in blocks (a free body, or bodies jointed together)
// whose derivatives depend on their own block and on the blocks paired with it (a contact). The
// Jacobian then has a dense sub-block for each block and each coupled pair. Two columns can be
// perturbed in one right-hand side when no row depends on both: their blocks are neither paired
// nor paired with a common third (a distance-2 colouring of the block graph, greedy). Colour c
// then perturbs the k-th state of every block of colour c at once, and a Jacobian takes, per
// colour, as many right-hand sides as that colour's largest block has states: 13 for free bodies
// that touch only fixed ones, a few times 13 for a pile where each body touches a few others,
// whatever the number of bodies.
//
// Independent of SUNDIALS: the pattern is written as compressed sparse columns into the caller's
// arrays, and the right-hand side is a callable.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace hybridsim {

class BlockJacobian {
 public:
  // Blocks of the states from a block id per state (any integers), and the pairs of block ids
  // that are coupled (either order; repeats and self pairs allowed). Returns true if the pattern
  // differs from the one before (a sparse factorisation's analysis must be redone).
  // local_rows (empty, or one entry per state): rows that depend on their own block only, which
  // the coupled blocks' columns leave out.
  bool assign_blocks(std::span<const int> block_of_state,
                     std::span<const std::pair<int, int>> coupled_blocks,
                     std::span<const char> local_rows = {});
  // Blocks without coupling: a block-diagonal Jacobian.
  bool assign_groups(std::span<const int> group_of_state) {
    return assign_blocks(group_of_state, {});
  }

  int state_count() const { return static_cast<int>(block_index_.size()); }
  int block_count() const { return static_cast<int>(block_states_.size()); }
  // Structural nonzeros: per block, its size times its states and its neighbours' non-local ones.
  std::int64_t nonzero_count() const { return nonzero_count_; }
  // Right-hand sides per Jacobian.
  int colour_count() const { return static_cast<int>(colour_columns_.size()); }
  // Per state j: the position of J(j, j) among the values (every block holds its own rows).
  std::span<const std::int64_t> diagonal_positions() const { return diagonal_position_; }

  // Per block: its states, and the rows of each of its columns (its own states and its coupled
  // blocks' non-local ones), both ascending.
  std::span<const int> block_states(int block) const { return block_states_[block]; }
  std::span<const int> block_rows(int block) const { return block_rows_[block]; }
  // Per state, and one past the last: where its column starts among the values.
  std::span<const std::int64_t> column_starts() const { return column_start_; }

  // Writes the compressed-sparse-column pattern: column_starts (state_count() + 1 entries) and
  // row_indices (nonzero_count() entries), rows ascending in each column. Index is the caller's
  // integer type (SUNDIALS's sunindextype).
  template <typename Index>
  void write_pattern(Index* column_starts, Index* row_indices) const;

  // The difference-quotient Jacobian J = df/dy at (t, y) with f(t, y) = fy, into values (in the
  // order of write_pattern). Increments follow CVODE's dense difference quotient: for state j,
  // max(sqrt(u) |y_j|, min_increment / weight_j), with min_increment = 1000 |h| u n ||fy||_wrms
  // (1 if fy is 0), u the unit round-off, h the current step and weight the error weights. The
  // increment is the representable difference (y_j + inc) - y_j, so that the quotient divides by
  // the step actually taken. y is perturbed in place and restored; f_perturbed is scratch of
  // length n. rhs(t, y, f, perturbed) returns 0 on success, anything else is returned at once;
  // perturbed lists the states that differ from the base point, and rhs needs to write only the
  // rows of their blocks and of the blocks coupled to them (HybridSystem's partial
  // evaluations). A quotient that is not finite returns 1.
  template <typename Rhs>
  int compute(double t, double h, double* y, const double* fy, const double* weight,
              double* f_perturbed, double* values, Rhs&& rhs);

  // Per state, the smallest increment of its difference quotient (default 0: CVODE's rule alone).
  // At rest the error weights of velocities are 1/atol and CVODE's rule then perturbs a velocity
  // (or a quaternion's vector part at the identity) by sqrt(u) atol, 1e-18 at atol 1e-10: the
  // forces of contact damping and regularised friction change by less than their rounding, the
  // quotient is noise and Newton fails (a resting tower of five boxes: 335,558 steps in 10 s);
  // a floor of sqrt(u) times the state's scale keeps the quotient accurate (852 steps).
  void set_increment_floor(std::span<const double> floor) {
    increment_floor_.assign(floor.begin(), floor.end());
  }

 private:
  // Per right-hand side: the columns it perturbs (no two of them share a row).
  std::vector<std::vector<int>> colour_columns_;
  std::vector<std::vector<int>> block_states_;   // per block: its states, ascending
  std::vector<std::vector<int>> block_rows_;     // per block: the rows of its columns, ascending
  std::vector<int> block_index_;                 // per state: its block (canonical numbering)
  std::vector<std::int64_t> column_start_;       // per state + 1: first value of its column
  std::vector<std::int64_t> diagonal_position_;  // per state: where its diagonal value sits
  std::vector<double> increment_;                // per state, scratch of compute()
  std::vector<double> increment_floor_;          // per state, or empty: none
  std::vector<double> saved_state_;              // per state, scratch of compute()
  std::int64_t nonzero_count_ = 0;
};

template <typename Index>
void BlockJacobian::write_pattern(Index* column_starts, Index* row_indices) const {
  const int n = state_count();
  for (int column = 0; column < n; ++column) {
    column_starts[column] = static_cast<Index>(column_start_[column]);
    Index* rows = row_indices + column_start_[column];
    for (int row : block_rows_[block_index_[column]]) *rows++ = static_cast<Index>(row);
  }
  column_starts[n] = static_cast<Index>(nonzero_count_);
}

template <typename Rhs>
int BlockJacobian::compute(double t, double h, double* y, const double* fy, const double* weight,
                           double* f_perturbed, double* values, Rhs&& rhs) {
  const int n = state_count();
  constexpr double kUnitRoundoff = 0x1p-52;
  constexpr double kMinIncrementFactor = 1000.0;
  const double sqrt_roundoff = std::sqrt(kUnitRoundoff);
  double sum_squares = 0.0;
  for (int i = 0; i < n; ++i) sum_squares += (fy[i] * weight[i]) * (fy[i] * weight[i]);
  const double fy_norm = n > 0 ? std::sqrt(sum_squares / n) : 0.0;
  const double min_increment =
      fy_norm != 0.0 ? kMinIncrementFactor * std::abs(h) * kUnitRoundoff * n * fy_norm : 1.0;

  for (const std::vector<int>& columns : colour_columns_) {
    // Perturb columns that share no row, evaluate once, restore.
    for (int j : columns) {
      saved_state_[j] = y[j];
      double wanted = std::max(sqrt_roundoff * std::abs(y[j]), min_increment / weight[j]);
      if (!increment_floor_.empty()) wanted = std::max(wanted, increment_floor_[j]);
      y[j] += wanted;
      increment_[j] = y[j] - saved_state_[j];
    }
    const int flag = rhs(t, y, f_perturbed, std::span<const int>(columns));
    for (int j : columns) y[j] = saved_state_[j];
    if (flag != 0) return flag;

    // Column j's rows are the states of j's block and of the blocks coupled to it.
    bool finite = true;
    for (int j : columns) {
      const double inverse = 1.0 / increment_[j];
      double* column = values + column_start_[j];
      for (int row : block_rows_[block_index_[j]]) {
        const double quotient = (f_perturbed[row] - fy[row]) * inverse;
        finite = finite && std::isfinite(quotient);
        *column++ = quotient;
      }
    }
    if (!finite) return 1;
  }
  return 0;
}

}  // namespace hybridsim
