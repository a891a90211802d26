// Broadphase: sweep-and-prune over world AABBs on all three axes (design.md §4, §6). Each axis
// keeps the shapes' interval endpoints sorted with an insertion sort, linear for the nearly sorted
// order of one evaluation after the previous one; when a lower and an upper endpoint of two shapes
// swap, the pair's AABB overlap may have changed and is checked, so the set of overlapping pairs
// is kept up to date at the cost of the swaps alone. No allocation after the first update except
// when the pair set outgrows its largest size so far.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "collision/aabb.hpp"
#include "collision/pair_set.hpp"
#include "core/model.hpp"

namespace hybridsim {

class Broadphase {
 public:
  explicit Broadphase(const Model& model);

  // Recomputes the AABBs of the collision shapes from their world poses (indexed by shape), the
  // sorted endpoints and the set of overlapping pairs.
  void update(std::span<const Pose> X_WS);

  // Calls visit(a, b) with a < b (global shape indices), once, for every pair that may collide
  // and whose AABBs overlap (closed intervals on all three axes).
  template <typename Visitor>
  void for_each_candidate_pair(Visitor&& visit) const {
    overlapping_pairs_.for_each(visit);
  }

  // A positive lower bound of the AABB distance of every pair not visited, +inf when there is
  // none: on each axis the smallest gap between an upper endpoint and the next lower endpoint in
  // sorted order; a pair apart on that axis is at least that far apart.
  double separated_pairs_lower_bound() const { return separated_lower_bound_; }

  const Aabb& aabb(int shape) const { return aabbs_[shape]; }
  // Whether shapes a and b may collide at all (Model::may_collide: bodies, flags, groups, masks).
  bool may_collide(int a, int b) const;
  std::span<const int> collision_shapes() const { return collision_shapes_; }
  std::size_t candidate_pair_count() const { return overlapping_pairs_.size(); }

 private:
  // An endpoint: 2 shape + (0 for the lower bound, 1 for the upper).
  double value_of(int endpoint, int axis) const;
  bool sorts_before(int endpoint, int other, int axis) const;
  void build_from_scratch();
  void sort_axis(int axis);
  void update_pair(int a, int b);
  double smallest_gap(int axis) const;

  const Model& model_;
  std::vector<int> collision_shapes_;          // shapes with collision = true
  std::vector<Aabb> aabbs_;                    // per shape index
  std::array<std::vector<int>, 3> endpoints_;  // per axis, sorted by value, lower first at ties
  PairSet overlapping_pairs_;                  // pairs that may collide with overlapping AABBs
  std::vector<int> active_;                    // scratch of build_from_scratch
  double separated_lower_bound_ = kInfinity;
  bool built_ = false;
};

}  // namespace hybridsim
