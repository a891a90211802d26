// A triangle surface's edges as the terrain contacts name and cross them, and the candidates'
// order: shared by the ball walk (collision/terrain_contact.cpp), a capsule's side
// (collision/terrain_side.cpp) and the peaks (collision/terrain_peaks.cpp).
#pragma once

#include <algorithm>
#include <span>

#include "collision/contact_manifold.hpp"
#include "collision/triangle_surface.hpp"

namespace hybridsim {

// Vertex k (mod 3) of triangle t.
inline const Vec3& vertex_of(const TriangleSurface& s, int t, int k) {
  return s.vertices_S[static_cast<std::size_t>(s.triangles[static_cast<std::size_t>(t)][k % 3])];
}

// The outward perpendicular of edge k in the plane of triangle t, unit.
inline Vec3 edge_outward(const TriangleSurface& s, int t, int k) {
  return (vertex_of(s, t, k + 1) - vertex_of(s, t, k))
      .cross(s.normals_S[static_cast<std::size_t>(t)])
      .normalized();
}

// The position of edge k of triangle t in its neighbour u across it (which runs it the other way).
inline int edge_in_neighbour(const TriangleSurface& s, int t, int k, int u) {
  const auto& own = s.triangles[static_cast<std::size_t>(t)];
  const auto& other = s.triangles[static_cast<std::size_t>(u)];
  for (int j = 0; j < 3; ++j) {
    if (other[j] == own[(k + 1) % 3] && other[(j + 1) % 3] == own[k]) return j;
  }
  return 0;  // unreachable for neighbours built by connect()
}

// Edge k of triangle t named by the smaller of its two triangles.
inline Feature canonical_edge(const TriangleSurface& s, int t, int k) {
  const int u = s.neighbours[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)];
  if (u >= 0 && u < t) return {FeatureKind::face_edge, u, edge_in_neighbour(s, t, k, u)};
  return {FeatureKind::face_edge, t, k};
}

// Adds a candidate point to `out`, kept in distance order, the nearest first; beyond out.size()
// the farthest are only counted. `found` counts every candidate offered (before the cut).
inline void insert_by_distance(std::span<ManifoldPoint> out, int& found,
                               const ManifoldPoint& point) {
  const double distance = point.geometry.distance;
  std::size_t k = static_cast<std::size_t>(std::min(found, static_cast<int>(out.size())));
  ++found;
  if (k == out.size() && (out.empty() || out.back().geometry.distance <= distance)) return;
  if (k == out.size()) --k;
  while (k > 0 && out[k - 1].geometry.distance > distance) {
    out[k] = out[k - 1];
    --k;
  }
  out[k] = point;
}

}  // namespace hybridsim
