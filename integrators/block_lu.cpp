#include "integrators/block_lu.hpp"

#include <amd.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hybridsim {
namespace {

using Block = Eigen::Matrix<double, BlockLu::kBlockSize, BlockLu::kBlockSize>;
using Segment = Eigen::Matrix<double, BlockLu::kBlockSize, 1>;
using BlockMap = Eigen::Map<Block>;
using ConstBlockMap = Eigen::Map<const Block>;
using SegmentMap = Eigen::Map<Segment>;

// The node order AMD gives the symmetric pattern of neighbours (position -> node).
std::vector<int> amd_order(const std::vector<std::vector<int>>& neighbours) {
  const auto n = static_cast<SuiteSparse_long>(neighbours.size());
  std::vector<SuiteSparse_long> column_start(neighbours.size() + 1, 0), row_index;
  for (std::size_t node = 0; node < neighbours.size(); ++node) {
    for (int other : neighbours[node]) row_index.push_back(other);
    column_start[node + 1] = static_cast<SuiteSparse_long>(row_index.size());
  }
  std::vector<SuiteSparse_long> permutation(neighbours.size(), 0);
  if (row_index.empty()) {  // no couplings (AMD takes no empty pattern): any order, no fill
    for (std::size_t node = 0; node < neighbours.size(); ++node) {
      permutation[node] = static_cast<SuiteSparse_long>(node);
    }
  } else if (n > 0 && amd_l_order(n, column_start.data(), row_index.data(), permutation.data(),
                                  nullptr, nullptr) < AMD_OK) {
    throw std::runtime_error("block LU: AMD could not order the block pattern");
  }
  return {permutation.begin(), permutation.end()};
}

}  // namespace

void BlockLu::analyse(const std::vector<std::vector<int>>& given_neighbours) {
  // Both directions of every coupling (the fill below follows each node's own list), once each.
  std::vector<std::vector<int>> neighbours = given_neighbours;
  for (std::size_t node = 0; node < given_neighbours.size(); ++node) {
    for (int other : given_neighbours[node]) {
      if (other != static_cast<int>(node)) neighbours[other].push_back(static_cast<int>(node));
    }
  }
  for (std::size_t node = 0; node < neighbours.size(); ++node) {
    std::vector<int>& list = neighbours[node];
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    std::erase(list, static_cast<int>(node));
  }
  node_at_ = amd_order(neighbours);
  const auto n = static_cast<int>(neighbours.size());
  position_.assign(static_cast<std::size_t>(n), 0);
  for (int k = 0; k < n; ++k) position_[node_at_[k]] = k;

  // The filled pattern by the elimination tree: the later positions coupled to k are its own
  // later neighbours and those of its children (the positions whose first later one is k).
  later_.assign(static_cast<std::size_t>(n), {});
  std::vector<std::vector<int>> children(static_cast<std::size_t>(n));
  std::vector<int> mark(static_cast<std::size_t>(n), -1);
  const auto add = [&mark](std::vector<int>& list, int k, int p) {
    if (p > k && mark[p] != k) {
      mark[p] = k;
      list.push_back(p);
    }
  };
  for (int k = 0; k < n; ++k) {
    std::vector<int>& later = later_[k];
    for (int other : neighbours[node_at_[k]]) add(later, k, position_[other]);
    for (int child : children[k]) {
      for (int p : later_[child]) add(later, k, p);
    }
    std::sort(later.begin(), later.end());
    if (!later.empty()) children[later.front()].push_back(k);
  }

  first_lower_.assign(static_cast<std::size_t>(n) + 1, 0);
  lower_.clear();
  for (int k = 0; k < n; ++k) {
    lower_.insert(lower_.end(), later_[k].begin(), later_[k].end());
    first_lower_[k + 1] = lower_.size();
  }
  update_slots_.assign(static_cast<std::size_t>(n), {});
  for (int k = 0; k < n; ++k) {
    const std::vector<int>& later = later_[k];
    std::vector<std::size_t>& slots = update_slots_[k];
    slots.reserve(later.size() * later.size());
    for (int i : later) {
      for (int j : later) slots.push_back(slot_of(i, j));
    }
  }
  values_.assign((static_cast<std::size_t>(n) + 2 * lower_.size()) * kBlockEntries, 0.0);
  scratch_.assign(static_cast<std::size_t>(n) * kBlockSize, 0.0);
}

std::size_t BlockLu::slot_of(int row_position, int column_position) const {
  const std::size_t n = position_.size();
  if (row_position == column_position) return static_cast<std::size_t>(row_position);
  const bool lower = row_position > column_position;
  const int first = lower ? column_position : row_position;
  const int second = lower ? row_position : column_position;
  const std::vector<int>& later = later_[first];
  const auto it = std::lower_bound(later.begin(), later.end(), second);
  if (it == later.end() || *it != second) {
    throw std::logic_error("block LU: a block outside the filled pattern");
  }
  const std::size_t index = first_lower_[first] + static_cast<std::size_t>(it - later.begin());
  return n + (lower ? 0 : lower_.size()) + index;
}

std::size_t BlockLu::block_offset(int row_node, int column_node) const {
  return slot_of(position_[row_node], position_[column_node]) * kBlockEntries;
}

void BlockLu::zero_values() {
  std::fill(values_.begin(), values_.end(), 0.0);
}

bool BlockLu::factor() {
  const std::size_t n = position_.size();
  const std::size_t upper_start = n + lower_.size();
  double* values = values_.data();
  for (std::size_t k = 0; k < n; ++k) {
    BlockMap diagonal(values + k * kBlockEntries);
    const Eigen::PartialPivLU<Block> lu(diagonal);
    const Block inverse = lu.inverse();
    // Infinity-norm condition of the pivot block: past 1e12 its inverse has lost most digits and
    // the elimination without pivoting between blocks is no longer to be trusted.
    const double condition = diagonal.cwiseAbs().rowwise().sum().maxCoeff() *
                             inverse.cwiseAbs().rowwise().sum().maxCoeff();
    if (!std::isfinite(condition) || condition > 1e12) return false;
    diagonal = inverse;

    const std::size_t count = later_[k].size();
    const std::size_t first = first_lower_[k];
    for (std::size_t a = 0; a < count; ++a) {
      BlockMap lower(values + (n + first + a) * kBlockEntries);
      lower = (lower * inverse).eval();
    }
    const std::size_t* target = update_slots_[k].data();
    for (std::size_t a = 0; a < count; ++a) {
      const ConstBlockMap lower(values + (n + first + a) * kBlockEntries);
      for (std::size_t b = 0; b < count; ++b, ++target) {
        const ConstBlockMap upper(values + (upper_start + first + b) * kBlockEntries);
        BlockMap(values + *target * kBlockEntries).noalias() -= lower * upper;
      }
    }
  }
  return std::all_of(values_.begin(), values_.end(), [](double v) { return std::isfinite(v); });
}

void BlockLu::solve(std::span<double> rhs) const {
  const std::size_t n = position_.size();
  const std::size_t upper_start = n + lower_.size();
  const double* values = values_.data();
  std::vector<double>& y = scratch_;
  for (std::size_t k = 0; k < n; ++k) {
    std::copy_n(rhs.data() + static_cast<std::size_t>(node_at_[k]) * kBlockSize, kBlockSize,
                y.data() + k * kBlockSize);
  }
  // Forwards with the unit lower factor, then backwards with the upper one.
  for (std::size_t k = 0; k < n; ++k) {
    const Segment y_k = SegmentMap(y.data() + k * kBlockSize);
    const std::size_t first = first_lower_[k];
    for (std::size_t a = 0; a < later_[k].size(); ++a) {
      SegmentMap(y.data() + static_cast<std::size_t>(later_[k][a]) * kBlockSize).noalias() -=
          ConstBlockMap(values + (n + first + a) * kBlockEntries) * y_k;
    }
  }
  for (std::size_t k = n; k-- > 0;) {
    Segment sum = SegmentMap(y.data() + k * kBlockSize);
    const std::size_t first = first_lower_[k];
    for (std::size_t b = 0; b < later_[k].size(); ++b) {
      sum.noalias() -= ConstBlockMap(values + (upper_start + first + b) * kBlockEntries) *
                       SegmentMap(y.data() + static_cast<std::size_t>(later_[k][b]) * kBlockSize);
    }
    SegmentMap(y.data() + k * kBlockSize).noalias() =
        ConstBlockMap(values + k * kBlockEntries) * sum;
  }
  for (std::size_t k = 0; k < n; ++k) {
    std::copy_n(y.data() + k * kBlockSize, kBlockSize,
                rhs.data() + static_cast<std::size_t>(node_at_[k]) * kBlockSize);
  }
}

}  // namespace hybridsim
