#include "collision/terrain_peaks.hpp"

#include <algorithm>
#include <cmath>

#include "collision/shape_geometry.hpp"
#include "collision/surface_features.hpp"

namespace hybridsim {
namespace {

// A face plane of the partner in its frame P: {x : n . x = offset}, n outward.
struct FacePlane {
  Vec3 n_P;
  double offset;  // m
};

int face_count(const Shape& partner) {
  if (partner.type == ShapeType::box) return 6;
  if (partner.type == ShapeType::convex && partner.hull) {
    return static_cast<int>(partner.hull->face_normals_S.size());
  }
  return 0;
}

FacePlane face_plane(const Shape& partner, int f) {
  if (partner.type == ShapeType::box) {
    const int axis = f / 2;
    const double sign = (f % 2 == 1) ? 1.0 : -1.0;
    return {sign * Vec3::Unit(axis), partner.half_extents[axis]};
  }
  const ConvexHull& hull = *partner.hull;
  const Vec3& n = hull.face_normals_S[static_cast<std::size_t>(f)];
  const int first = hull.face_loop_vertices[static_cast<std::size_t>(
      hull.face_loop_start[static_cast<std::size_t>(f)])];
  return {n, n.dot(hull.vertices_S[static_cast<std::size_t>(first)])};
}

// The vertex's position in the partner's frame.
Vec3 vertex_in_partner(const TriangleSurface& surface, int vertex, const Pose& X_WT,
                       const Pose& X_WP) {
  const Vec3 p_W = X_WT.transform_point(surface.vertices_S[static_cast<std::size_t>(vertex)]);
  return X_WP.rotation.transpose() * (p_W - X_WP.translation);
}

// The face whose plane lies nearest a point of the partner's frame (the largest signed
// distance), and that distance.
std::pair<int, double> nearest_face(const Shape& partner, const Vec3& p_P) {
  int best = 0;
  double height = -kInfinity;
  for (int f = 0; f < face_count(partner); ++f) {
    const FacePlane plane = face_plane(partner, f);
    const double h = plane.n_P.dot(p_P) - plane.offset;
    if (h > height) {
      height = h;
      best = f;
    }
  }
  return {best, height};
}

}  // namespace

bool touches_peaks(const Shape& partner) {
  // A rounded box's faces end where its edges round off: the planes would hold a peak there
  // before it touches.
  return face_count(partner) > 0 && partner.smoothing_radius == 0.0;
}

bool is_peak_partner_feature(const Shape& partner, const Feature& feature) {
  return touches_peaks(partner) && feature.kind == FeatureKind::face && feature.index >= 0 &&
         feature.index < face_count(partner) && feature.index2 == 0;
}

ManifoldPoint evaluate_peak_point(const Shape& terrain, const Pose& X_WT, const Shape& partner,
                                  const Pose& X_WP, bool partner_is_a, int vertex, int face) {
  const TriangleSurface& surface = *terrain.surface;
  const Vec3 p_P = vertex_in_partner(surface, vertex, X_WT, X_WP);
  const FacePlane plane = face_plane(partner, face);
  const double height = plane.n_P.dot(p_P) - plane.offset;
  double other = -kInfinity;  // the nearest other face's plane
  for (int f = 0; f < face_count(partner); ++f) {
    if (f == face) continue;
    const FacePlane g = face_plane(partner, f);
    other = std::max(other, g.n_P.dot(p_P) - g.offset);
  }
  ManifoldPoint point;
  // The normal from the terrain to the partner is the face's inward normal.
  const Vec3 n_W = -(X_WP.rotation * plane.n_P);
  const Vec3 on_surface_W = X_WP.transform_point(p_P);
  const Vec3 on_partner_W = X_WP.transform_point(p_P - height * plane.n_P);
  point.geometry.distance = height;
  point.geometry.n_AB_W = partner_is_a ? Vec3(-n_W) : n_W;
  point.geometry.p_A_W = partner_is_a ? on_partner_W : on_surface_W;
  point.geometry.p_B_W = partner_is_a ? on_surface_W : on_partner_W;
  point.validity = other - height;
  const Feature on_terrain{FeatureKind::vertex, vertex, 0};
  const Feature on_partner{FeatureKind::face, face, 0};
  point.feature_a = partner_is_a ? on_partner : on_terrain;
  point.feature_b = partner_is_a ? on_terrain : on_partner;
  return point;
}

int find_peak_points(const Shape& terrain, const Pose& X_WT, const Shape& partner, const Pose& X_WP,
                     bool partner_is_a, double reach, std::span<ManifoldPoint> out) {
  const TriangleSurface& surface = *terrain.surface;
  if (!touches_peaks(partner) || surface.peak_count == 0) return 0;
  // The partner's bounding sphere in the terrain's frame: every point inside the partner lies in
  // it, and a peak outside it is farther than its reach.
  const Vec3 centre_T = X_WT.rotation.transpose() * (X_WP.translation - X_WT.translation);
  const double radius = compute_bounding_radius(partner) + reach;
  if (!centre_T.allFinite() || !std::isfinite(radius) ||
      squared_distance_to_box(centre_T, surface.min_S, surface.max_S) > radius * radius) {
    return 0;
  }
  int found = 0;
  const auto visit = [&](int v) {
    const Vec3 p_P = vertex_in_partner(surface, v, X_WT, X_WP);
    if (p_P.squaredNorm() > radius * radius) return;
    const auto [face, height] = nearest_face(partner, p_P);
    if (!(height < reach)) return;
    const ManifoldPoint point =
        evaluate_peak_point(terrain, X_WT, partner, X_WP, partner_is_a, v, face);
    insert_by_distance(out, found, point);
  };
  if (surface.grid_columns > 0) {
    // A heightmap's vertices are its grid's points: those under the sphere's square.
    const auto range = [](double low, double high, double origin, double spacing, int points,
                          int& first, int& last) {
      // Clamped as doubles: a far query must not overflow the conversion.
      first = static_cast<int>(std::clamp(std::ceil((low - origin) / spacing), 0.0, 1.0 * points));
      last =
          static_cast<int>(std::clamp(std::floor((high - origin) / spacing), -1.0, points - 1.0));
    };
    int c0, c1, r0, r1;
    range(centre_T.x() - radius, centre_T.x() + radius, surface.min_S.x(), surface.spacing_x,
          surface.grid_columns, c0, c1);
    range(centre_T.y() - radius, centre_T.y() + radius, surface.min_S.y(), surface.spacing_y,
          surface.grid_rows, r0, r1);
    for (int row = r0; row <= r1; ++row) {
      for (int column = c0; column <= c1; ++column) {
        const int v = row * surface.grid_columns + column;
        if (surface.peaks[static_cast<std::size_t>(v)] != 0) visit(v);
      }
    }
    return found;
  }
  surface.for_each_triangle_near(centre_T, radius, [&](int t) {
    for (const int v : surface.triangles[static_cast<std::size_t>(t)]) {
      // Each peak once: from the first triangle of its fan.
      if (surface.peaks[static_cast<std::size_t>(v)] != 0 &&
          surface.fan_triangles[static_cast<std::size_t>(
              surface.fan_start[static_cast<std::size_t>(v)])] == t) {
        visit(v);
      }
    }
  });
  return found;
}

}  // namespace hybridsim
