// Convex hulls of point sets (design.md §6): the qhull adapter, the only file that includes
// qhull's headers. It turns a vertex list (a scene's `vertices`, or a mesh file's points) into
// core/model.hpp's ConvexHull: the corners, outward triangles, distinct face normals and edge
// directions, centred on the centroid of its volume (the loader moves a mesh's hull back into the
// mesh's frame).
#pragma once

#include <span>

#include "core/math.hpp"
#include "core/model.hpp"

namespace hybridsim {

// A hull and where its centroid sat in the frame the points were given in.
struct BuiltConvexHull {
  ConvexHull hull;                     // vertices relative to the centroid
  Vec3 centroid_input = Vec3::Zero();  // m, the centroid of volume in the input frame
};

// The hull of `points` (m, any frame). Throws InputError with the reason when the points do not
// span a solid: fewer than 4, a non-finite coordinate, all on one plane or line (to 1e-9 of the
// set's extent), or a qhull failure (its message is quoted).
BuiltConvexHull build_convex_hull(std::span<const Vec3> points);

// The point of the hull farthest along direction_S (any length, non-zero): the vertex of largest
// projection, or the mean of the vertices that tie exactly (the middle of an edge or face).
Vec3 compute_hull_support_point_S(const ConvexHull& hull, const Vec3& direction_S);

// Volume (m^3), first moment (m^4) and inertia per unit density (m^5, S axes) of the hull about
// S's origin, summed over the tetrahedra that its triangles span with the origin.
struct HullVolumeIntegrals {
  double volume = 0.0;
  Vec3 first_moment_S = Vec3::Zero();          // m^4, zero for a hull built here
  Mat3 unit_density_inertia_S = Mat3::Zero();  // m^5, about S's origin
};
HullVolumeIntegrals integrate_hull_volume(const ConvexHull& hull);
// The same integrals of any closed surface of outward (counter-clockwise) triangles, convex or
// not: the tetrahedra's signed volumes cancel outside the solid. A mesh on a moving body.
HullVolumeIntegrals integrate_closed_surface_volume(std::span<const Vec3> vertices_S,
                                                    std::span<const std::array<int, 3>> triangles);

}  // namespace hybridsim
