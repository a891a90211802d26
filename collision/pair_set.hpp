// A set of shape pairs (a < b) for the broadphase: open addressing with linear probing and
// backward-shift deletion, so that inserting and erasing allocate nothing until the table must
// grow (at half full, doubling: amortised, and never once the pair count has peaked).
#pragma once

#include <cstdint>
#include <vector>

namespace hybridsim {

class PairSet {
 public:
  PairSet() : slots_(16, kEmpty) {}

  void insert(int a, int b);  // a < b; no effect when present
  void erase(int a, int b);   // no effect when absent
  bool contains(int a, int b) const;
  void clear();
  std::size_t size() const { return size_; }

  // Calls visit(a, b) for every pair, in an order fixed by the insertions.
  template <typename Visitor>
  void for_each(Visitor&& visit) const {
    for (const std::uint64_t key : slots_) {
      if (key != kEmpty) visit(static_cast<int>(key >> 32), static_cast<int>(key & 0xffffffffu));
    }
  }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  static std::uint64_t key_of(int a, int b) {
    return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b);
  }
  std::size_t home_of(std::uint64_t key) const;
  void grow();

  std::vector<std::uint64_t> slots_;  // power-of-two size; kEmpty or a key
  std::size_t size_ = 0;
};

}  // namespace hybridsim
