// Broadphase: sweep-and-prune over world AABBs along x (design.md §4, §6). Shapes are kept sorted
// by the lower x bound with an insertion sort, which is linear for the nearly sorted order of one
// evaluation after the previous one; no allocation after construction.
#pragma once

#include <span>
#include <vector>

#include "collision/aabb.hpp"
#include "core/model.hpp"

namespace hybridsim {

class Broadphase {
 public:
  explicit Broadphase(const Model& model);

  // Recomputes the AABBs of the collision shapes from their world poses (indexed by shape).
  void update(std::span<const Pose> X_WS);

  // Calls visit(a, b) with a < b (global shape indices) for every pair that may collide and
  // whose x intervals overlap; the pair's AABBs may still be apart in y or z.
  template <typename Visitor>
  void for_each_x_overlapping_pair(Visitor&& visit) const;

  // A positive lower bound of the AABB distance of every pair not visited (their x intervals
  // are apart), +inf when there is none.
  double separated_pairs_lower_bound() const;

  const Aabb& aabb(int shape) const { return aabbs_[shape]; }
  // Whether shapes a and b may collide at all (Model::may_collide: bodies, flags, groups, masks).
  bool may_collide(int a, int b) const;
  std::span<const int> collision_shapes() const { return collision_shapes_; }

 private:
  const Model& model_;
  std::vector<int> collision_shapes_;  // shapes with collision = true
  std::vector<Aabb> aabbs_;            // per shape index
  std::vector<int> order_;             // collision shapes sorted by aabb min x
};

template <typename Visitor>
void Broadphase::for_each_x_overlapping_pair(Visitor&& visit) const {
  const std::size_t n = order_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const int a = order_[i];
    const double max_x = aabbs_[a].max_W.x();
    for (std::size_t j = i + 1; j < n && aabbs_[order_[j]].min_W.x() <= max_x; ++j) {
      const int b = order_[j];
      if (!may_collide(a, b)) continue;
      if (a < b) {
        visit(a, b);
      } else {
        visit(b, a);
      }
    }
  }
}

}  // namespace hybridsim
