#include "integrators/block_jacobian.hpp"

#include <map>

namespace hybridsim {

bool BlockJacobian::assign_groups(std::span<const int> group_of_state) {
  // Canonical numbering: groups in the order of their first state, so that equal partitions give
  // equal vectors whatever ids the system used.
  const int n = static_cast<int>(group_of_state.size());
  std::vector<int> group_index(n);
  std::map<int, int> canonical;
  for (int i = 0; i < n; ++i) {
    const auto [it, inserted] =
        canonical.try_emplace(group_of_state[i], static_cast<int>(canonical.size()));
    group_index[i] = it->second;
  }
  if (group_index == group_index_) return false;
  group_index_ = std::move(group_index);

  group_states_.assign(canonical.size(), {});
  for (int i = 0; i < n; ++i) group_states_[group_index_[i]].push_back(i);

  // Column i holds the rows of its group; colour g the g-th state of every group.
  column_start_.assign(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    column_start_[i + 1] =
        column_start_[i] + static_cast<std::int64_t>(group_states_[group_index_[i]].size());
  }
  nonzero_count_ = column_start_[n];
  colour_count_ = 0;
  for (const std::vector<int>& states : group_states_) {
    colour_count_ = std::max(colour_count_, static_cast<int>(states.size()));
  }
  colour_columns_.assign(colour_count_, {});
  for (const std::vector<int>& states : group_states_) {
    for (std::size_t g = 0; g < states.size(); ++g) colour_columns_[g].push_back(states[g]);
  }
  increment_.assign(n, 0.0);
  saved_state_.assign(n, 0.0);
  return true;
}

}  // namespace hybridsim
