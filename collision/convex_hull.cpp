#include "collision/convex_hull.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

#include "core/errors.hpp"

namespace hybridsim {
namespace {

// Points that span less than this fraction of their extent in some direction are flat.
constexpr double kFlatness = 1e-9;
// Face normals (and edge directions) closer than this are one face (one edge direction): qhull's
// triangles of one merged face share their hyperplane exactly, rounding aside.
constexpr double kSameDirection = 1e-10;
// Above this many distinct edge directions the smallest width takes the inscribed ball's
// diameter about the centroid (a lower bound) instead of every edge-edge axis.
constexpr std::size_t kMaxEdgePairsForWidth = 128;

// Refuses point sets that do not span a solid, with a reason a scene author can act on: the
// largest tetrahedron found greedily (farthest point, farthest from the line, farthest from the
// plane) must have a height above kFlatness of the extent.
void check_spans_a_solid(std::span<const Vec3> points) {
  if (points.size() < 4) {
    throw InputError(
        fmt::format("a convex hull needs at least 4 non-coplanar vertices, got {}", points.size()));
  }
  for (const Vec3& p : points) {
    if (!p.allFinite()) throw InputError("a convex hull vertex is not finite");
  }
  const Vec3& p0 = points[0];
  const auto farthest = [&](auto&& distance) {
    std::size_t best = 0;
    double best_distance = -1.0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const double d = distance(points[i]);
      if (d > best_distance) best_distance = d, best = i;
    }
    return std::pair{best, best_distance};
  };
  const auto [i1, extent] = farthest([&](const Vec3& p) { return (p - p0).norm(); });
  if (!(extent > 0.0)) throw InputError("a convex hull's vertices all coincide");
  const Vec3 axis = (points[i1] - p0) / extent;
  const auto [i2, off_line] = farthest([&](const Vec3& p) { return (p - p0).cross(axis).norm(); });
  if (!(off_line > kFlatness * extent)) {
    throw InputError(fmt::format(
        "a convex hull's vertices lie on one line (within {:.3g} m); it needs 4 non-coplanar "
        "vertices",
        off_line));
  }
  const Vec3 normal = (points[i1] - p0).cross(points[i2] - p0).normalized();
  const auto [i3, off_plane] =
      farthest([&](const Vec3& p) { return std::abs((p - p0).dot(normal)); });
  if (!(off_plane > kFlatness * extent)) {
    throw InputError(fmt::format(
        "a convex hull's vertices are flat: all within {:.3g} m of one plane; it needs 4 "
        "non-coplanar vertices",
        off_plane));
  }
}

// qhull's state, freed on every path.
struct QhullSession {
  qhT state;
  char* error_text = nullptr;
  std::size_t error_size = 0;
  FILE* error_stream = nullptr;

  QhullSession() {
    error_stream = open_memstream(&error_text, &error_size);
    qh_zero(&state, error_stream);
  }
  ~QhullSession() {
    int current_long = 0, total_long = 0;
    qh_freeqhull(&state, !qh_ALL);
    qh_memfreeshort(&state, &current_long, &total_long);
    if (error_stream != nullptr) std::fclose(error_stream);
    std::free(error_text);
  }
  std::string message() {
    if (error_stream != nullptr) std::fflush(error_stream);
    return error_text != nullptr ? std::string(error_text, error_size) : std::string();
  }
};

// A unit direction `d` not yet in `directions` (up to sign when `either_sign`) is appended.
void add_distinct(std::vector<Vec3>& directions, const Vec3& d, bool either_sign) {
  for (const Vec3& known : directions) {
    if ((known - d).norm() < kSameDirection) return;
    if (either_sign && (known + d).norm() < kSameDirection) return;
  }
  directions.push_back(d);
}

// Each distinct face's boundary as a counter-clockwise loop: the directed edges of its triangles
// whose reverse is not also in the face, chained end to start.
void build_face_loops(ConvexHull& hull, const std::vector<Vec3>& triangle_normals) {
  const std::size_t face_count = hull.face_normals_S.size();
  std::vector<std::map<int, int>> next_of_vertex(face_count);  // per face: boundary edge i -> j
  std::vector<std::set<std::pair<int, int>>> directed_edges(face_count);
  std::vector<std::size_t> face_of_triangle(hull.triangles.size());
  for (std::size_t t = 0; t < hull.triangles.size(); ++t) {
    std::size_t best = 0;
    for (std::size_t f = 1; f < face_count; ++f) {
      if ((hull.face_normals_S[f] - triangle_normals[t]).norm() <
          (hull.face_normals_S[best] - triangle_normals[t]).norm()) {
        best = f;
      }
    }
    face_of_triangle[t] = best;
    const auto& triangle = hull.triangles[t];
    for (int k = 0; k < 3; ++k) directed_edges[best].emplace(triangle[k], triangle[(k + 1) % 3]);
  }
  for (std::size_t f = 0; f < face_count; ++f) {
    for (const auto& [i, j] : directed_edges[f]) {
      if (!directed_edges[f].contains({j, i})) next_of_vertex[f][i] = j;
    }
  }
  hull.face_loop_start.assign(1, 0);
  for (std::size_t f = 0; f < face_count; ++f) {
    const auto& next = next_of_vertex[f];
    if (next.empty()) throw SolverError("qhull returned a face without a boundary");
    const int first = next.begin()->first;
    int vertex = first;
    do {
      hull.face_loop_vertices.push_back(vertex);
      const auto it = next.find(vertex);
      const auto loop_size =
          hull.face_loop_vertices.size() - static_cast<std::size_t>(hull.face_loop_start.back());
      if (it == next.end() || loop_size > next.size()) {
        throw SolverError("qhull returned a face whose boundary is not one loop");
      }
      vertex = it->second;
    } while (vertex != first);
    hull.face_loop_start.push_back(static_cast<int>(hull.face_loop_vertices.size()));
  }
}

// The hull's width along unit n: the spread of the vertices' projections.
double width_along(const ConvexHull& hull, const Vec3& n) {
  double low = kInfinity, high = -kInfinity;
  for (const Vec3& v : hull.vertices_S) {
    const double h = v.dot(n);
    low = std::min(low, h);
    high = std::max(high, h);
  }
  return high - low;
}

// The smallest width of a polytope is along a face normal or an edge-edge axis (the two
// supporting planes touch a face and a vertex, or two edges).
double compute_hull_thickness(const ConvexHull& hull) {
  double thinnest = kInfinity;
  for (const Vec3& n : hull.face_normals_S) thinnest = std::min(thinnest, width_along(hull, n));
  const auto& edges = hull.edge_directions_S;
  if (edges.size() > kMaxEdgePairsForWidth) {
    double inradius = kInfinity;
    for (const Vec3& n : hull.face_normals_S) {
      double offset = -kInfinity;
      for (const Vec3& v : hull.vertices_S) offset = std::max(offset, v.dot(n));
      inradius = std::min(inradius, offset);
    }
    return std::min(thinnest, 2.0 * inradius);
  }
  for (std::size_t i = 0; i < edges.size(); ++i) {
    for (std::size_t j = i + 1; j < edges.size(); ++j) {
      const Vec3 axis = edges[i].cross(edges[j]);
      if (axis.norm() > 1e-9) thinnest = std::min(thinnest, width_along(hull, axis.normalized()));
    }
  }
  return thinnest;
}

}  // namespace

BuiltConvexHull build_convex_hull(std::span<const Vec3> points) {
  check_spans_a_solid(points);
  std::vector<coordT> coordinates;
  coordinates.reserve(3 * points.size());
  for (const Vec3& p : points) coordinates.insert(coordinates.end(), {p.x(), p.y(), p.z()});

  // "Qt": triangulated output (the triangles of a merged face share its hyperplane).
  QhullSession session;
  char command[] = "qhull Qt";
  const int status =
      qh_new_qhull(&session.state, 3, static_cast<int>(points.size()), coordinates.data(), False,
                   command, nullptr, session.error_stream);
  if (status != 0) {
    throw InputError(fmt::format("qhull could not build the convex hull (status {}): {}", status,
                                 session.message()));
  }

  // The corners, renumbered compactly in qhull's vertex order.
  qhT* qh = &session.state;
  BuiltConvexHull built;
  ConvexHull& hull = built.hull;
  std::map<int, int> index_of_point;
  vertexT* vertex = nullptr;
  FORALLvertices {
    const int point = qh_pointid(qh, vertex->point);
    index_of_point[point] = static_cast<int>(hull.vertices_S.size());
    hull.vertices_S.push_back(points[static_cast<std::size_t>(point)]);
  }

  // Triangles oriented by their outward normal (qhull's, shared exactly by the triangles of a
  // merged face, also by zero-area ones); distinct normals are the faces.
  std::vector<Vec3> triangle_normals;
  facetT* facet = nullptr;
  FORALLfacets {
    std::array<int, 3> triangle{};
    int corner = 0;
    vertexT** vertexp = nullptr;
    FOREACHvertex_(facet->vertices) {
      if (corner < 3) triangle[corner] = index_of_point.at(qh_pointid(qh, vertex->point));
      ++corner;
    }
    if (corner != 3) throw SolverError("qhull returned a facet that is not a triangle");
    const Vec3 normal(facet->normal[0], facet->normal[1], facet->normal[2]);
    const Vec3& a = hull.vertices_S[triangle[0]];
    const Vec3& b = hull.vertices_S[triangle[1]];
    const Vec3& c = hull.vertices_S[triangle[2]];
    if ((b - a).cross(c - a).dot(normal) < 0.0) std::swap(triangle[1], triangle[2]);
    hull.triangles.push_back(triangle);
    triangle_normals.push_back(normal.normalized());
    add_distinct(hull.face_normals_S, triangle_normals.back(), false);
  }

  build_face_loops(hull, triangle_normals);

  // Real edges: those between triangles of different faces (not a face's diagonals).
  std::map<std::pair<int, int>, Vec3> first_normal_of_edge;
  for (std::size_t t = 0; t < hull.triangles.size(); ++t) {
    const auto& triangle = hull.triangles[t];
    const Vec3& normal = triangle_normals[t];
    for (int k = 0; k < 3; ++k) {
      const int i = triangle[k], j = triangle[(k + 1) % 3];
      const auto key = std::minmax(i, j);
      const auto [it, inserted] = first_normal_of_edge.try_emplace(key, normal);
      if (!inserted && (it->second - normal).norm() > kSameDirection) {
        const Vec3 direction = (hull.vertices_S[j] - hull.vertices_S[i]).normalized();
        add_distinct(hull.edge_directions_S, direction, true);
        hull.edges.push_back({direction, it->second, normal});
      }
    }
  }

  // Centre on the centroid of volume, integrated about the vertices' mean (inside the hull) so
  // that the rounding is that of the hull's size, not of its distance from the input origin.
  Vec3 mean = Vec3::Zero();
  for (const Vec3& v : hull.vertices_S) mean += v;
  mean /= static_cast<double>(hull.vertices_S.size());
  for (Vec3& v : hull.vertices_S) v -= mean;
  const HullVolumeIntegrals about_mean = integrate_hull_volume(hull);
  const Vec3 centroid_from_mean = about_mean.first_moment_S / about_mean.volume;
  for (Vec3& v : hull.vertices_S) v -= centroid_from_mean;
  built.centroid_input = mean + centroid_from_mean;
  hull.thickness = compute_hull_thickness(hull);
  for (const Vec3& v : hull.vertices_S) {
    hull.bounding_radius = std::max(hull.bounding_radius, v.norm());
  }
  return built;
}

Vec3 compute_hull_support_point_S(const ConvexHull& hull, const Vec3& direction_S) {
  double best = -kInfinity;
  Vec3 sum = Vec3::Zero();
  int ties = 0;
  for (const Vec3& v : hull.vertices_S) {
    const double reach = v.dot(direction_S);
    if (reach > best) {
      best = reach;
      sum = v;
      ties = 1;
    } else if (reach == best) {
      sum += v;
      ++ties;
    }
  }
  return sum / static_cast<double>(ties);
}

HullVolumeIntegrals integrate_hull_volume(const ConvexHull& hull) {
  return integrate_closed_surface_volume(hull.vertices_S, hull.triangles);
}

HullVolumeIntegrals integrate_closed_surface_volume(std::span<const Vec3> vertices_S,
                                                    std::span<const std::array<int, 3>> triangles) {
  // Each triangle (a, b, c) spans a tetrahedron with S's origin, of signed volume
  // det[a b c] / 6, first moment det/24 (a + b + c) and second moment
  // det/120 (a a^T + b b^T + c c^T + s s^T) with s = a + b + c (the simplex's moments).
  HullVolumeIntegrals integrals;
  Mat3 second_moment = Mat3::Zero();
  for (const auto& triangle : triangles) {
    const Vec3& a = vertices_S[static_cast<std::size_t>(triangle[0])];
    const Vec3& b = vertices_S[static_cast<std::size_t>(triangle[1])];
    const Vec3& c = vertices_S[static_cast<std::size_t>(triangle[2])];
    const double det = a.dot(b.cross(c));
    const Vec3 s = a + b + c;
    integrals.volume += det / 6.0;
    integrals.first_moment_S += det / 24.0 * s;
    second_moment +=
        det / 120.0 *
        (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
  }
  integrals.unit_density_inertia_S = second_moment.trace() * Mat3::Identity() - second_moment;
  return integrals;
}

}  // namespace hybridsim
