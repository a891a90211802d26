#include "integrators/block_jacobian.hpp"

#include <map>

namespace hybridsim {

bool BlockJacobian::assign_blocks(std::span<const int> block_of_state,
                                  std::span<const std::pair<int, int>> coupled_blocks,
                                  std::span<const char> local_rows) {
  // Canonical numbering: blocks in the order of their first state, so that equal partitions give
  // equal vectors whatever ids the system used.
  const int n = static_cast<int>(block_of_state.size());
  std::vector<int> block_index(n);
  std::map<int, int> canonical;
  for (int i = 0; i < n; ++i) {
    const auto [it, inserted] =
        canonical.try_emplace(block_of_state[i], static_cast<int>(canonical.size()));
    block_index[i] = it->second;
  }
  const int blocks = static_cast<int>(canonical.size());
  std::vector<std::vector<int>> block_states(blocks);
  for (int i = 0; i < n; ++i) block_states[block_index[i]].push_back(i);

  // Neighbours of each block (itself included), ascending and without repeats. Pairs naming a
  // block without states (a system's id of nothing) carry no coupling.
  std::vector<std::vector<int>> neighbours(blocks);
  for (int b = 0; b < blocks; ++b) neighbours[b].push_back(b);
  for (const auto& [id_a, id_b] : coupled_blocks) {
    const auto a = canonical.find(id_a), b = canonical.find(id_b);
    if (a == canonical.end() || b == canonical.end() || a->second == b->second) continue;
    neighbours[a->second].push_back(b->second);
    neighbours[b->second].push_back(a->second);
  }
  for (std::vector<int>& list : neighbours) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  std::vector<std::vector<int>> block_rows(blocks);
  const bool any_local = !local_rows.empty();
  for (int b = 0; b < blocks; ++b) {
    for (int neighbour : neighbours[b]) {
      for (int row : block_states[neighbour]) {
        if (neighbour == b || !any_local || local_rows[row] == 0) block_rows[b].push_back(row);
      }
    }
    std::sort(block_rows[b].begin(), block_rows[b].end());
  }
  if (block_index == block_index_ && block_rows == block_rows_) return false;
  block_index_ = std::move(block_index);
  block_states_ = std::move(block_states);
  block_rows_ = std::move(block_rows);

  column_start_.assign(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    column_start_[i + 1] =
        column_start_[i] + static_cast<std::int64_t>(block_rows_[block_index_[i]].size());
  }
  nonzero_count_ = column_start_[n];
  diagonal_position_.assign(n, 0);
  for (int j = 0; j < n; ++j) {
    const std::vector<int>& rows = block_rows_[block_index_[j]];
    diagonal_position_[j] =
        column_start_[j] + (std::lower_bound(rows.begin(), rows.end(), j) - rows.begin());
  }

  // Greedy distance-2 colouring, blocks with the most neighbours first: a block takes the
  // smallest colour that no block within two couplings has.
  std::vector<int> order(blocks);
  for (int b = 0; b < blocks; ++b) order[b] = b;
  std::stable_sort(order.begin(), order.end(), [&neighbours](int a, int b) {
    return neighbours[a].size() > neighbours[b].size();
  });
  std::vector<int> colour(blocks, -1);
  std::vector<int> taken_by;  // per colour: the last block that found it taken
  int colours = 0;
  for (int b : order) {
    for (int neighbour : neighbours[b]) {
      for (int second : neighbours[neighbour]) {
        if (colour[second] >= 0) taken_by[colour[second]] = b;
      }
    }
    int c = 0;
    while (c < colours && taken_by[c] == b) ++c;
    if (c == colours) {
      ++colours;
      taken_by.push_back(-1);
    }
    colour[b] = c;
  }
  // Colour c, state k: the k-th state of every block of colour c that has one.
  std::vector<int> largest(colours, 0);
  for (int b = 0; b < blocks; ++b) {
    largest[colour[b]] = std::max(largest[colour[b]], static_cast<int>(block_states_[b].size()));
  }
  std::vector<int> first_evaluation(colours + 1, 0);
  for (int c = 0; c < colours; ++c) first_evaluation[c + 1] = first_evaluation[c] + largest[c];
  colour_columns_.assign(first_evaluation[colours], {});
  for (int b = 0; b < blocks; ++b) {
    for (std::size_t k = 0; k < block_states_[b].size(); ++k) {
      colour_columns_[first_evaluation[colour[b]] + k].push_back(block_states_[b][k]);
    }
  }
  increment_.assign(n, 0.0);
  saved_state_.assign(n, 0.0);
  return true;
}

}  // namespace hybridsim
