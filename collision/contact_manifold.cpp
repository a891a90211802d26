#include "collision/contact_manifold.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "collision/polytope.hpp"
#include "collision/shape_geometry.hpp"
#include "collision/terrain_contact.hpp"

namespace hybridsim {
namespace {

// A pair's normal within acos(1 - kFaceAlignment) (1.4 mrad) of a face's normal lies along that
// face: a vertex on a face gives the face's normal to the narrowphase's accuracy (1e-10), an
// edge crossing an edge gives a normal at a finite angle from both shapes' faces.
constexpr double kFaceAlignment = 1e-6;
// Two faces aligned equally within this keep A's as the reference (stacked boxes of one size).
constexpr double kReferenceTie = 1e-12;
// The reference face's side planes lie this far outside its edges, relative to its polytope's
// bounding radius, so that a corner exactly on an edge (boxes of one size stacked) is inside
// whatever the rounding, and the clipping does not flip between a vertex and its neighbours.
constexpr double kClipTolerance = 1e-9;

SignedDistance swapped_geometry(SignedDistance geometry) {
  geometry.n_AB_W = -geometry.n_AB_W;
  std::swap(geometry.p_A_W, geometry.p_B_W);
  return geometry;
}

ManifoldPoint swapped_point(ManifoldPoint point) {
  point.geometry = swapped_geometry(point.geometry);
  std::swap(point.feature_a, point.feature_b);
  return point;
}

// A polytope at its pose in W.
struct PlacedPolytope {
  const Polytope& polytope;
  const Pose& X_WS;

  Vec3 vertex_W(int vertex) const { return X_WS.transform_point(polytope.vertex_S(vertex)); }
  Vec3 face_normal_W(int face) const { return X_WS.rotation * polytope.face_normal_S(face); }
  // How far x_W lies outside face `face`'s polygon, in its plane's directions (<= 0 inside): the
  // largest distance from one of the side planes through its edges.
  double outside_of_face(int face, const Vec3& x_W) const {
    const Vec3 n_W = face_normal_W(face);
    const auto loop = polytope.face_loop(face);
    double outside = -kInfinity;
    for (std::size_t k = 0; k < loop.size(); ++k) {
      const Vec3 corner_W = vertex_W(loop[k]);
      const Vec3 edge_W = vertex_W(loop[(k + 1) % loop.size()]) - corner_W;
      const Vec3 side_normal_W = edge_W.cross(n_W).normalized();
      outside = std::max(outside, side_normal_W.dot(x_W - corner_W));
    }
    return outside;
  }
};

// The point of the shape's point x_W (feature vertex `vertex`) on the half-space
// {x : n_W . x <= level}, half-space to shape (the half-space is A).
ManifoldPoint halfspace_point(const Vec3& n_W, double level, const Vec3& x_W, int vertex) {
  ManifoldPoint point;
  const double height = n_W.dot(x_W) - level;
  point.geometry.distance = height;
  point.geometry.n_AB_W = n_W;
  point.geometry.p_B_W = x_W;
  point.geometry.p_A_W = x_W - height * n_W;
  point.feature_a = {FeatureKind::face, 0, 0};
  point.feature_b = {FeatureKind::vertex, vertex, 0};
  return point;
}

// The point of vertex `vertex` of polytope P on the half-space.
ManifoldPoint halfspace_vertex_point(const Vec3& n_W, double level, const PlacedPolytope& P,
                                     int vertex) {
  return halfspace_point(n_W, level, P.vertex_W(vertex), vertex);
}

// A cylinder's or cone's points on a half-space: four on each rim a quarter turn apart, the
// first at the rim's lowest point (its support towards the half-space), so that a body standing
// on its flat rests on a square of its rim whichever way it tilts, tips about its true lowest rim
// point, and rolls on its rim or lies on its side on the rims' exact lowest points; a cone's apex
// is one more. Points 0-3 are on the rim at z = -length/2, 4-7 on the rim at +length/2 (a cone's
// apex: 4). The set turns with the tilt's direction, held towards S's x axis by
// kRoundTiltAnchor: where the tilt is of the order of rounding (an upright body) the direction
// is the x axis instead of the rounding's, and the set does not spin with it. The first point
// then misses the rim's lowest point by an angle, but the set's deepest point lies at most
// r sin(tilt) (1 - cos 45 degrees) above it, below 0.3 r kRoundTiltAnchor (3e-11 m for r = 0.1 m).
constexpr double kRoundTiltAnchor = 1e-9;

ManifoldPoint halfspace_round_point(const Vec3& n_W, double level, const Shape& round,
                                    const Pose& X_WS, int k) {
  const Vec3 down_S = X_WS.rotation.transpose() * -n_W;
  // The tilt's direction (|.| = sin of the tilt) plus the anchor along x, in the rim's plane.
  const double u_x = down_S.x() + kRoundTiltAnchor, u_y = down_S.y();
  const double length = std::hypot(u_x, u_y);
  const Vec3 u_S = length > 0.0 ? Vec3(u_x / length, u_y / length, 0.0) : Vec3::UnitY();
  const Vec3 w_S = Vec3::UnitZ().cross(u_S);  // a quarter turn on
  const bool top = k >= 4;
  const double radius =
      top ? (round.type == ShapeType::cone ? round.top_radius : round.radius) : round.radius;
  constexpr std::array<double, 4> kCos = {1.0, 0.0, -1.0, 0.0}, kSin = {0.0, 1.0, 0.0, -1.0};
  const int quarter = k % 4;
  const Vec3 x_S = Vec3(0.0, 0.0, (top ? 0.5 : -0.5) * round.length) +
                   radius * (kCos[static_cast<std::size_t>(quarter)] * u_S +
                             kSin[static_cast<std::size_t>(quarter)] * w_S);
  return halfspace_point(n_W, level, X_WS.transform_point(x_S), k);
}

// The unit outward normal of side s of face `face` of R (the plane through the edge
// loop[s] -> loop[s + 1] along the face's normal).
Vec3 side_normal(const PlacedPolytope& R, int face, std::size_t s) {
  const auto loop = R.polytope.face_loop(face);
  const Vec3 corner_W = R.vertex_W(loop[s]);
  return (R.vertex_W(loop[(s + 1) % loop.size()]) - corner_W)
      .cross(R.face_normal_W(face))
      .normalized();
}

// Whether the clipping crosses incident edge u -> w with side s of reference face `face` (its
// plane widened by `tolerance`) inside the other widened sides: <= 0 when it does, else how far
// (m) the edge's ends are from straddling the side or the crossing is outside another side. The
// clipping's own numbers, so that a crossing it makes is never invalid.
double clipped_crossing_validity(const PlacedPolytope& R, int face, std::size_t s, const Vec3& u_W,
                                 const Vec3& w_W, double tolerance) {
  const auto loop = R.polytope.face_loop(face);
  const Vec3 m_W = side_normal(R, face, s);
  const Vec3 corner_W = R.vertex_W(loop[s]);
  const double du = m_W.dot(u_W - corner_W) - tolerance;
  const double dw = m_W.dot(w_W - corner_W) - tolerance;
  double validity = std::max(std::min(du, dw), -std::max(du, dw));
  const Vec3 crossing_W = du != dw ? Vec3(u_W + du / (du - dw) * (w_W - u_W)) : u_W;
  for (std::size_t k = 0; k < loop.size(); ++k) {
    if (k == s) continue;
    const Vec3 other_W = side_normal(R, face, k);
    validity = std::max(validity, other_W.dot(crossing_W - R.vertex_W(loop[k])) - tolerance);
  }
  return validity;
}

// Where the clipping puts reference corner `vertex` of face `face`: the meeting of its two side
// planes, each widened by `tolerance`, as an offset from the corner (in the face's plane).
Vec3 widened_corner_offset(const PlacedPolytope& R, int face, int vertex, double tolerance) {
  const auto loop = R.polytope.face_loop(face);
  std::size_t k = 0;
  while (k + 1 < loop.size() && loop[k] != vertex) ++k;
  const Vec3 before_W = side_normal(R, face, (k + loop.size() - 1) % loop.size());
  const Vec3 after_W = side_normal(R, face, k);
  return tolerance / (1.0 + before_W.dot(after_W)) * (before_W + after_W);
}

// Edges whose directions' cross product is below this fraction of their lengths' product are
// parallel: their crossing is taken on the reference side plane instead.
constexpr double kParallelEdges = 1e-9;

// The point that features make against reference face `face` of R, reference to incident (R is
// A). Each is a distance whose gradient is the point's normal, so that the forces of a manifold
// derive from a potential (a point's force along any other direction, while the point slides
// along an edge, would do work and can feed an oscillation of a stack):
//   an incident vertex on the reference face: its height above the face's plane, along the
//     face's normal, at the vertex;
//   an incident edge crossing a reference edge: the distance of the two lines along their common
//     perpendicular, at their closest points;
//   a reference corner under the incident face: its height below that face's plane, along the
//     incident face's normal, at the corner.
// Each is valid (validity <= 0) exactly where the clipping makes it: the vertex inside the
// reference face's widened sides, the incident edge across its widened side with the crossing
// inside the others, the widened corner inside the incident face.
ManifoldPoint face_point(const PlacedPolytope& R, int face, const PlacedPolytope& I,
                         const Feature& feature_R, const Feature& feature_I, PointEvaluation what) {
  const bool validity = what == PointEvaluation::geometry_and_validity;
  const double tolerance = kClipTolerance * R.polytope.bounding_radius();
  const Vec3 n_W = R.face_normal_W(face);
  const auto loop = R.polytope.face_loop(face);
  ManifoldPoint point;
  SignedDistance& g = point.geometry;
  if (feature_I.kind == FeatureKind::vertex) {
    g.p_B_W = I.vertex_W(feature_I.index);
    g.n_AB_W = n_W;
    g.distance = n_W.dot(g.p_B_W - R.vertex_W(loop[0]));
    g.p_A_W = g.p_B_W - g.distance * n_W;
    if (validity) point.validity = R.outside_of_face(face, g.p_B_W) - tolerance;
  } else if (feature_I.kind == FeatureKind::edge) {
    const auto s = static_cast<std::size_t>(feature_R.index2);
    const Vec3 corner_W = R.vertex_W(loop[s]);
    const Vec3 side_W = R.vertex_W(loop[(s + 1) % loop.size()]) - corner_W;
    const Vec3 start_W = I.vertex_W(feature_I.index);
    const Vec3 edge_W = I.vertex_W(feature_I.index2) - start_W;
    const Vec3 axis_W = side_W.cross(edge_W);
    if (axis_W.norm() > kParallelEdges * side_W.norm() * edge_W.norm()) {
      // The closest points of the two lines (along_side on R's edge, t on I's).
      const Vec3 w = corner_W - start_W;
      const double a = side_W.dot(side_W), b = side_W.dot(edge_W), c = edge_W.dot(edge_W);
      const double d = side_W.dot(w), e = edge_W.dot(w);
      const double denominator = a * c - b * b;
      const double along_side = (b * e - c * d) / denominator;
      const double t = (a * e - b * d) / denominator;
      g.n_AB_W = axis_W.dot(n_W) >= 0.0 ? axis_W.normalized() : Vec3(-axis_W.normalized());
      g.p_A_W = corner_W + along_side * side_W;
      g.p_B_W = start_W + t * edge_W;
      g.distance = g.n_AB_W.dot(g.p_B_W - g.p_A_W);
    } else {
      // Parallel edges: where I's edge meets R's side plane, its height along n.
      const Vec3 side_normal_W = side_W.cross(n_W).normalized();
      const double rate = side_normal_W.dot(edge_W);
      const double t = rate != 0.0 ? -side_normal_W.dot(start_W - corner_W) / rate : 0.5;
      g.p_B_W = start_W + std::clamp(t, 0.0, 1.0) * edge_W;
      g.n_AB_W = n_W;
      g.distance = n_W.dot(g.p_B_W - corner_W);
      g.p_A_W = g.p_B_W - g.distance * n_W;
    }
    if (validity) {
      point.validity = clipped_crossing_validity(R, face, s, start_W, start_W + edge_W, tolerance);
    }
  } else {
    const Vec3 corner_W = R.vertex_W(feature_R.index);
    const int incident = feature_I.index;
    const Vec3 m_W = I.face_normal_W(incident);
    const Vec3 q_W = I.vertex_W(I.polytope.face_loop(incident)[0]);
    g.p_A_W = corner_W;
    g.n_AB_W = -m_W;
    g.distance = m_W.dot(corner_W - q_W);
    g.p_B_W = corner_W - g.distance * m_W;
    // As the clipping makes it: the widened corner, dropped along n onto the incident plane,
    // inside the incident face.
    if (validity) {
      const Vec3 widened_W = corner_W + widened_corner_offset(R, face, feature_R.index, tolerance);
      const double rate = m_W.dot(n_W);
      const double drop = rate != 0.0 ? m_W.dot(q_W - widened_W) / rate : 0.0;
      point.validity = I.outside_of_face(incident, widened_W + drop * n_W);
    }
  }
  point.feature_a = feature_R;
  point.feature_b = feature_I;
  return point;
}

// Adds `point` to the manifold; when it is full, the point replaces the shallowest kept one if it
// is deeper.
void add_point(ContactManifold& manifold, const ManifoldPoint& point) {
  if (manifold.count < kMaxManifoldPoints) {
    manifold.points[static_cast<std::size_t>(manifold.count++)] = point;
    return;
  }
  auto shallowest = std::max_element(
      manifold.points.begin(), manifold.points.end(),
      [](const auto& x, const auto& y) { return x.geometry.distance < y.geometry.distance; });
  if (point.geometry.distance < shallowest->geometry.distance) *shallowest = point;
}

// One corner of the polygon being clipped: what makes it, and what the edge to the next corner
// lies on (an incident edge, or a side of the reference face).
struct ClipCorner {
  Vec3 x_W;
  Feature feature_R;
  Feature feature_I;
  bool next_on_side = false;
  int next_u = 0;  // the incident edge's ends (next_on_side false)
  int next_w = 0;
  int next_side = 0;  // the reference side's position in its loop (next_on_side true)
};
using ClipPolygon = std::array<ClipCorner, 2 * kMaxClippedFaceCorners>;

// The face of I whose normal is most opposed to n_W.
int most_opposed_face(const PlacedPolytope& I, const Vec3& n_W) {
  int best = 0;
  double best_dot = kInfinity;
  for (int g = 0; g < I.polytope.face_count(); ++g) {
    const double d = I.face_normal_W(g).dot(n_W);
    if (d < best_dot) best_dot = d, best = g;
  }
  return best;
}

// Clips I's incident face to reference face `face` of R's prism; appends the candidate points,
// reference to incident, to `manifold` (deepest kept beyond its capacity).
void clip_incident_face(const PlacedPolytope& R, int face, const PlacedPolytope& I,
                        ContactManifold& manifold) {
  const double tolerance = kClipTolerance * R.polytope.bounding_radius();
  const Vec3 n_W = R.face_normal_W(face);
  const auto loop = R.polytope.face_loop(face);
  const int g = most_opposed_face(I, n_W);
  const auto incident = I.polytope.face_loop(g);

  ClipPolygon buffer_1, buffer_2;
  ClipPolygon* polygon = &buffer_1;
  ClipPolygon* clipped = &buffer_2;
  std::size_t count = incident.size();
  for (std::size_t k = 0; k < count; ++k) {
    ClipCorner& c = (*polygon)[k];
    c.x_W = I.vertex_W(incident[k]);
    c.feature_R = {FeatureKind::face, face, 0};
    c.feature_I = {FeatureKind::vertex, incident[k], 0};
    c.next_u = incident[k];
    c.next_w = incident[(k + 1) % count];
  }
  for (std::size_t s = 0; s < loop.size() && count > 0; ++s) {
    const Vec3 corner_W = R.vertex_W(loop[s]);
    const Vec3 side_normal_W =
        (R.vertex_W(loop[(s + 1) % loop.size()]) - corner_W).cross(n_W).normalized();
    std::size_t out = 0;
    // A convex polygon gains at most one corner per side; the bound only guards rounding.
    for (std::size_t k = 0; k < count && out + 2 <= clipped->size(); ++k) {
      const ClipCorner& p = (*polygon)[k];
      const ClipCorner& q = (*polygon)[(k + 1) % count];
      const double dp = side_normal_W.dot(p.x_W - corner_W) - tolerance;
      const double dq = side_normal_W.dot(q.x_W - corner_W) - tolerance;
      if (dp <= 0.0) (*clipped)[out++] = p;
      if ((dp <= 0.0) == (dq <= 0.0)) continue;
      ClipCorner crossing = p;
      crossing.x_W = p.x_W + dp / (dp - dq) * (q.x_W - p.x_W);
      if (!p.next_on_side) {
        crossing.feature_R = {FeatureKind::face_edge, face, static_cast<int>(s)};
        crossing.feature_I = {FeatureKind::edge, p.next_u, p.next_w};
      } else {
        // Two sides meet at a reference corner: the one they share.
        const auto previous = static_cast<std::size_t>(p.next_side);
        const std::size_t shared = (previous + 1) % loop.size() == s ? s : previous;
        crossing.feature_R = {FeatureKind::vertex, loop[shared], 0};
        crossing.feature_I = {FeatureKind::face, g, 0};
      }
      if (dp <= 0.0) {  // leaving: the polygon runs along side s until it enters again
        crossing.next_on_side = true;
        crossing.next_side = static_cast<int>(s);
      }
      (*clipped)[out++] = crossing;
    }
    std::swap(polygon, clipped);
    count = out;
  }

  // Each corner's point from its features (the numbers evaluate_manifold_point gives), corners
  // that coincide (a crossing at a vertex) once.
  for (std::size_t k = 0; k < count; ++k) {
    const ManifoldPoint point =
        face_point(R, face, I, (*polygon)[k].feature_R, (*polygon)[k].feature_I,
                   PointEvaluation::geometry_and_validity);
    // Of two that coincide (a crossing at an incident vertex), the vertex stays.
    bool duplicate = false;
    for (int j = 0; j < manifold.count && !duplicate; ++j) {
      ManifoldPoint& other = manifold.points[static_cast<std::size_t>(j)];
      duplicate = (other.geometry.p_B_W - point.geometry.p_B_W).norm() <= 10.0 * tolerance &&
                  std::abs(other.geometry.distance - point.geometry.distance) <= 10.0 * tolerance;
      if (duplicate && point.feature_b.kind == FeatureKind::vertex &&
          other.feature_b.kind != FeatureKind::vertex) {
        other = point;
      }
    }
    if (!duplicate) add_point(manifold, point);
  }
}

// The larger of v . n over the faces of P (how well some face lies along n).
std::pair<int, double> best_aligned_face(const PlacedPolytope& P, const Vec3& n_W) {
  int best = 0;
  double best_dot = -kInfinity;
  for (int f = 0; f < P.polytope.face_count(); ++f) {
    const double d = P.face_normal_W(f).dot(n_W);
    if (d > best_dot) best_dot = d, best = f;
  }
  return {best, best_dot};
}

// The closest-points point of two polytopes edge on edge; its validity turns positive when the
// normal comes to lie along a face (the clipping then makes the points).
ManifoldPoint closest_point(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                            const PlacedPolytope& A, const PlacedPolytope& B,
                            PointEvaluation what) {
  ManifoldPoint point;
  point.geometry = compute_signed_distance(a, X_WA, b, X_WB);
  if (what == PointEvaluation::geometry) return point;
  const double alignment = std::max(best_aligned_face(A, point.geometry.n_AB_W).second,
                                    best_aligned_face(B, -point.geometry.n_AB_W).second);
  const double size = std::min(A.polytope.bounding_radius(), B.polytope.bounding_radius());
  point.validity = (alignment - (1.0 - kFaceAlignment)) * size;
  return point;
}

// The reference of two polytopes at their poses: `kept` while its face lies along the pair's
// normal (reassessed) or unconditionally (kept), else the best aligned face, else closest.
ManifoldReference choose_reference(const Shape& a, const Pose& X_WA, const Shape& b,
                                   const Pose& X_WB, const PlacedPolytope& A,
                                   const PlacedPolytope& B, const ManifoldReference* kept,
                                   ReferenceUse use) {
  if (kept != nullptr && use == ReferenceUse::keep) return *kept;
  const Vec3 n_AB_W = compute_signed_distance(a, X_WA, b, X_WB).n_AB_W;
  const double threshold = 1.0 - kFaceAlignment;
  if (kept != nullptr && kept->kind == ManifoldKind::face_of_a &&
      A.face_normal_W(kept->face).dot(n_AB_W) >= threshold) {
    return *kept;
  }
  if (kept != nullptr && kept->kind == ManifoldKind::face_of_b &&
      B.face_normal_W(kept->face).dot(-n_AB_W) >= threshold) {
    return *kept;
  }
  const auto [face_a, alignment_a] = best_aligned_face(A, n_AB_W);
  const auto [face_b, alignment_b] = best_aligned_face(B, -n_AB_W);
  if (std::max(alignment_a, alignment_b) < threshold) return {ManifoldKind::closest, -1};
  if (alignment_a >= alignment_b - kReferenceTie) return {ManifoldKind::face_of_a, face_a};
  return {ManifoldKind::face_of_b, face_b};
}

// The half-space and polytope of a pair, whichever is A.
struct HalfspacePair {
  const Shape& half;
  const Pose& X_WH;
  const Shape& poly;
  const Pose& X_WP;
  bool half_is_a;
};
HalfspacePair order_halfspace_pair(const Shape& a, const Pose& X_WA, const Shape& b,
                                   const Pose& X_WB) {
  if (a.type == ShapeType::halfspace) return {a, X_WA, b, X_WB, true};
  return {b, X_WB, a, X_WA, false};
}

// Shapes with a smoothing radius are their cores grown by a ball: the cores' points, each
// distance less both radii and its witnesses moved out along the normal (as for one point).
struct SmoothedPair {
  SmoothingCore core_a;
  SmoothingCore core_b;
  Pose X_WA;
  Pose X_WB;
};
SmoothedPair place_cores(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB) {
  SmoothedPair pair{compute_smoothing_core(a), compute_smoothing_core(b), X_WA, X_WB};
  pair.X_WA.translation = X_WA.transform_point(pair.core_a.offset_S);
  pair.X_WB.translation = X_WB.transform_point(pair.core_b.offset_S);
  return pair;
}
void grow_point(ManifoldPoint& point, double radius_a, double radius_b) {
  SignedDistance& g = point.geometry;
  g.distance -= radius_a + radius_b;
  g.p_A_W += radius_a * g.n_AB_W;
  g.p_B_W -= radius_b * g.n_AB_W;
}

}  // namespace

std::string format_feature(const Feature& feature) {
  switch (feature.kind) {
    case FeatureKind::shape:
      return "shape";
    case FeatureKind::vertex:
      return fmt::format("v{}", feature.index);
    case FeatureKind::edge:
      return fmt::format("e{}-{}", feature.index, feature.index2);
    case FeatureKind::face:
      return fmt::format("f{}", feature.index);
    case FeatureKind::face_edge:
      return fmt::format("f{}e{}", feature.index, feature.index2);
  }
  return "shape";
}

bool has_round_flats(const Shape& shape) {
  if (shape.type != ShapeType::cylinder && shape.type != ShapeType::cone) return false;
  if (!(shape.smoothing_radius > 0.0)) return shape.radius > 0.0;
  return compute_smoothing_core(shape).shape.radius > 0.0;
}

int round_point_count(const Shape& round) {
  // A rounded shape's points are its core's rims grown; a frustum's core may end in an apex.
  const Shape& core = round.smoothing_radius > 0.0 ? compute_smoothing_core(round).shape : round;
  return core.type == ShapeType::cone && !(core.top_radius > 0.0) ? 5 : 8;
}

bool has_manifold_geometry(const Shape& shape) {
  if (shape.type == ShapeType::halfspace || shape.type == ShapeType::box) return true;
  if (shape.smoothing_radius > 0.0) return false;
  if (shape.type != ShapeType::convex || shape.hull == nullptr) return false;
  const auto& start = shape.hull->face_loop_start;
  if (start.size() < 2) return false;
  for (std::size_t f = 0; f + 1 < start.size(); ++f) {
    if (start[f + 1] - start[f] > kMaxClippedFaceCorners) return false;
  }
  return true;
}

void compute_contact_manifold(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                              const ManifoldReference* kept, ReferenceUse use,
                              ContactManifold& manifold) {
  if (is_terrain_pair(a, b)) {
    compute_terrain_manifold(a, X_WA, b, X_WB, manifold);
    return;
  }
  manifold.unseen_distance = kInfinity;
  if (a.smoothing_radius > 0.0 || b.smoothing_radius > 0.0) {
    const SmoothedPair cores = place_cores(a, X_WA, b, X_WB);
    compute_contact_manifold(cores.core_a.shape, cores.X_WA, cores.core_b.shape, cores.X_WB, kept,
                             use, manifold);
    for (int k = 0; k < manifold.count; ++k) {
      grow_point(manifold.points[static_cast<std::size_t>(k)], a.smoothing_radius,
                 b.smoothing_radius);
    }
    return;
  }
  manifold.count = 0;
  // A polytope on a half-space: every vertex.
  if (a.type == ShapeType::halfspace || b.type == ShapeType::halfspace) {
    const HalfspacePair pair = order_halfspace_pair(a, X_WA, b, X_WB);
    const Vec3 n_W = pair.X_WH.rotation * pair.half.normal_S;
    const double level = n_W.dot(pair.X_WH.translation) + pair.half.offset;
    manifold.reference = {ManifoldKind::halfspace, 0};
    if (has_round_flats(pair.poly)) {
      for (int k = 0; k < round_point_count(pair.poly); ++k) {
        ManifoldPoint point = halfspace_round_point(n_W, level, pair.poly, pair.X_WP, k);
        if (!pair.half_is_a) point = swapped_point(point);
        add_point(manifold, point);
      }
      return;
    }
    const Polytope polytope(pair.poly);
    const PlacedPolytope P{polytope, pair.X_WP};
    // Beyond the capacity the deepest vertices stay (a hull of many corners).
    for (int v = 0; v < P.polytope.vertex_count(); ++v) {
      ManifoldPoint point = halfspace_vertex_point(n_W, level, P, v);
      if (!pair.half_is_a) point = swapped_point(point);
      add_point(manifold, point);
    }
    return;
  }

  // Two polytopes: a reference face clipped, or the closest points.
  const Polytope polytope_a(a), polytope_b(b);
  const PlacedPolytope A{polytope_a, X_WA}, B{polytope_b, X_WB};
  manifold.reference = choose_reference(a, X_WA, b, X_WB, A, B, kept, use);
  switch (manifold.reference.kind) {
    case ManifoldKind::face_of_a:
      clip_incident_face(A, manifold.reference.face, B, manifold);
      break;
    case ManifoldKind::face_of_b:
      clip_incident_face(B, manifold.reference.face, A, manifold);
      for (int k = 0; k < manifold.count; ++k) {
        auto& point = manifold.points[static_cast<std::size_t>(k)];
        point = swapped_point(point);
      }
      break;
    default:
      manifold.points[0] =
          closest_point(a, X_WA, b, X_WB, A, B, PointEvaluation::geometry_and_validity);
      manifold.count = 1;
      break;
  }
}

ManifoldPoint evaluate_manifold_point(const Shape& a, const Pose& X_WA, const Shape& b,
                                      const Pose& X_WB, const ManifoldReference& reference,
                                      const Feature& feature_a, const Feature& feature_b,
                                      PointEvaluation what) {
  if (reference.kind == ManifoldKind::terrain) {
    return evaluate_terrain_point(a, X_WA, b, X_WB, feature_a, feature_b);
  }
  if (reference.kind != ManifoldKind::single &&
      (a.smoothing_radius > 0.0 || b.smoothing_radius > 0.0)) {
    const SmoothedPair cores = place_cores(a, X_WA, b, X_WB);
    ManifoldPoint point =
        evaluate_manifold_point(cores.core_a.shape, cores.X_WA, cores.core_b.shape, cores.X_WB,
                                reference, feature_a, feature_b, what);
    grow_point(point, a.smoothing_radius, b.smoothing_radius);
    return point;
  }
  switch (reference.kind) {
    case ManifoldKind::halfspace: {
      const HalfspacePair pair = order_halfspace_pair(a, X_WA, b, X_WB);
      const Vec3 n_W = pair.X_WH.rotation * pair.half.normal_S;
      const double level = n_W.dot(pair.X_WH.translation) + pair.half.offset;
      const int vertex = pair.half_is_a ? feature_b.index : feature_a.index;
      if (has_round_flats(pair.poly)) {
        const ManifoldPoint point = halfspace_round_point(n_W, level, pair.poly, pair.X_WP, vertex);
        return pair.half_is_a ? point : swapped_point(point);
      }
      const Polytope polytope(pair.poly);
      const ManifoldPoint point =
          halfspace_vertex_point(n_W, level, PlacedPolytope{polytope, pair.X_WP}, vertex);
      return pair.half_is_a ? point : swapped_point(point);
    }
    case ManifoldKind::face_of_a:
    case ManifoldKind::face_of_b: {
      const Polytope polytope_a(a), polytope_b(b);
      const PlacedPolytope A{polytope_a, X_WA}, B{polytope_b, X_WB};
      if (reference.kind == ManifoldKind::face_of_a) {
        return face_point(A, reference.face, B, feature_a, feature_b, what);
      }
      return swapped_point(face_point(B, reference.face, A, feature_b, feature_a, what));
    }
    case ManifoldKind::closest: {
      const Polytope polytope_a(a), polytope_b(b);
      return closest_point(a, X_WA, b, X_WB, PlacedPolytope{polytope_a, X_WA},
                           PlacedPolytope{polytope_b, X_WB}, what);
    }
    case ManifoldKind::single:
    case ManifoldKind::terrain:  // returned above
      break;
  }
  ManifoldPoint point;
  point.geometry = compute_signed_distance(a, X_WA, b, X_WB);
  return point;
}

}  // namespace hybridsim
