// Triangle surfaces: the terrain a shape rests, slides and rolls on (design.md §4b). A triangle
// mesh (non-convex allowed, open allowed) or a heightmap's grid (two triangles per cell), both in
// their shape frame S, with what contacts need beyond the triangles: each edge's neighbour and
// crease, each vertex's fan of triangles, and a query for the triangles near a box (a
// bounding-volume hierarchy for meshes, the grid's own cells for heightmaps).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/math.hpp"

namespace hybridsim {

// How the surface bends across an edge, seen from outside (the side the normals point to).
enum class Crease : std::uint8_t {
  boundary,  // no neighbour: the edge of an open surface
  convex,    // the neighbour bends away (a ridge)
  flat,      // coplanar to 1e-9 rad
  concave,   // the neighbour bends up (a valley): each face carries its own contact points
};

// Refused before anything is allocated (they would not fit a workstation's memory).
inline constexpr std::int64_t kMaxSurfaceTriangles = 10'000'000;
inline constexpr std::int64_t kMaxHeightmapCells = std::int64_t{1} << 24;

struct TriangleSurface {
  std::vector<Vec3> vertices_S;               // m
  std::vector<std::array<int, 3>> triangles;  // counter-clockwise seen from outside
  std::vector<Vec3> normals_S;                // unit outward normal of each triangle
  // Per triangle, across its edge k (vertex k to vertex k + 1): the neighbour triangle (-1 none)
  // and the crease there.
  std::vector<std::array<int, 3>> neighbours;
  std::vector<std::array<Crease, 3>> creases;
  // Each vertex's triangles, in increasing order: fan_triangles[fan_start[v] .. fan_start[v + 1]).
  // The first reports a contact at the vertex, so that it is found once.
  std::vector<int> fan_start;
  std::vector<int> fan_triangles;
  // Per vertex, 1 where the surface is strictly convex (a peak: every neighbour lies below the
  // plane through it normal to its triangles' mean normal, by more than 1e-9 rad), and how many;
  // a box's or hull's face meets them (collision/terrain_peaks.hpp).
  std::vector<char> peaks;
  int peak_count = 0;
  // Edges whose crease is convex (a ridge) and edges on the border: where none is near, a
  // capsule's side has nothing to meet (collision/terrain_side.hpp).
  int convex_edge_count = 0;
  int border_edge_count = 0;
  Vec3 min_S = Vec3::Zero();  // bounds of the vertices, m
  Vec3 max_S = Vec3::Zero();
  int skipped_triangles = 0;  // degenerate triangles left out (zero area, repeated vertex)

  // Meshes: a bounding-volume hierarchy over the triangles' boxes.
  struct Node {
    Vec3 min_S;
    Vec3 max_S;
    int first;  // leaf: first index into node_triangles; inner: the left child (right = +1)
    int count;  // leaf: its triangles; inner: 0
  };
  std::vector<Node> nodes;
  std::vector<int> node_triangles;

  // Heightmaps: the grid (columns along x, rows along y); triangles 2 (row (columns - 1) + column)
  // and the next one make cell (row, column).
  int grid_columns = 0;
  int grid_rows = 0;
  double spacing_x = 0.0;  // m
  double spacing_y = 0.0;  // m

  // Calls `visit(triangle)` for every triangle whose box (heightmaps: its cell's box) lies within
  // `radius` of `centre_S`. Allocates nothing.
  template <class Visit>
  void for_each_triangle_near(const Vec3& centre_S, double radius, Visit&& visit) const;

  // The size of the surface: the diagonal of its bounds, m.
  double size() const { return (max_S - min_S).norm(); }

  // Whether every edge has a neighbour: the surface bounds a solid (a mesh that gives a body its
  // mass).
  bool is_closed() const {
    return std::all_of(creases.begin(), creases.end(), [](const std::array<Crease, 3>& c) {
      return c[0] != Crease::boundary && c[1] != Crease::boundary && c[2] != Crease::boundary;
    });
  }
};

// A surface of the triangles (indices into `vertices_S`, counter-clockwise seen from outside).
// Degenerate triangles are skipped and counted; throws InputError for non-finite or out-of-range
// numbers, more than kMaxSurfaceTriangles triangles, two triangles that give one edge the same
// direction (their normals disagree) or no triangle left.
TriangleSurface build_mesh_surface(std::vector<Vec3> vertices_S,
                                   const std::vector<std::array<int, 3>>& triangles);

// A heightmap centred on S: heights[row][column] (m) over extent_x by extent_y, row 0 at
// y = -extent_y / 2 and column 0 at x = -extent_x / 2. Throws InputError for fewer than 2 rows or
// columns, ragged rows, a non-finite height (naming its row and column) or above
// kMaxHeightmapCells cells.
TriangleSurface build_heightmap_surface(const std::vector<std::vector<double>>& heights,
                                        double extent_x, double extent_y);

// ---------------------------------------------------------------------------------------------

// The squared distance of point p from the box [min, max] (0 inside).
inline double squared_distance_to_box(const Vec3& p, const Vec3& min, const Vec3& max) {
  return (min - p).cwiseMax(p - max).cwiseMax(0.0).squaredNorm();
}

template <class Visit>
void TriangleSurface::for_each_triangle_near(const Vec3& centre, double radius,
                                             Visit&& visit) const {
  const double reach_squared = radius * radius;
  if (squared_distance_to_box(centre, min_S, max_S) > reach_squared) return;
  if (grid_columns > 0) {
    const auto cell_range = [](double low, double high, double origin, double spacing, int cells,
                               int& first, int& last) {
      // Clamped as doubles: a far or non-finite query must not overflow the conversion.
      const auto cell = [&](double x) {
        const double index = std::floor((x - origin) / spacing);
        return index >= 0.0 ? static_cast<int>(std::min(index, static_cast<double>(cells))) : -1;
      };
      first = std::max(0, cell(low));
      last = std::min(cells - 1, cell(high));
    };
    // Only the disc of the ball that reaches the grid's height range counts: over flat ground a
    // ball's query covers its contact's neighbourhood, not its width.
    const double gap = std::max({0.0, centre.z() - max_S.z(), min_S.z() - centre.z()});
    const double half_width = std::sqrt(std::max(0.0, reach_squared - gap * gap));
    int r0, r1;
    cell_range(centre.y() - half_width, centre.y() + half_width, min_S.y(), spacing_y,
               grid_rows - 1, r0, r1);
    for (int row = r0; row <= r1; ++row) {
      // The disc's width over this row of cells (at its y nearest the centre).
      const double y_low = min_S.y() + row * spacing_y;
      const double dy = std::max({0.0, y_low - centre.y(), centre.y() - (y_low + spacing_y)});
      const double row_half_width = std::sqrt(std::max(0.0, half_width * half_width - dy * dy));
      int c0, c1;
      cell_range(centre.x() - row_half_width, centre.x() + row_half_width, min_S.x(), spacing_x,
                 grid_columns - 1, c0, c1);
      for (int column = c0; column <= c1; ++column) {
        // The cell's box: its corners' heights.
        const std::size_t v00 = static_cast<std::size_t>(row) * grid_columns + column;
        const std::size_t v01 = v00 + static_cast<std::size_t>(grid_columns);
        const double z0 = std::min({vertices_S[v00].z(), vertices_S[v00 + 1].z(),
                                    vertices_S[v01].z(), vertices_S[v01 + 1].z()});
        const double z1 = std::max({vertices_S[v00].z(), vertices_S[v00 + 1].z(),
                                    vertices_S[v01].z(), vertices_S[v01 + 1].z()});
        const Vec3 low(vertices_S[v00].x(), vertices_S[v00].y(), z0);
        const Vec3 high(vertices_S[v01 + 1].x(), vertices_S[v01 + 1].y(), z1);
        if (squared_distance_to_box(centre, low, high) > reach_squared) continue;
        const int first = 2 * (row * (grid_columns - 1) + column);
        visit(first);
        visit(first + 1);
      }
    }
    return;
  }
  std::array<int, 64> stack;
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes[static_cast<std::size_t>(stack[--top])];
    if (squared_distance_to_box(centre, node.min_S, node.max_S) > reach_squared) continue;
    if (node.count > 0) {
      for (int k = node.first; k < node.first + node.count; ++k) {
        visit(node_triangles[static_cast<std::size_t>(k)]);
      }
    } else {
      stack[top++] = node.first;
      stack[top++] = node.first + 1;
    }
  }
}

}  // namespace hybridsim
