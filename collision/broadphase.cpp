#include "collision/broadphase.hpp"

#include <algorithm>

namespace hybridsim {

Broadphase::Broadphase(const Model& model) : model_(model), aabbs_(model.shapes.size()) {
  for (std::size_t i = 0; i < model.shapes.size(); ++i) {
    if (model.shapes[i].collision) collision_shapes_.push_back(static_cast<int>(i));
  }
  order_ = collision_shapes_;
}

bool Broadphase::may_collide(int a, int b) const {
  return model_.may_collide(a, b);
}

void Broadphase::update(std::span<const Pose> X_WS) {
  for (int shape : collision_shapes_)
    aabbs_[shape] = compute_aabb(model_.shapes[shape], X_WS[shape]);
  // Insertion sort by min x: linear when the order barely changed since the last update.
  for (std::size_t i = 1; i < order_.size(); ++i) {
    const int moving = order_[i];
    const double key = aabbs_[moving].min_W.x();
    std::size_t j = i;
    while (j > 0 && aabbs_[order_[j - 1]].min_W.x() > key) {
      order_[j] = order_[j - 1];
      --j;
    }
    order_[j] = moving;
  }
}

double Broadphase::separated_pairs_lower_bound() const {
  // For each shape, the first shape to its right in the sorted order that starts beyond its
  // upper x bound has the smallest such gap.
  double bound = kInfinity;
  const std::size_t n = order_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const double max_x = aabbs_[order_[i]].max_W.x();
    for (std::size_t j = i + 1; j < n; ++j) {
      const double gap = aabbs_[order_[j]].min_W.x() - max_x;
      if (gap > 0.0) {
        bound = std::min(bound, gap);
        break;
      }
    }
  }
  return bound;
}

}  // namespace hybridsim
