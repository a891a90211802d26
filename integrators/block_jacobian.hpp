// A block-diagonal Jacobian sparsity from the coupling groups of a HybridSystem, and its
// difference-quotient evaluation with one right-hand side per colour.
//
// States of different groups do not influence each other's derivatives (HybridSystem::
// state_coupling), so after a permutation the Jacobian is block diagonal with one dense block per
// group. Two columns of different groups never share a nonzero row, so they can be perturbed
// together: colour g perturbs the g-th state of every group at once, and the Jacobian takes as
// many right-hand sides as the largest group has states (13 for free rigid bodies that touch only
// fixed ones, whatever their number) instead of one per state.
//
// Independent of SUNDIALS: the pattern is written as compressed sparse columns into the caller's
// arrays, and the right-hand side is a callable.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace hybridsim {

class BlockJacobian {
 public:
  // Groups of the states from a group id per state (any integers). Returns true if the grouping
  // differs from the one before (the pattern, and a sparse factorisation's analysis, change).
  bool assign_groups(std::span<const int> group_of_state);

  int state_count() const { return static_cast<int>(group_index_.size()); }
  int group_count() const { return static_cast<int>(group_states_.size()); }
  // Structural nonzeros: the sum of the squared group sizes.
  std::int64_t nonzero_count() const { return nonzero_count_; }
  // Right-hand sides per Jacobian: the size of the largest group.
  int colour_count() const { return colour_count_; }

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
  // length n. rhs(t, y, f) returns 0 on success, anything else is returned at once.
  template <typename Rhs>
  int compute(double t, double h, double* y, const double* fy, const double* weight,
              double* f_perturbed, double* values, Rhs&& rhs);

 private:
  // Per colour: the columns it perturbs (one per group with enough states).
  std::vector<std::vector<int>> colour_columns_;
  std::vector<std::vector<int>> group_states_;  // per group: its states, ascending
  std::vector<int> group_index_;                // per state: its group (canonical numbering)
  std::vector<std::int64_t> column_start_;      // per state + 1: first value of its column
  std::vector<double> increment_;               // per state, scratch of compute()
  std::vector<double> saved_state_;             // per state, scratch of compute()
  std::int64_t nonzero_count_ = 0;
  int colour_count_ = 0;
};

template <typename Index>
void BlockJacobian::write_pattern(Index* column_starts, Index* row_indices) const {
  const int n = state_count();
  for (int column = 0; column < n; ++column) {
    column_starts[column] = static_cast<Index>(column_start_[column]);
    Index* rows = row_indices + column_start_[column];
    for (int row : group_states_[group_index_[column]]) *rows++ = static_cast<Index>(row);
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
    // Perturb one state of every group, evaluate once, restore.
    for (int j : columns) {
      saved_state_[j] = y[j];
      const double wanted = std::max(sqrt_roundoff * std::abs(y[j]), min_increment / weight[j]);
      y[j] += wanted;
      increment_[j] = y[j] - saved_state_[j];
    }
    const int flag = rhs(t, y, f_perturbed);
    for (int j : columns) y[j] = saved_state_[j];
    if (flag != 0) return flag;

    // Column j's rows are the states of j's group.
    for (int j : columns) {
      const double inverse = 1.0 / increment_[j];
      double* column = values + column_start_[j];
      for (int row : group_states_[group_index_[j]]) {
        *column++ = (f_perturbed[row] - fy[row]) * inverse;
      }
    }
  }
  return 0;
}

}  // namespace hybridsim
