// Axis-aligned bounding boxes of shapes in world frame. Half-spaces have unbounded boxes.
#pragma once

#include "core/math.hpp"
#include "core/model.hpp"

namespace hybridsim {

struct Aabb {
  Vec3 min_W = Vec3::Zero();
  Vec3 max_W = Vec3::Zero();
};

// The AABB of a shape at world pose X_WS.
Aabb compute_aabb(const Shape& shape, const Pose& X_WS);

// Euclidean distance between two boxes: 0 when they overlap, a lower bound of the distance of
// the shapes inside them otherwise. Safe with unbounded boxes.
double compute_aabb_distance(const Aabb& a, const Aabb& b);

inline bool aabbs_overlap(const Aabb& a, const Aabb& b) {
  return (a.min_W.array() <= b.max_W.array()).all() && (b.min_W.array() <= a.max_W.array()).all();
}

}  // namespace hybridsim
