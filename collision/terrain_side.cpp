#include "collision/terrain_side.hpp"

#include <algorithm>
#include <cmath>

#include "collision/surface_features.hpp"
#include "collision/terrain_contact.hpp"

namespace hybridsim {
namespace {

// Moves a walk along a ridge may take (as the ball walk's): one that walked this far stops at an
// event, which anchors it afresh.
constexpr int kMaxSideWalkSteps = 256;
// Below this sine of the angle between the axis and an edge the two run parallel: their closest
// points are not one point, and the capsule's ends hold the contact along the ridge.
constexpr double kParallelSine = 1e-6;
// A ridge bending by less than this (rad) at a vertex that is no peak runs straight on there.
constexpr double kStraightRidge = 1e-9;

// The capsule's axis in the terrain's frame T: p0 + u d, u in [0, 1] from end 0 to end 1.
struct Axis {
  Vec3 p0_T;
  Vec3 d_T;  // m
  double length;
  double radius;
};

Axis capsule_axis(const Pose& X_WT, const Shape& capsule, const Pose& X_WP) {
  const auto in_terrain = [&](double z) {
    return Vec3(X_WT.rotation.transpose() *
                (X_WP.transform_point(Vec3(0.0, 0.0, z)) - X_WT.translation));
  };
  const Vec3 p0 = in_terrain(-0.5 * capsule.length);
  return {p0, in_terrain(0.5 * capsule.length) - p0, capsule.length, capsule.radius};
}

// m past the axis' ends of the point at u (< 0 inside).
double past_ends(const Axis& axis, double u) {
  return std::max(-u, u - 1.0) * axis.length;
}

bool is_ridge(Crease crease) {
  return crease == Crease::convex || crease == Crease::boundary;
}

bool runs_parallel(const Vec3& d, const Vec3& e) {
  return d.cross(e).squaredNorm() <=
         kParallelSine * kParallelSine * d.squaredNorm() * e.squaredNorm();
}

struct SideStep {
  bool holds = false;
  Feature next;
  SurfacePoint point;
};

SideStep hold(const Feature& feature, const Vec3& q, const Vec3& w, const Vec3& n_fallback,
              double validity) {
  const double height = w.norm();
  SideStep step;
  step.holds = true;
  step.point = {feature, q, height > 0.0 ? Vec3(w / height) : n_fallback, height, validity};
  return step;
}

// Edge k of triangle t against the axis: the closest points of their lines, each strictly inside
// its segment. Past the edge's ends the point moves to the vertex there; past the axis' ends, or
// with the axis behind both faces at the edge (inside the solid), it stays with a positive
// validity.
SideStep side_edge(const TriangleSurface& s, int t, int k, const Axis& axis) {
  const auto ti = static_cast<std::size_t>(t);
  const Vec3& a = vertex_of(s, t, k);
  const Vec3 e = vertex_of(s, t, k + 1) - a;
  const int other = s.neighbours[ti][static_cast<std::size_t>(k)];
  const Vec3 n_mean =
      other >= 0
          ? Vec3((s.normals_S[ti] + s.normals_S[static_cast<std::size_t>(other)]).normalized())
          : s.normals_S[ti];
  const Feature edge = canonical_edge(s, t, k);
  if (runs_parallel(axis.d_T, e)) {
    // Along the ridge: the ends hold it. The point at the edge nearest the axis' middle, to name
    // where it stopped.
    const Vec3 middle = axis.p0_T + 0.5 * axis.d_T;
    const Vec3 q = a + std::clamp(e.dot(middle - a) / e.squaredNorm(), 0.0, 1.0) * e;
    return hold(edge, q, middle - q, n_mean, axis.length + axis.radius);
  }
  // Closest points of p0 + u d and a + s e.
  const Vec3 r = axis.p0_T - a;
  const double dd = axis.d_T.squaredNorm(), de = axis.d_T.dot(e), ee = e.squaredNorm();
  const double dr = axis.d_T.dot(r), er = e.dot(r);
  const double determinant = dd * ee - de * de;
  const double u = (de * er - ee * dr) / determinant;
  const double s_edge = (dd * er - de * dr) / determinant;
  if (s_edge <= 0.0 || s_edge >= 1.0) {
    SideStep step;
    step.next = {FeatureKind::vertex, s.triangles[ti][s_edge <= 0.0 ? k : (k + 1) % 3], 0};
    return step;
  }
  const Vec3 q = a + s_edge * e;
  const Vec3 w = axis.p0_T + std::clamp(u, 0.0, 1.0) * axis.d_T - q;
  // In front of a face at the edge, or beyond the border in its plane.
  double front = s.normals_S[ti].dot(w);
  front = std::max(front, other >= 0 ? s.normals_S[static_cast<std::size_t>(other)].dot(w)
                                     : edge_outward(s, t, k).dot(w));
  return hold(edge, q, w, n_mean, std::max(past_ends(axis, u), -front));
}

// Vertex v against the axis: the axis' point nearest it, strictly inside the axis. The point moves
// on along the ridge edge it rises along most (its distance falls there). A peak holds it
// otherwise; a vertex that is no peak only where no ridge edge falls away from it (a crossing
// exactly over a vertex of a straight ridge), else it stays with a positive validity (the
// ridge ends there).
SideStep side_vertex(const TriangleSurface& s, int v, const Axis& axis) {
  const Vec3& p = s.vertices_S[static_cast<std::size_t>(v)];
  const double u = axis.d_T.dot(p - axis.p0_T) / axis.d_T.squaredNorm();
  const Vec3 w = axis.p0_T + std::clamp(u, 0.0, 1.0) * axis.d_T - p;
  const bool past_an_end = u <= 0.0 || u >= 1.0;
  double steepest = -kInfinity;
  Feature next;
  double front = -kInfinity;
  Vec3 n_sum = Vec3::Zero();
  for (int i = s.fan_start[static_cast<std::size_t>(v)];
       i < s.fan_start[static_cast<std::size_t>(v) + 1]; ++i) {
    const int t = s.fan_triangles[static_cast<std::size_t>(i)];
    const auto ti = static_cast<std::size_t>(t);
    const auto& tri = s.triangles[ti];
    n_sum += s.normals_S[ti];
    front = std::max(front, s.normals_S[ti].dot(w));
    const int at = tri[0] == v ? 0 : tri[1] == v ? 1 : 2;
    // The two edges of t at v: k = at (v -> next) and k = at + 2 (previous -> v).
    for (const int k : {at, (at + 2) % 3}) {
      if (!is_ridge(s.creases[ti][static_cast<std::size_t>(k)])) continue;
      const Vec3 d =
          s.vertices_S[static_cast<std::size_t>(tri[k == at ? (at + 1) % 3 : (at + 2) % 3])] - p;
      if (runs_parallel(axis.d_T, d)) continue;
      const double slope = w.dot(d) / d.norm();
      if (slope > steepest) {
        steepest = slope;
        next = canonical_edge(s, t, k);
      }
    }
  }
  // Past an end of the axis the point stops here (the edges' closest points, taken on the whole
  // axis line, would send it back: a walk must not ping-pong). A rise within rounding of level
  // (a straight ridge crossed right over this vertex) holds it here too.
  const double level = kStraightRidge * w.norm();
  if (!past_an_end && steepest > level) {
    SideStep step;
    step.next = next;
    return step;
  }
  double validity = std::max(past_ends(axis, u), -front);
  if (s.peaks[static_cast<std::size_t>(v)] == 0) {
    // No ridge here at all, or one that ends: positive. A straight ridge's vertex, crossed right
    // over it: zero, to rounding, which a ridge straight to 1e-9 rad lets hold.
    validity =
        std::max(validity, std::isfinite(steepest) ? -steepest - level : axis.length + axis.radius);
  }
  return hold({FeatureKind::vertex, v, 0}, p, w, n_sum.normalized(), validity);
}

SideStep side_step(const TriangleSurface& s, const Feature& f, const Axis& axis) {
  if (f.kind == FeatureKind::face_edge) return side_edge(s, f.index, f.index2, axis);
  return side_vertex(s, f.index, axis);
}

SurfacePoint follow_side_point(const TriangleSurface& s, const Axis& axis, Feature feature) {
  int last_vertex = -1;
  for (int steps = 0; steps < kMaxSideWalkSteps; ++steps) {
    const SideStep step = side_step(s, feature, axis);
    if (step.holds) return step.point;
    feature = step.next;
    if (feature.kind == FeatureKind::vertex) last_vertex = feature.index;
  }
  // Walked too far (a ridge longer than a walk between events): stays at the last vertex it
  // reached, its distance that vertex's, with a validity that asks for an event to anchor it anew.
  const int v =
      last_vertex >= 0 ? last_vertex : s.triangles[static_cast<std::size_t>(feature.index)][0];
  const Vec3& p = s.vertices_S[static_cast<std::size_t>(v)];
  const double u = std::clamp(axis.d_T.dot(p - axis.p0_T) / axis.d_T.squaredNorm(), 0.0, 1.0);
  const Vec3 w = axis.p0_T + u * axis.d_T - p;
  const double height = w.norm();
  const Vec3 n =
      height > 0.0 ? Vec3(w / height)
                   : s.normals_S[static_cast<std::size_t>(s.fan_triangles[static_cast<std::size_t>(
                         s.fan_start[static_cast<std::size_t>(v)])])];
  return {{FeatureKind::vertex, v, 0}, p, n, height, axis.length + axis.radius};
}

ManifoldPoint to_manifold_point(const Pose& X_WT, bool partner_is_a, const Axis& axis,
                                const SurfacePoint& s) {
  ManifoldPoint point;
  const Vec3 n_W = X_WT.rotation * s.n_S;
  const Vec3 on_surface_W = X_WT.transform_point(s.q_S);
  // The partner's point: on the capsule's surface over the axis point.
  const Vec3 on_partner_W = on_surface_W + (s.height - axis.radius) * n_W;
  point.geometry.distance = s.height - axis.radius;
  point.geometry.n_AB_W = partner_is_a ? Vec3(-n_W) : n_W;
  point.geometry.p_A_W = partner_is_a ? on_partner_W : on_surface_W;
  point.geometry.p_B_W = partner_is_a ? on_surface_W : on_partner_W;
  point.validity = s.validity;
  (partner_is_a ? point.feature_b : point.feature_a) = s.feature;
  (partner_is_a ? point.feature_a : point.feature_b) = kCapsuleSide;
  return point;
}

}  // namespace

ManifoldPoint evaluate_side_point(const Shape& terrain, const Pose& X_WT, const Shape& partner,
                                  const Pose& X_WP, bool partner_is_a, const Feature& start) {
  const Axis axis = capsule_axis(X_WT, partner, X_WP);
  return to_manifold_point(X_WT, partner_is_a, axis,
                           follow_side_point(*terrain.surface, axis, start));
}

int find_side_points(const Shape& terrain, const Pose& X_WT, const Shape& partner, const Pose& X_WP,
                     bool partner_is_a, double reach, std::span<ManifoldPoint> out) {
  if (!touches_ridges(partner) || !(partner.length > 0.0)) return 0;
  const TriangleSurface& s = *terrain.surface;
  const Axis axis = capsule_axis(X_WT, partner, X_WP);
  const double grown = axis.radius + std::max(reach, 0.0);
  if (!axis.p0_T.allFinite() || !axis.d_T.allFinite() || !std::isfinite(grown)) return 0;
  // A surface with no ridge but its border (flat ground, a bowl): nothing to find away from the
  // border, which on a heightmap runs along its bounds.
  if (s.peak_count == 0 && s.convex_edge_count == 0) {
    if (s.border_edge_count == 0) return 0;
    const Eigen::Vector2d low = axis.p0_T.head<2>().cwiseMin((axis.p0_T + axis.d_T).head<2>());
    const Eigen::Vector2d high = axis.p0_T.head<2>().cwiseMax((axis.p0_T + axis.d_T).head<2>());
    if (s.grid_columns > 0 && (low.array() - grown > s.min_S.head<2>().array()).all() &&
        (high.array() + grown < s.max_S.head<2>().array()).all()) {
      return 0;
    }
  }
  int found = 0;
  const auto offer = [&](const SideStep& step) {
    if (!step.holds || step.point.validity > 0.0 || !(step.point.height - axis.radius < reach)) {
      return;
    }
    const ManifoldPoint point = to_manifold_point(X_WT, partner_is_a, axis, step.point);
    // Once each: a vertex that is no peak is reached from both its ridge edges, a triangle near
    // two pieces of the axis is visited twice, and at a tie two features name one place.
    const auto kept =
        out.first(static_cast<std::size_t>(std::min(found, static_cast<int>(out.size()))));
    const Feature& feature = partner_is_a ? point.feature_b : point.feature_a;
    const Vec3 place = point.geometry.contact_point_W();
    const double same_place = 1e-12 * s.size();
    if (std::any_of(kept.begin(), kept.end(), [&](const ManifoldPoint& other) {
          return (partner_is_a ? other.feature_b : other.feature_a) == feature ||
                 (other.geometry.contact_point_W() - place).norm() <= same_place;
        })) {
      return;
    }
    insert_by_distance(out, found, point);
  };
  // The triangles near the axis: in pieces no longer than the capsule is thick, each searched
  // in its bounding sphere (a long capsule's own would take in far more).
  const int pieces =
      static_cast<int>(std::clamp(std::ceil(axis.length / (2.0 * grown)), 1.0, 64.0));
  for (int piece = 0; piece < pieces; ++piece) {
    const Vec3 middle = axis.p0_T + ((piece + 0.5) / pieces) * axis.d_T;
    s.for_each_triangle_near(middle, 0.5 * axis.length / pieces + grown, [&](int t) {
      const auto ti = static_cast<std::size_t>(t);
      for (int k = 0; k < 3; ++k) {
        if (!is_ridge(s.creases[ti][static_cast<std::size_t>(k)])) continue;
        if (canonical_edge(s, t, k).index != t) continue;  // reported by its other triangle
        const SideStep step = side_edge(s, t, k, axis);
        // Past its ends, the vertex there: a straight ridge crossed right over a vertex that is no
        // peak holds the point there, and no edge does.
        offer(step.holds ? step : side_vertex(s, step.next.index, axis));
      }
      for (const int v : s.triangles[ti]) {
        // Each peak once: from the first triangle of its fan.
        if (s.peaks[static_cast<std::size_t>(v)] != 0 &&
            s.fan_triangles[static_cast<std::size_t>(s.fan_start[static_cast<std::size_t>(v)])] ==
                t) {
          offer(side_vertex(s, v, axis));
        }
      }
    });
  }
  return found;
}

double side_overlap(const Shape& terrain, const Pose& X_WT, const Shape& partner, const Pose& X_WP,
                    const Feature& end_feature) {
  if (!touches_ridges(partner) || !(partner.length > 0.0) ||
      (end_feature.kind != FeatureKind::face_edge && end_feature.kind != FeatureKind::vertex)) {
    return -kInfinity;
  }
  const TriangleSurface& s = *terrain.surface;
  if (end_feature.kind == FeatureKind::face_edge &&
      !is_ridge(s.creases[static_cast<std::size_t>(end_feature.index)]
                         [static_cast<std::size_t>(end_feature.index2)])) {
    return -kInfinity;
  }
  const Axis axis = capsule_axis(X_WT, partner, X_WP);
  // The side's walk from the end's ridge edge or vertex descends along the ridge to the axis'
  // nearest point to it; where that lies inside the axis (by -validity >= 0), the end's point is
  // no nearest point of the capsule to the ridge.
  return -follow_side_point(s, axis, end_feature).validity;
}

}  // namespace hybridsim
