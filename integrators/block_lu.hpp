// Sparse LU factorisation of a matrix made of dense 6 x 6 blocks (a free body's six velocity
// states per block, as the reduced Newton matrix of integrators/reduced_klu_solver.hpp has), for
// the patterns where a scalar sparse LU spends its time in indirect addressing: a resting pile's
// contacts couple the bodies like a 3D mesh, the factors fill in, and KLU's refactorisation took
// 38% and its pivoting factorisation another 15% of a 1,000-sphere pile's run at t = 0.35 s.
//
// The blocks are ordered by AMD on the block graph; the factorisation is right-looking with the
// diagonal blocks inverted and no pivoting between blocks:
//   A = L U,  L_ik = A_ik^(k) D_k^-1 (i after k),  U_kj = A_kj^(k) (j after k),  U_kk = D_k,
// where A^(k) is A after the updates of the blocks eliminated before k. Without pivoting between
// blocks the factorisation is stable for a block diagonally dominant matrix such as I - gamma J
// with the steps CVODE takes; factor() reports a diagonal block that is singular or poorly
// conditioned, and the caller then uses a pivoting factorisation instead. Growth in the
// off-diagonal blocks is not measured (the KLU path estimates the whole matrix's condition): a
// poor solve shows as a Newton convergence failure, after which CVODE sets up again with a
// smaller step.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace hybridsim {

class BlockLu {
 public:
  static constexpr int kBlockSize = 6;
  static constexpr int kBlockEntries = kBlockSize * kBlockSize;

  // A new pattern: neighbours[node] lists the nodes coupled to node (in any order; a coupling
  // given one way counts both ways). Orders the nodes and finds the fill.
  void analyse(const std::vector<std::vector<int>>& neighbours);

  int node_count() const { return static_cast<int>(position_.size()); }
  // The block of entry (row_node, column_node), a node or a coupled pair: where its 36 values sit
  // in values() (column-major). For setting up a scatter map once per pattern.
  std::size_t block_offset(int row_node, int column_node) const;
  // The matrix's blocks (fill blocks included), to be zeroed and written before factor().
  std::span<double> values() { return values_; }
  void zero_values();

  // Factorises in place; false if a diagonal block is singular or its condition (infinity norm)
  // exceeds 1e12, or a value is not finite.
  bool factor();
  // Solves A x = b in place; rhs[node * 6 + k] is state k of node.
  void solve(std::span<double> rhs) const;

  // Block entries of L and U together (the fill included), for reports and tests.
  std::size_t factor_block_count() const { return 2 * lower_.size() + position_.size(); }

 private:
  std::size_t slot_of(int row_position, int column_position) const;

  std::vector<int> node_at_;   // per elimination position: the node
  std::vector<int> position_;  // per node: its elimination position
  // Per position k: the later positions coupled to it in the filled pattern, ascending, and
  // where their blocks L(j, k) and U(k, j) start in lower_/values_.
  std::vector<std::vector<int>> later_;
  std::vector<std::size_t> first_lower_;
  std::vector<int> lower_;  // per lower block: its row position (column-wise)
  // Per position k: the blocks that L(i, k) U(k, j) updates, for every i, j in later_[k].
  std::vector<std::vector<std::size_t>> update_slots_;
  std::vector<double> values_;           // diagonal blocks, then L blocks, then U blocks
  mutable std::vector<double> scratch_;  // the solve's right-hand side by position
};

}  // namespace hybridsim
