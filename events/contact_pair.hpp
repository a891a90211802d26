// Contact pairs and their dictionaries (design.md §4; seed 002's ContactPair and contactDict).
#pragma once

#include <cstdint>
#include <map>

#include "collision/signed_distance.hpp"
#include "core/contact_law.hpp"

namespace hybridsim {

// A 64-bit key of an unordered shape pair: the smaller global shape index in the high 32 bits.
// Any shape count up to 2^32 is representable.
using PairId = std::uint64_t;

inline PairId make_pair_id(int shape_a, int shape_b) {
  const auto lo = static_cast<std::uint32_t>(shape_a < shape_b ? shape_a : shape_b);
  const auto hi = static_cast<std::uint32_t>(shape_a < shape_b ? shape_b : shape_a);
  return (static_cast<PairId>(lo) << 32) | hi;
}
inline int pair_shape_a(PairId id) {
  return static_cast<int>(id >> 32);
}
inline int pair_shape_b(PairId id) {
  return static_cast<int>(id & 0xffffffffu);
}

struct ContactPair {
  int shape_a = -1;  // A < B (global shape index)
  int shape_b = -1;
  SignedDistance geometry;  // at the event that (re)built the dictionary
  // delta_dot- stored when the contact started, m/s, positive approaching; carried across later
  // events while the pair stays in contact.
  double pre_impact_normal_velocity = 0.0;
  double damping = 0.0;        // d_res of the law, s/m, fixed at contact start
  int body_pair_contacts = 1;  // contacts between the same two bodies, set at every event
  ContactLawParameters law;
};

// Ordered by pair id so that iteration, and so force summation, is deterministic.
using ContactDict = std::map<PairId, ContactPair>;

}  // namespace hybridsim
