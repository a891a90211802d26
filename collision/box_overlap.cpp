#include "collision/box_overlap.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace hybridsim {
namespace {

// A convex polygon of at most 4 + 6 vertices: a box face clipped by the six planes of the other box
// gains at most one vertex per plane.
struct Polygon {
  std::array<Vec3, 10> vertices_W;
  int count = 0;
};

// A face plane {x : normal_W . x <= level} of a box, the box on its inner side.
struct Plane {
  Vec3 normal_W;
  double level;
};

struct PlacedBox {
  std::array<Plane, 6> planes;
  std::array<Polygon, 6> faces;  // each with its 4 corners in order around the face
};

PlacedBox place_box(const Shape& box, const Pose& X_WB) {
  PlacedBox placed;
  const Vec3& h = box.half_extents;
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    for (int side = 0; side < 2; ++side) {
      const double sign = side == 0 ? 1.0 : -1.0;
      const int index = 2 * axis + side;
      const Vec3 normal_W = sign * X_WB.rotation.col(axis);
      placed.planes[index] = {normal_W, normal_W.dot(X_WB.translation) + h[axis]};
      // The corners at (+-h_u, +-h_v) go around the face in order.
      constexpr std::array<std::array<double, 2>, 4> kCorners{{{1, 1}, {-1, 1}, {-1, -1}, {1, -1}}};
      Polygon& face = placed.faces[index];
      for (const auto& [cu, cv] : kCorners) {
        Vec3 corner_B = Vec3::Zero();
        corner_B[axis] = sign * h[axis];
        corner_B[u] = cu * h[u];
        corner_B[v] = cv * h[v];
        face.vertices_W[face.count++] = X_WB.transform_point(corner_B);
      }
    }
  }
  return placed;
}

// The part of `polygon` on the inner side of `plane` (Sutherland-Hodgman, one plane).
Polygon clip(const Polygon& polygon, const Plane& plane) {
  Polygon result;
  for (int i = 0; i < polygon.count; ++i) {
    const Vec3& p = polygon.vertices_W[i];
    const Vec3& q = polygon.vertices_W[(i + 1) % polygon.count];
    const double height_p = plane.normal_W.dot(p) - plane.level;
    const double height_q = plane.normal_W.dot(q) - plane.level;
    if (height_p <= 0.0) result.vertices_W[result.count++] = p;
    if ((height_p < 0.0 && height_q > 0.0) || (height_p > 0.0 && height_q < 0.0)) {
      result.vertices_W[result.count++] = p + (height_p / (height_p - height_q)) * (q - p);
    }
  }
  return result;
}

// Whether two face planes coincide, outward normals alike. Where a face of A and a face of B lie
// in one plane, their common part is a single face of the overlap: it is counted once, from A,
// and A's face is not clipped by B's coincident plane (rounding could put it on the outer side).
bool coincide(const Plane& p, const Plane& q, double tolerance) {
  return p.normal_W.dot(q.normal_W) > 1.0 - 1e-12 && std::abs(p.level - q.level) <= tolerance;
}

bool has_coincident_plane(const PlacedBox& box, const Plane& plane, double tolerance) {
  for (const Plane& candidate : box.planes) {
    if (coincide(candidate, plane, tolerance)) return true;
  }
  return false;
}

// Accumulates volume and first moment of the cone from `apex_W` (a point of the overlap) over the
// triangles of a boundary polygon. The overlap is convex and holds the apex, so every such
// tetrahedron lies inside it and they do not overlap: the unsigned volumes add up.
struct VolumeMoments {
  double volume = 0.0;
  Vec3 moment = Vec3::Zero();  // integral of (x - apex) over the volume

  void add_cone(const Polygon& polygon, const Vec3& apex_W) {
    if (polygon.count < 3) return;
    const Vec3 p0 = polygon.vertices_W[0] - apex_W;
    for (int i = 1; i + 1 < polygon.count; ++i) {
      const Vec3 p1 = polygon.vertices_W[i] - apex_W;
      const Vec3 p2 = polygon.vertices_W[i + 1] - apex_W;
      const double tetra_volume = std::abs(p0.dot(p1.cross(p2))) / 6.0;
      volume += tetra_volume;
      moment += tetra_volume * 0.25 * (p0 + p1 + p2);
    }
  }
};

}  // namespace

std::optional<BoxOverlap> compute_box_overlap(const Shape& a, const Pose& X_WA, const Shape& b,
                                              const Pose& X_WB) {
  const PlacedBox box_a = place_box(a, X_WA), box_b = place_box(b, X_WB);
  const double size = std::min(a.half_extents.minCoeff(), b.half_extents.minCoeff());
  const double coincidence_tolerance = 1e-12 * size;

  // The overlap's boundary: each face of one box clipped by the planes of the other.
  std::array<Polygon, 12> boundary;
  int boundary_count = 0;
  for (const auto& [faces_of, planes_of] : {std::pair{&box_a, &box_b}, std::pair{&box_b, &box_a}}) {
    for (int f = 0; f < 6; ++f) {
      const Plane& face_plane = faces_of->planes[f];
      const bool from_b = faces_of == &box_b;
      if (from_b && has_coincident_plane(box_a, face_plane, coincidence_tolerance)) continue;
      Polygon clipped = faces_of->faces[f];
      for (const Plane& plane : planes_of->planes) {
        if (!from_b && coincide(plane, face_plane, coincidence_tolerance)) continue;
        clipped = clip(clipped, plane);
        if (clipped.count == 0) break;
      }
      if (clipped.count >= 3) boundary[boundary_count++] = clipped;
    }
  }
  if (boundary_count == 0) return std::nullopt;

  // Volume and centroid from cones on a vertex of the overlap, so that a small overlap far from
  // the boxes' centres keeps its relative precision.
  const Vec3 apex_W = boundary[0].vertices_W[0];
  VolumeMoments moments;
  for (int i = 0; i < boundary_count; ++i) moments.add_cone(boundary[i], apex_W);
  // Faces that only touch leave a volume of the order of the rounding (1e-16 of the size per
  // coordinate): below 1e-14 of the smaller box's volume the overlap counts as none.
  if (!(moments.volume > 1e-14 * std::pow(size, 3))) return std::nullopt;
  return BoxOverlap{moments.volume, apex_W + moments.moment / moments.volume};
}

}  // namespace hybridsim
