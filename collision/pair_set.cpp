#include "collision/pair_set.hpp"

#include <utility>

namespace hybridsim {

std::size_t PairSet::home_of(std::uint64_t key) const {
  // SplitMix64's finaliser spreads the grid-like shape indices over the table.
  key ^= key >> 30;
  key *= 0xbf58476d1ce4e5b9ull;
  key ^= key >> 27;
  key *= 0x94d049bb133111ebull;
  key ^= key >> 31;
  return static_cast<std::size_t>(key) & (slots_.size() - 1);
}

void PairSet::insert(int a, int b) {
  if (2 * (size_ + 1) > slots_.size()) grow();
  const std::uint64_t key = key_of(a, b);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = home_of(key);; i = (i + 1) & mask) {
    if (slots_[i] == key) return;
    if (slots_[i] == kEmpty) {
      slots_[i] = key;
      ++size_;
      return;
    }
  }
}

bool PairSet::contains(int a, int b) const {
  const std::uint64_t key = key_of(a, b);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = home_of(key);; i = (i + 1) & mask) {
    if (slots_[i] == key) return true;
    if (slots_[i] == kEmpty) return false;
  }
}

void PairSet::erase(int a, int b) {
  const std::uint64_t key = key_of(a, b);
  const std::size_t mask = slots_.size() - 1;
  std::size_t hole = home_of(key);
  while (slots_[hole] != key) {
    if (slots_[hole] == kEmpty) return;
    hole = (hole + 1) & mask;
  }
  // Backward shift: move later keys of the probe run into the hole when their home allows it, so
  // that every lookup still finds its key before an empty slot.
  for (std::size_t next = (hole + 1) & mask; slots_[next] != kEmpty; next = (next + 1) & mask) {
    const std::size_t home = home_of(slots_[next]);
    // The key at `next` may move to `hole` when its home is not cyclically in (hole, next].
    const bool home_after_hole =
        hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
    if (home_after_hole) continue;
    slots_[hole] = slots_[next];
    hole = next;
  }
  slots_[hole] = kEmpty;
  --size_;
}

void PairSet::clear() {
  for (std::uint64_t& slot : slots_) slot = kEmpty;
  size_ = 0;
}

void PairSet::grow() {
  std::vector<std::uint64_t> old(2 * slots_.size(), kEmpty);
  std::swap(old, slots_);
  size_ = 0;
  for (const std::uint64_t key : old) {
    if (key != kEmpty) insert(static_cast<int>(key >> 32), static_cast<int>(key & 0xffffffffu));
  }
}

}  // namespace hybridsim
