#include "collision/aabb.hpp"

#include <algorithm>
#include <cmath>

#include "collision/shape_geometry.hpp"
#include "collision/triangle_surface.hpp"

namespace hybridsim {

Aabb compute_aabb(const Shape& shape, const Pose& X_WS) {
  const Vec3& p_WS = X_WS.translation;
  switch (shape.type) {
    case ShapeType::sphere: {
      const Vec3 r = Vec3::Constant(shape.radius);
      return {p_WS - r, p_WS + r};
    }
    case ShapeType::box: {
      // Half extent along world axis i: sum_j |R_ij| h_j.
      const Vec3 extent = X_WS.rotation.cwiseAbs() * shape.half_extents;
      return {p_WS - extent, p_WS + extent};
    }
    case ShapeType::capsule: {
      // The box of the axis segment, grown by the radius.
      const Vec3 half_axis_W = X_WS.rotation.col(2) * (0.5 * shape.length);
      const Vec3 extent = half_axis_W.cwiseAbs() + Vec3::Constant(shape.radius);
      return {p_WS - extent, p_WS + extent};
    }
    case ShapeType::cylinder:
    case ShapeType::cone:
    case ShapeType::ellipsoid:
    case ShapeType::convex: {
      // Exact bounds from the support function along the six world directions.
      Aabb box;
      for (int axis = 0; axis < 3; ++axis) {
        const Vec3 axis_S = X_WS.rotation.row(axis).transpose();  // R^T e_axis
        box.max_W[axis] = p_WS[axis] + axis_S.dot(compute_support_point_S(shape, axis_S));
        box.min_W[axis] = p_WS[axis] + axis_S.dot(compute_support_point_S(shape, -axis_S));
      }
      return box;
    }
    case ShapeType::mesh:
    case ShapeType::heightmap: {
      // The box of the surface's bounds, turned.
      const Vec3 centre_S = 0.5 * (shape.surface->min_S + shape.surface->max_S);
      const Vec3 half_S = 0.5 * (shape.surface->max_S - shape.surface->min_S);
      const Vec3 centre_W = X_WS.transform_point(centre_S);
      const Vec3 extent = X_WS.rotation.cwiseAbs() * half_S;
      return {centre_W - extent, centre_W + extent};
    }
    case ShapeType::halfspace: {
      // Bounded only along an axis the normal is parallel to; otherwise all of space.
      Aabb box{Vec3::Constant(-kInfinity), Vec3::Constant(kInfinity)};
      const Vec3 n_W = X_WS.rotation * shape.normal_S;
      for (int axis = 0; axis < 3; ++axis) {
        if (std::abs(std::abs(n_W[axis]) - 1.0) > 1e-15) continue;
        const double level = n_W.dot(p_WS) * n_W[axis] + shape.offset * n_W[axis];
        if (n_W[axis] > 0.0) {
          box.max_W[axis] = level;
        } else {
          box.min_W[axis] = level;
        }
      }
      return box;
    }
  }
  return {};
}

double compute_aabb_distance(const Aabb& a, const Aabb& b) {
  double squared = 0.0;
  for (int axis = 0; axis < 3; ++axis) {
    const double gap =
        std::max({0.0, a.min_W[axis] - b.max_W[axis], b.min_W[axis] - a.max_W[axis]});
    squared += gap * gap;
  }
  return std::sqrt(squared);
}

}  // namespace hybridsim
