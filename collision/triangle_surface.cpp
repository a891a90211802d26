#include "collision/triangle_surface.hpp"

#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace hybridsim {
namespace {

// Two faces meeting at less than this bend (rad) are coplanar: a flat floor triangulated at
// random stays one plane for contacts.
constexpr double kFlatCreaseAngle = 1e-9;
constexpr int kLeafTriangles = 4;

std::uint64_t edge_key(int from, int to) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(from)) << 32) |
         static_cast<std::uint32_t>(to);
}

Crease classify_crease(const Vec3& n_own, const Vec3& n_neighbour, const Vec3& edge_point,
                       const Vec3& far_vertex) {
  const double bend = std::atan2(n_own.cross(n_neighbour).norm(), n_own.dot(n_neighbour));
  if (bend <= kFlatCreaseAngle) return Crease::flat;
  // The neighbour's far vertex below this face's plane: the surface bends away, a ridge.
  return n_own.dot(far_vertex - edge_point) < 0.0 ? Crease::convex : Crease::concave;
}

// The crease across edge k of triangle t, whose neighbour there is u.
void set_neighbour(TriangleSurface& surface, std::size_t t, int k, int u) {
  const auto& tri = surface.triangles[t];
  const auto& other = surface.triangles[static_cast<std::size_t>(u)];
  int far = other[0];
  for (const int v : other) {
    if (v != tri[k] && v != tri[(k + 1) % 3]) far = v;
  }
  surface.neighbours[t][static_cast<std::size_t>(k)] = u;
  surface.creases[t][static_cast<std::size_t>(k)] =
      classify_crease(surface.normals_S[t], surface.normals_S[static_cast<std::size_t>(u)],
                      surface.vertices_S[static_cast<std::size_t>(tri[k])],
                      surface.vertices_S[static_cast<std::size_t>(far)]);
}

// Neighbours and creases of a mesh, by matching each directed edge with its reverse; errors name
// triangles by their index in the input (`input_index`, degenerate ones left out).
void connect_edges(TriangleSurface& surface, const std::vector<int>& input_index) {
  const std::size_t count = surface.triangles.size();
  std::unordered_map<std::uint64_t, int> directed;  // edge (from, to) -> triangle * 3 + k
  directed.reserve(3 * count);
  for (std::size_t t = 0; t < count; ++t) {
    for (int k = 0; k < 3; ++k) {
      const auto& tri = surface.triangles[t];
      const auto [it, inserted] =
          directed.try_emplace(edge_key(tri[k], tri[(k + 1) % 3]), static_cast<int>(3 * t + k));
      if (!inserted) {
        throw InputError(fmt::format(
            "triangles {} and {} both run along the edge from vertex {} to vertex {}: their "
            "normals disagree (triangles must be counter-clockwise seen from outside)",
            input_index[static_cast<std::size_t>(it->second / 3)], input_index[t], tri[k],
            tri[(k + 1) % 3]));
      }
    }
  }
  for (std::size_t t = 0; t < count; ++t) {
    const auto& tri = surface.triangles[t];
    for (int k = 0; k < 3; ++k) {
      const auto reverse = directed.find(edge_key(tri[(k + 1) % 3], tri[k]));
      if (reverse != directed.end()) set_neighbour(surface, t, k, reverse->second / 3);
    }
  }
}

// Neighbours and creases of a heightmap's grid, from the cells' layout: cell (row, column) holds
// triangle 0 (v00, v10, v11) and triangle 1 (v00, v11, v01).
void connect_grid(TriangleSurface& surface) {
  const int columns = surface.grid_columns - 1, rows = surface.grid_rows - 1;
  const auto first = [columns](int row, int column) { return 2 * (row * columns + column); };
  for (int row = 0; row < rows; ++row) {
    for (int column = 0; column < columns; ++column) {
      const auto t0 = static_cast<std::size_t>(first(row, column)), t1 = t0 + 1;
      if (row > 0) set_neighbour(surface, t0, 0, first(row - 1, column) + 1);  // bottom
      if (column + 1 < columns) set_neighbour(surface, t0, 1, first(row, column + 1) + 1);
      set_neighbour(surface, t0, 2, static_cast<int>(t1));  // the diagonal
      set_neighbour(surface, t1, 0, static_cast<int>(t0));
      if (row + 1 < rows) set_neighbour(surface, t1, 1, first(row + 1, column));  // top
      if (column > 0) set_neighbour(surface, t1, 2, first(row, column - 1));      // left
    }
  }
}

// Whether every neighbour of vertex v lies below the plane through it normal to the mean of its
// triangles' normals, by more than 1e-9 rad (flat or bending up anywhere: no peak).
bool is_strict_peak(const TriangleSurface& surface, int v) {
  const auto vi = static_cast<std::size_t>(v);
  const int first = surface.fan_start[vi], last = surface.fan_start[vi + 1];
  Vec3 n = Vec3::Zero();
  for (int i = first; i < last; ++i) {
    n += surface.normals_S[static_cast<std::size_t>(
        surface.fan_triangles[static_cast<std::size_t>(i)])];
  }
  if (!(n.norm() > 0.0)) return false;  // no triangle, or a fan that folds onto itself
  n.normalize();
  const Vec3& apex = surface.vertices_S[vi];
  for (int i = first; i < last; ++i) {
    for (const int w : surface.triangles[static_cast<std::size_t>(
             surface.fan_triangles[static_cast<std::size_t>(i)])]) {
      if (w == v) continue;
      const Vec3 to_neighbour = surface.vertices_S[static_cast<std::size_t>(w)] - apex;
      if (!(n.dot(to_neighbour) < -1e-9 * to_neighbour.norm())) return false;
    }
  }
  return true;
}

// Neighbours, creases, vertex fans, peaks and the bounds, of a surface whose vertices, triangles
// and normals are set (`input_index`: each mesh triangle's index in the input, for messages).
void connect(TriangleSurface& surface, const std::vector<int>& input_index = {}) {
  const std::size_t count = surface.triangles.size();
  surface.neighbours.assign(count, {-1, -1, -1});
  surface.creases.assign(count, {Crease::boundary, Crease::boundary, Crease::boundary});
  if (surface.grid_columns > 0) {
    connect_grid(surface);
  } else {
    connect_edges(surface, input_index);
  }

  // Fans: counted, then filled in triangle order (so each fan is sorted).
  const std::size_t vertex_count = surface.vertices_S.size();
  surface.fan_start.assign(vertex_count + 1, 0);
  for (const auto& tri : surface.triangles) {
    for (const int v : tri) ++surface.fan_start[static_cast<std::size_t>(v) + 1];
  }
  std::partial_sum(surface.fan_start.begin(), surface.fan_start.end(), surface.fan_start.begin());
  surface.fan_triangles.resize(static_cast<std::size_t>(surface.fan_start.back()));
  std::vector<int> filled(surface.fan_start.begin(), surface.fan_start.end() - 1);
  for (std::size_t t = 0; t < count; ++t) {
    for (const int v : surface.triangles[t]) {
      surface.fan_triangles[static_cast<std::size_t>(filled[static_cast<std::size_t>(v)]++)] =
          static_cast<int>(t);
    }
  }

  surface.convex_edge_count = 0;
  surface.border_edge_count = 0;
  for (const auto& creases : surface.creases) {
    for (const Crease crease : creases) {
      surface.convex_edge_count += crease == Crease::convex ? 1 : 0;
      surface.border_edge_count += crease == Crease::boundary ? 1 : 0;
    }
  }

  surface.peaks.assign(vertex_count, 0);
  for (std::size_t v = 0; v < vertex_count; ++v) {
    surface.peaks[v] = is_strict_peak(surface, static_cast<int>(v)) ? 1 : 0;
    surface.peak_count += surface.peaks[v];
  }

  surface.min_S = Vec3::Constant(kInfinity);
  surface.max_S = Vec3::Constant(-kInfinity);
  for (const auto& tri : surface.triangles) {
    for (const int v : tri) {
      surface.min_S = surface.min_S.cwiseMin(surface.vertices_S[static_cast<std::size_t>(v)]);
      surface.max_S = surface.max_S.cwiseMax(surface.vertices_S[static_cast<std::size_t>(v)]);
    }
  }
}

// Fills nodes[slot] with the hierarchy over node_triangles[first, first + count): split at the
// median of the triangles' centres along the longest axis of their spread.
void build_node(TriangleSurface& surface, const std::vector<Vec3>& centres, int slot, int first,
                int count) {
  Vec3 min = Vec3::Constant(kInfinity), max = Vec3::Constant(-kInfinity);
  Vec3 centre_min = min, centre_max = max;
  for (int k = first; k < first + count; ++k) {
    const auto t = static_cast<std::size_t>(surface.node_triangles[static_cast<std::size_t>(k)]);
    for (const int v : surface.triangles[t]) {
      min = min.cwiseMin(surface.vertices_S[static_cast<std::size_t>(v)]);
      max = max.cwiseMax(surface.vertices_S[static_cast<std::size_t>(v)]);
    }
    centre_min = centre_min.cwiseMin(centres[t]);
    centre_max = centre_max.cwiseMax(centres[t]);
  }
  surface.nodes[static_cast<std::size_t>(slot)] = {min, max, first, count};
  if (count <= kLeafTriangles) return;

  int axis = 0;
  (centre_max - centre_min).maxCoeff(&axis);
  const auto begin = surface.node_triangles.begin() + first;
  std::nth_element(begin, begin + count / 2, begin + count, [&](int p, int q) {
    return centres[static_cast<std::size_t>(p)][axis] < centres[static_cast<std::size_t>(q)][axis];
  });
  // The two children are adjacent: the left at `first`, the right after it.
  const auto children = static_cast<int>(surface.nodes.size());
  surface.nodes.emplace_back();
  surface.nodes.emplace_back();
  surface.nodes[static_cast<std::size_t>(slot)].first = children;
  surface.nodes[static_cast<std::size_t>(slot)].count = 0;
  build_node(surface, centres, children, first, count / 2);
  build_node(surface, centres, children + 1, first + count / 2, count - count / 2);
}

void build_hierarchy(TriangleSurface& surface) {
  const std::size_t count = surface.triangles.size();
  std::vector<Vec3> centres(count);
  for (std::size_t t = 0; t < count; ++t) {
    const auto& tri = surface.triangles[t];
    centres[t] = (surface.vertices_S[static_cast<std::size_t>(tri[0])] +
                  surface.vertices_S[static_cast<std::size_t>(tri[1])] +
                  surface.vertices_S[static_cast<std::size_t>(tri[2])]) /
                 3.0;
  }
  surface.node_triangles.resize(count);
  std::iota(surface.node_triangles.begin(), surface.node_triangles.end(), 0);
  surface.nodes.reserve(4 * count / kLeafTriangles + 2);
  surface.nodes.emplace_back();
  build_node(surface, centres, 0, 0, static_cast<int>(count));
}

}  // namespace

TriangleSurface build_mesh_surface(std::vector<Vec3> vertices_S,
                                   const std::vector<std::array<int, 3>>& triangles) {
  if (static_cast<std::int64_t>(triangles.size()) > kMaxSurfaceTriangles) {
    throw InputError(fmt::format("{} triangles: more than the {} a mesh may have", triangles.size(),
                                 kMaxSurfaceTriangles));
  }
  for (std::size_t v = 0; v < vertices_S.size(); ++v) {
    if (!vertices_S[v].allFinite()) {
      throw InputError(fmt::format("vertex {} is not finite ({}, {}, {})", v, vertices_S[v].x(),
                                   vertices_S[v].y(), vertices_S[v].z()));
    }
  }
  TriangleSurface surface;
  surface.vertices_S = std::move(vertices_S);
  const auto vertex_count = static_cast<int>(surface.vertices_S.size());
  double largest = 0.0;
  for (const Vec3& p : surface.vertices_S) largest = std::max(largest, p.cwiseAbs().maxCoeff());
  std::vector<int> input_index;
  input_index.reserve(triangles.size());
  surface.triangles.reserve(triangles.size());
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    const auto& tri = triangles[t];
    for (const int v : tri) {
      if (v < 0 || v >= vertex_count) {
        throw InputError(
            fmt::format("triangle {} names vertex {} (there are {} vertices)", t, v, vertex_count));
      }
    }
    const Vec3& a = surface.vertices_S[static_cast<std::size_t>(tri[0])];
    const Vec3 normal = (surface.vertices_S[static_cast<std::size_t>(tri[1])] - a)
                            .cross(surface.vertices_S[static_cast<std::size_t>(tri[2])] - a);
    // A zero area at the coordinates' precision (relative to the mesh's extent): no normal.
    if (!(normal.norm() > 1e-24 * largest * largest) || tri[0] == tri[1] || tri[1] == tri[2] ||
        tri[0] == tri[2]) {
      ++surface.skipped_triangles;
      continue;
    }
    surface.triangles.push_back(tri);
    surface.normals_S.push_back(normal.normalized());
    input_index.push_back(static_cast<int>(t));
  }
  if (surface.triangles.empty()) throw InputError("no triangle with a non-zero area");
  connect(surface, input_index);
  build_hierarchy(surface);
  return surface;
}

TriangleSurface build_heightmap_surface(const std::vector<std::vector<double>>& heights,
                                        double extent_x, double extent_y) {
  const std::size_t rows = heights.size();
  const std::size_t columns = rows > 0 ? heights[0].size() : 0;
  if (rows < 2 || columns < 2) {
    throw InputError(fmt::format("a heightmap needs at least 2 rows and 2 columns, not {} by {}",
                                 rows, columns));
  }
  const auto cells = static_cast<std::int64_t>((rows - 1) * (columns - 1));
  if (cells > kMaxHeightmapCells) {
    throw InputError(
        fmt::format("{} by {} points make {} cells, more than the {} a heightmap may "
                    "have",
                    rows, columns, cells, kMaxHeightmapCells));
  }
  if (!(extent_x > 0.0) || !(extent_y > 0.0) || !std::isfinite(extent_x) ||
      !std::isfinite(extent_y)) {
    throw InputError("a heightmap's size must be positive and finite");
  }
  TriangleSurface surface;
  surface.grid_columns = static_cast<int>(columns);
  surface.grid_rows = static_cast<int>(rows);
  surface.spacing_x = extent_x / static_cast<double>(columns - 1);
  surface.spacing_y = extent_y / static_cast<double>(rows - 1);
  surface.vertices_S.reserve(rows * columns);
  for (std::size_t row = 0; row < rows; ++row) {
    if (heights[row].size() != columns) {
      throw InputError(
          fmt::format("row {} has {} heights, row 0 has {}", row, heights[row].size(), columns));
    }
    for (std::size_t column = 0; column < columns; ++column) {
      const double z = heights[row][column];
      if (!std::isfinite(z)) {
        throw InputError(fmt::format("the height at row {}, column {} is {}", row, column, z));
      }
      surface.vertices_S.emplace_back(
          -0.5 * extent_x + static_cast<double>(column) * surface.spacing_x,
          -0.5 * extent_y + static_cast<double>(row) * surface.spacing_y, z);
    }
  }
  // Cell (row, column): corners 00, 10 (next column), 11, 01; the diagonal 00-11.
  surface.triangles.reserve(2 * static_cast<std::size_t>(cells));
  const auto index = [columns](std::size_t row, std::size_t column) {
    return static_cast<int>(row * columns + column);
  };
  for (std::size_t row = 0; row + 1 < rows; ++row) {
    for (std::size_t column = 0; column + 1 < columns; ++column) {
      const int v00 = index(row, column), v10 = index(row, column + 1);
      const int v11 = index(row + 1, column + 1), v01 = index(row + 1, column);
      surface.triangles.push_back({v00, v10, v11});
      surface.triangles.push_back({v00, v11, v01});
    }
  }
  surface.normals_S.reserve(surface.triangles.size());
  for (const auto& tri : surface.triangles) {
    const Vec3& a = surface.vertices_S[static_cast<std::size_t>(tri[0])];
    surface.normals_S.push_back((surface.vertices_S[static_cast<std::size_t>(tri[1])] - a)
                                    .cross(surface.vertices_S[static_cast<std::size_t>(tri[2])] - a)
                                    .normalized());
  }
  connect(surface);
  // The grid's bounds in x and y are its extent exactly (the cell lookup starts there).
  surface.min_S.head<2>() = Eigen::Vector2d(-0.5 * extent_x, -0.5 * extent_y);
  surface.max_S.head<2>() = Eigen::Vector2d(0.5 * extent_x, 0.5 * extent_y);
  return surface;
}

}  // namespace hybridsim
