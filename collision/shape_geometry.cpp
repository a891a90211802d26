#include "collision/shape_geometry.hpp"

#include "collision/triangle_surface.hpp"

#include <algorithm>
#include <cmath>

#include "collision/convex_hull.hpp"

namespace hybridsim {
namespace {

// -1, 0 or +1: a zero component picks the middle of a face.
double sign_or_zero(double value) {
  return value > 0.0 ? 1.0 : (value < 0.0 ? -1.0 : 0.0);
}

// The unit radial direction of d in S's x-y plane; zero when d is along z.
Vec3 radial_direction(const Vec3& d) {
  const double radial = std::hypot(d.x(), d.y());
  return radial > 0.0 ? Vec3(d.x() / radial, d.y() / radial, 0.0) : Vec3::Zero();
}

// The support point of the sharp shape (smoothing radius ignored).
Vec3 sharp_support_point_S(const Shape& shape, const Vec3& d) {
  switch (shape.type) {
    case ShapeType::sphere:
      return shape.radius * d.normalized();
    case ShapeType::box:
      return d.unaryExpr(&sign_or_zero).cwiseProduct(shape.half_extents);
    case ShapeType::capsule:
      return shape.radius * d.normalized() +
             Vec3(0.0, 0.0, 0.5 * shape.length * sign_or_zero(d.z()));
    case ShapeType::cylinder:
      return shape.radius * radial_direction(d) +
             Vec3(0.0, 0.0, 0.5 * shape.length * sign_or_zero(d.z()));
    case ShapeType::cone: {
      // The farther of the base rim and the top rim points; both (a generator line) when equal.
      const Vec3 radial = radial_direction(d);
      const Vec3 base = shape.radius * radial - Vec3(0.0, 0.0, 0.5 * shape.length);
      const Vec3 top = shape.top_radius * radial + Vec3(0.0, 0.0, 0.5 * shape.length);
      const double reach_base = base.dot(d), reach_top = top.dot(d);
      if (reach_base == reach_top) return 0.5 * (base + top);
      return reach_base > reach_top ? base : top;
    }
    case ShapeType::ellipsoid: {
      // For x^T A^-2 x = 1 with A = diag(radii): the point with outward normal d is
      // A^2 d / |A d|.
      const Vec3 scaled = shape.radii.cwiseProduct(d);
      return shape.radii.cwiseProduct(scaled) / scaled.norm();
    }
    case ShapeType::convex:
      return compute_hull_support_point_S(*shape.hull, d);
    case ShapeType::halfspace:
    case ShapeType::mesh:
    case ShapeType::heightmap:
      break;  // unbounded or not convex: no support function
  }
  return Vec3::Zero();
}

}  // namespace

Vec3 compute_support_point_S(const Shape& shape, const Vec3& d) {
  if (shape.smoothing_radius > 0.0) {
    const SmoothingCore core = compute_smoothing_core(shape);
    return core.offset_S + sharp_support_point_S(core.shape, d) +
           shape.smoothing_radius * d.normalized();
  }
  return sharp_support_point_S(shape, d);
}

Shape copy_geometry(const Shape& shape) {
  Shape copy;
  copy.type = shape.type;
  copy.radius = shape.radius;
  copy.length = shape.length;
  copy.top_radius = shape.top_radius;
  copy.radii = shape.radii;
  copy.half_extents = shape.half_extents;
  copy.normal_S = shape.normal_S;
  copy.offset = shape.offset;
  copy.hull = shape.hull;
  return copy;
}

SmoothingCore compute_smoothing_core(const Shape& shape) {
  SmoothingCore core{copy_geometry(shape), Vec3::Zero()};
  const double s = shape.smoothing_radius;
  if (!(s > 0.0)) return core;
  switch (shape.type) {
    case ShapeType::box:
      core.shape.half_extents = shape.half_extents - Vec3::Constant(s);
      break;
    case ShapeType::cylinder:
      core.shape.radius = shape.radius - s;
      core.shape.length = shape.length - 2.0 * s;
      break;
    case ShapeType::cone: {
      // The axial section, a trapezoid: its caps move in by s, its slanted side by s along its
      // normal, which is s hypot(L, r1 - r0) / L across. Where that leaves a negative radius the
      // core ends in an apex, at the height where the moved side meets the axis.
      const double half = 0.5 * shape.length;
      const double r0 = shape.radius, r1 = shape.top_radius;
      const double inset = s * std::hypot(shape.length, r1 - r0) / shape.length;
      const auto core_radius = [&](double z) {
        return r0 + (r1 - r0) * (z + half) / shape.length - inset;
      };
      double z_low = -half + s, z_high = half - s;
      const double z_apex = -half + shape.length * (inset - r0) / (r1 - r0);  // radius 0 there
      if (core_radius(z_high) < 0.0) z_high = z_apex;
      if (core_radius(z_low) < 0.0) z_low = z_apex;
      core.shape.radius = std::max(0.0, core_radius(z_low));
      core.shape.top_radius = std::max(0.0, core_radius(z_high));
      core.shape.length = z_high - z_low;
      core.offset_S = Vec3(0.0, 0.0, 0.5 * (z_low + z_high));
      break;
    }
    case ShapeType::sphere:
    case ShapeType::capsule:
    case ShapeType::ellipsoid:
    case ShapeType::convex:
    case ShapeType::halfspace:
    case ShapeType::mesh:
    case ShapeType::heightmap:
      break;  // smooth already, or (convex) not rounded: the loader refuses a smoothing radius
  }
  return core;
}

double compute_shape_thickness(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::sphere:
    case ShapeType::capsule:
      return 2.0 * shape.radius;
    case ShapeType::box:
      return 2.0 * shape.half_extents.minCoeff();
    case ShapeType::cylinder:
      return std::min(2.0 * shape.radius, shape.length);
    case ShapeType::cone: {
      // A solid of revolution is as wide in a direction as its axial section, here a trapezoid
      // (parallel sides 2 r0, 2 r1 at distance L); a polygon is thinnest across one of its edges:
      // L across the parallel sides, 2 max(r) L / hypot(L, r0 - r1) across a slanted one.
      const double wider = std::max(shape.radius, shape.top_radius);
      const double slant = std::hypot(shape.length, shape.radius - shape.top_radius);
      return std::min(shape.length, 2.0 * wider * shape.length / slant);
    }
    case ShapeType::ellipsoid:
      return 2.0 * shape.radii.minCoeff();
    case ShapeType::convex:
      return shape.hull->thickness;
    case ShapeType::mesh:  // on a free body, its hull's (a bound for a convex mesh only)
      return shape.hull ? shape.hull->thickness : kInfinity;
    case ShapeType::halfspace:
    case ShapeType::heightmap:  // terrain: the moving partner bounds the step
      return kInfinity;
  }
  return kInfinity;
}

double compute_bounding_radius(const Shape& shape) {
  const double half_length = 0.5 * shape.length;
  switch (shape.type) {
    case ShapeType::sphere:
      return shape.radius;
    case ShapeType::box:
      return shape.half_extents.norm();
    case ShapeType::capsule:
      return half_length + shape.radius;
    case ShapeType::cylinder:
      return std::hypot(half_length, shape.radius);
    case ShapeType::cone:
      return std::hypot(half_length, std::max(shape.radius, shape.top_radius));
    case ShapeType::ellipsoid:
      return shape.radii.maxCoeff();
    case ShapeType::convex:
      return shape.hull->bounding_radius;
    case ShapeType::halfspace:
      return kInfinity;
    case ShapeType::mesh:
    case ShapeType::heightmap:
      return shape.surface->min_S.cwiseAbs().cwiseMax(shape.surface->max_S.cwiseAbs()).norm();
  }
  return kInfinity;
}

}  // namespace hybridsim
