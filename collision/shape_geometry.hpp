// Geometry of one convex shape in its own frame S (design.md §6): the support function, the
// thickness a body passing through it meets, and the radius of a ball about S's origin that holds
// it. Every shape is centred on S's origin (its interior centre); core/model.hpp gives the
// parameters. Not for half-spaces, which are unbounded.
#pragma once

#include "core/math.hpp"
#include "core/model.hpp"

namespace hybridsim {

// The point of the shape farthest along direction_S (any length, non-zero), in S. Where a whole
// face or edge is farthest (direction perpendicular to it), the middle of that face or edge, so
// that a flat contact takes its centre. With a smoothing radius s: the core's point plus s along
// the direction.
Vec3 compute_support_point_S(const Shape& shape, const Vec3& direction_S);

// The shape's type and dimensions, sharp (no smoothing radius), everything else default: a copy
// that allocates nothing (no name; a convex hull is shared, not copied).
Shape copy_geometry(const Shape& shape);

// A shape with a smoothing radius s is its core grown by a ball of radius s. The core is a sharp
// shape of the same type, its frame at `offset_S` in S (a cone's core is shorter at the apex).
struct SmoothingCore {
  Shape shape;
  Vec3 offset_S = Vec3::Zero();
};

// The core of a box, cylinder or cone with a smoothing radius (the shape's inward offset by the
// radius); the shape itself, at offset zero, when it has none.
SmoothingCore compute_smoothing_core(const Shape& shape);

// The smallest width of the shape (m): sphere and capsule diameters, a box's smallest edge, ...;
// the step-size bound uses it so that no contact is stepped over.
double compute_shape_thickness(const Shape& shape);

// Radius (m) of the smallest ball about S's origin that holds the shape.
double compute_bounding_radius(const Shape& shape);

}  // namespace hybridsim
