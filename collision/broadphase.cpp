#include "collision/broadphase.hpp"

#include <algorithm>

namespace hybridsim {

Broadphase::Broadphase(const Model& model) : model_(model), aabbs_(model.shapes.size()) {
  for (std::size_t i = 0; i < model.shapes.size(); ++i) {
    if (model.shapes[i].collision) collision_shapes_.push_back(static_cast<int>(i));
  }
  for (std::vector<int>& endpoints : endpoints_) {
    for (const int shape : collision_shapes_) {
      endpoints.push_back(2 * shape);
      endpoints.push_back(2 * shape + 1);
    }
  }
  active_.reserve(collision_shapes_.size());
}

bool Broadphase::may_collide(int a, int b) const {
  return model_.may_collide(a, b);
}

double Broadphase::value_of(int endpoint, int axis) const {
  const Aabb& box = aabbs_[endpoint >> 1];
  return (endpoint & 1) != 0 ? box.max_W[axis] : box.min_W[axis];
}

bool Broadphase::sorts_before(int endpoint, int other, int axis) const {
  // Lower endpoints first at equal values: closed intervals that touch overlap.
  const double value = value_of(endpoint, axis), other_value = value_of(other, axis);
  return value < other_value || (value == other_value && (endpoint & 1) < (other & 1));
}

void Broadphase::update_pair(int a, int b) {
  if (a == b) return;
  if (a > b) std::swap(a, b);
  if (aabbs_overlap(aabbs_[a], aabbs_[b]) && may_collide(a, b)) {
    overlapping_pairs_.insert(a, b);
  } else {
    overlapping_pairs_.erase(a, b);
  }
}

void Broadphase::build_from_scratch() {
  for (int axis = 0; axis < 3; ++axis) {
    std::sort(endpoints_[axis].begin(), endpoints_[axis].end(),
              [&](int p, int q) { return sorts_before(p, q, axis); });
  }
  // One sweep along x: each shape is checked against the shapes whose x interval is open.
  overlapping_pairs_.clear();
  active_.clear();
  for (const int endpoint : endpoints_[0]) {
    const int shape = endpoint >> 1;
    if ((endpoint & 1) != 0) {
      active_.erase(std::find(active_.begin(), active_.end(), shape));
      continue;
    }
    for (const int other : active_) update_pair(shape, other);
    active_.push_back(shape);
  }
  built_ = true;
}

void Broadphase::sort_axis(int axis) {
  // Insertion sort; a lower and an upper endpoint of two shapes passing each other is the only
  // way their intervals on this axis start or stop overlapping.
  std::vector<int>& endpoints = endpoints_[axis];
  for (std::size_t i = 1; i < endpoints.size(); ++i) {
    const int moving = endpoints[i];
    std::size_t j = i;
    while (j > 0 && sorts_before(moving, endpoints[j - 1], axis)) {
      const int passed = endpoints[j - 1];
      if ((moving & 1) != (passed & 1)) update_pair(moving >> 1, passed >> 1);
      endpoints[j] = passed;
      --j;
    }
    endpoints[j] = moving;
  }
}

double Broadphase::smallest_gap(int axis) const {
  double gap = kInfinity;
  double last_upper = -kInfinity;
  for (const int endpoint : endpoints_[axis]) {
    const double value = value_of(endpoint, axis);
    if ((endpoint & 1) != 0) {
      last_upper = value;
    } else if (value > last_upper) {
      gap = std::min(gap, value - last_upper);
    }
  }
  return gap;
}

void Broadphase::update(std::span<const Pose> X_WS) {
  for (const int shape : collision_shapes_) {
    aabbs_[shape] = compute_aabb(model_.shapes[shape], X_WS[shape]);
  }
  if (!built_) {
    build_from_scratch();
  } else {
    for (int axis = 0; axis < 3; ++axis) sort_axis(axis);
  }
  separated_lower_bound_ = std::min({smallest_gap(0), smallest_gap(1), smallest_gap(2)});
}

}  // namespace hybridsim
