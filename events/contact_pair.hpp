// Contact pairs and their dictionaries (design.md §4; seed 002's ContactPair and contactDict).
#pragma once

#include <cstdint>
#include <map>

#include "collision/contact_manifold.hpp"
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

// A contact point's key (design.md §4b): its shape pair and a slot, unique within the pair, that
// the point keeps while it lasts, across events and across the features that make it. A pair
// with one point (seed 002's rule) has slot 0.
struct ContactId {
  PairId pair = 0;
  int slot = 0;
  friend auto operator<=>(const ContactId&, const ContactId&) = default;
};

// One contact point of a shape pair (seed 002's ContactPair; a pair with a manifold has several).
struct ContactPair {
  int shape_a = -1;  // A < B (global shape index)
  int shape_b = -1;
  int slot = 0;  // ContactId::slot
  // What makes the point: the pair's manifold reference and the features of A and B
  // (collision/contact_manifold.hpp); single and shape/shape for one point per pair. A terrain
  // point's surface feature is its anchor: the one that held it at the event that (re)built it,
  // from which every evaluation walks to the feature that holds it now.
  ManifoldReference reference;
  Feature feature_a;
  Feature feature_b;
  SignedDistance geometry;  // at the event that (re)built the dictionary
  // delta_dot- stored when the contact started, m/s, positive approaching; carried across later
  // events while the pair stays in contact.
  double pre_impact_normal_velocity = 0.0;
  double damping = 0.0;       // d_res of the law, s/m, fixed at contact start
  int shape_pair_points = 1;  // contact points of the same shape pair, set at every event
  // m: what z1 subtracts from the point's validity, so that a point that starts exactly on the
  // edge of its features (validity rounded above zero) starts below -eps all the same.
  double validity_offset = 0.0;
  ContactLawParameters law;
};

// Ordered by contact id (pair, then slot) so that iteration, and so force summation, is
// deterministic.
using ContactDict = std::map<ContactId, ContactPair>;

}  // namespace hybridsim
