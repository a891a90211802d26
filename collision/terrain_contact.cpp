#include "collision/terrain_contact.hpp"

#include <algorithm>
#include <cmath>

#include "collision/shape_geometry.hpp"
#include "collision/surface_features.hpp"
#include "collision/terrain_peaks.hpp"
#include "collision/terrain_side.hpp"

namespace hybridsim {
namespace {

// Moves a walk may take from its anchor: a point moves a triangle or two between evaluations and
// its anchor is set anew at every event; one that has walked this far ends at an event, which
// anchors it afresh (design.md §4b).
constexpr int kMaxWalkSteps = 256;

// Whether some corner of face g lies below the plane of face t (by more than the rounding of
// the surface's coordinates).
bool dips_below(const TriangleSurface& s, int g, int t) {
  const Vec3& n = s.normals_S[static_cast<std::size_t>(t)];
  const Vec3& on_plane = vertex_of(s, t, 0);
  const double tolerance = 1e-12 * s.size();
  for (int j = 0; j < 3; ++j) {
    if (n.dot(vertex_of(s, g, j) - on_plane) < -tolerance) return true;
  }
  return false;
}

// How far c lies past where the plane of face t holds on, entering face g over an edge c lies
// `entering` (m) beyond: on over the faces c crosses to the one it lies over, as long as none dips
// below the plane (there the solid is the union of the faces' half-spaces, and t's half-space is
// part of it). <= 0 while they do not; > 0 (m, how far c lies into the first face that dips, or
// past the border), where the plane would run on under the terrain and no longer bounds it.
double past_valleys(const TriangleSurface& s, int t, int g, double entering, const Vec3& c) {
  for (int steps = 0; steps < kMaxWalkSteps; ++steps) {
    if (dips_below(s, g, t)) return entering;
    int exit = -1;
    double farthest = 0.0;
    for (int j = 0; j < 3; ++j) {
      const double beyond = edge_outward(s, g, j).dot(c - vertex_of(s, g, j));
      if (beyond > farthest) farthest = beyond, exit = j;
    }
    if (exit < 0) return -kInfinity;
    const int next = s.neighbours[static_cast<std::size_t>(g)][static_cast<std::size_t>(exit)];
    if (next < 0) return farthest;
    g = next;
    entering = farthest;
  }
  return 1.0;
}

// Where c stands to face t: the edge to cross (-1 when the face holds it), how far beyond it c
// lies, how far beyond the face's valley edges, and how far past the faces the plane holds on
// over (past_valleys). The face's plane holds on past a valley edge: the solid there is the union
// of both faces' half-spaces.
struct FaceExit {
  int edge = -1;
  double beyond = 0.0;               // m, over the edge to cross
  double beyond_valley = 0.0;        // m, over the farthest valley edge (0: none)
  double past_valleys = -kInfinity;  // m, past_valleys from across that edge
};
FaceExit face_exit(const TriangleSurface& s, int t, const Vec3& c) {
  const auto ti = static_cast<std::size_t>(t);
  FaceExit exit;
  int valley = -1;
  for (int k = 0; k < 3; ++k) {
    // Only distances beyond an edge count: the sign first, without the square root (a point over
    // the face, the usual case, needs none), then the distance as the unit perpendicular gives it.
    const Vec3& a = vertex_of(s, t, k);
    if (!((vertex_of(s, t, k + 1) - a).cross(s.normals_S[ti]).dot(c - a) > 0.0)) continue;
    const double beyond = edge_outward(s, t, k).dot(c - a);
    if (s.creases[ti][static_cast<std::size_t>(k)] != Crease::concave) {
      if (beyond > exit.beyond) exit.beyond = beyond, exit.edge = k;
    } else if (beyond > exit.beyond_valley) {
      exit.beyond_valley = beyond;
      valley = k;
    }
  }
  if (valley >= 0) {
    exit.past_valleys = past_valleys(s, t, s.neighbours[ti][static_cast<std::size_t>(valley)],
                                     exit.beyond_valley, c);
  }
  return exit;
}

// Whether c lies beyond an edge of face t that bounds it (not a valley's): the face does not hold
// c. The quick test (no square root) that rules out most faces near a ball.
bool outside_bounding_edge(const TriangleSurface& s, int t, const Vec3& c) {
  const auto ti = static_cast<std::size_t>(t);
  for (int k = 0; k < 3; ++k) {
    if (s.creases[ti][static_cast<std::size_t>(k)] == Crease::concave) continue;
    const Vec3& a = vertex_of(s, t, k);
    if ((vertex_of(s, t, k + 1) - a).cross(s.normals_S[ti]).dot(c - a) > 0.0) return true;
  }
  return false;
}

struct Step {
  bool holds = false;  // the feature holds the point (`point` is set), else move to `next`
  Feature next;
  SurfacePoint point;
};

// The point stays with its feature past the feature's region, where moving on would make its
// distance jump: `beyond` (m, > 0) is its validity, so that the crossing function z1 makes the
// move an event.
Step stay(const SurfacePoint& point, double beyond) {
  Step step;
  step.holds = true;
  step.point = point;
  step.point.validity = beyond;
  return step;
}

Step step_face(const TriangleSurface& s, int t, const Vec3& c) {
  const Vec3& n = s.normals_S[static_cast<std::size_t>(t)];
  const double height = n.dot(c - vertex_of(s, t, 0));
  const SurfacePoint here{{FeatureKind::face, t, 0}, c - height * n, n, height};
  const FaceExit exit = face_exit(s, t, c);
  Step step;
  if (exit.edge >= 0) {
    if (s.creases[static_cast<std::size_t>(t)][static_cast<std::size_t>(exit.edge)] ==
        Crease::flat) {
      step.next = {FeatureKind::face,
                   s.neighbours[static_cast<std::size_t>(t)][static_cast<std::size_t>(exit.edge)],
                   0};
      return step;
    }
    // Under the surface (a corner pressed in) the solid is the faces' half-spaces' intersection
    // at a ridge: the face whose plane is nearer holds the point (they are equal on the
    // bisector).
    const int other =
        s.neighbours[static_cast<std::size_t>(t)][static_cast<std::size_t>(exit.edge)];
    if (height < 0.0 && exit.beyond_valley <= 0.0 && other >= 0) {
      if (s.normals_S[static_cast<std::size_t>(other)].dot(c - vertex_of(s, t, exit.edge)) >
          height) {
        step.next = {FeatureKind::face, other, 0};
        return step;
      }
      return stay(here, -kInfinity);
    }
    // Over a ridge or the border: onto the edge, unless the plane already holds on past a valley,
    // where the distance would jump: an event settles it.
    if (exit.beyond_valley <= 0.0) {
      step.next = canonical_edge(s, t, exit.edge);
      return step;
    }
    return stay(here, std::max(exit.past_valleys, std::min(exit.beyond, exit.beyond_valley)));
  }
  // Where the terrain beyond the valley dips below the plane, the plane no longer holds (it
  // would run on under the terrain): an event settles it.
  return stay(here, exit.past_valleys > 0.0 ? exit.past_valleys : -kInfinity);
}

Step step_edge(const TriangleSurface& s, int t, int k, const Vec3& c) {
  const Vec3& a = vertex_of(s, t, k);
  const Vec3 e = vertex_of(s, t, k + 1) - a;
  const double along = e.dot(c - a) / e.squaredNorm();
  Step step;
  if (along <= 0.0 || along >= 1.0) {
    step.next = {FeatureKind::vertex,
                 s.triangles[static_cast<std::size_t>(t)][along <= 0.0 ? k : (k + 1) % 3], 0};
    return step;
  }
  const Vec3 q = a + along * e;
  const Vec3 u = c - q;
  const int other = s.neighbours[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)];
  // Under both faces of an inner edge: the one whose plane is nearer (past the border the edge
  // itself is nearest).
  const double height_t = s.normals_S[static_cast<std::size_t>(t)].dot(u);
  const double height_other =
      other >= 0 ? s.normals_S[static_cast<std::size_t>(other)].dot(u) : -kInfinity;
  if (other >= 0 && height_t < 0.0 && height_other < 0.0) {
    step.next = {FeatureKind::face, height_other > height_t ? other : t, 0};
    return step;
  }
  // Into a face whose side c lies over.
  double deepest = u.dot(-edge_outward(s, t, k));
  int into = deepest > 0.0 ? t : -1;
  Vec3 n_mean = s.normals_S[static_cast<std::size_t>(t)];
  if (other >= 0) {
    const double over = u.dot(-edge_outward(s, other, edge_in_neighbour(s, t, k, other)));
    if (over > deepest && over > 0.0) into = other;
    n_mean += s.normals_S[static_cast<std::size_t>(other)];
  }
  if (into >= 0) {
    step.next = {FeatureKind::face, into, 0};
    return step;
  }
  const double height = u.norm();
  return stay(
      {canonical_edge(s, t, k), q, height > 0.0 ? Vec3(u / height) : n_mean.normalized(), height},
      -kInfinity);
}

Step step_vertex(const TriangleSurface& s, int v, const Vec3& c) {
  const Vec3& p = s.vertices_S[static_cast<std::size_t>(v)];
  const Vec3 u = c - p;
  // c leaves the vertex's cone towards the edge it rises along most; along a valley's edge that
  // would make the distance jump (a saddle), so the point stays.
  double steepest = 0.0;
  double steepest_valley = 0.0;
  Feature next;
  Vec3 n_sum = Vec3::Zero();
  // Under every face of an inner vertex's fan: the one whose plane is nearest (at the border the
  // vertex itself may be nearest).
  int nearest_face = -1;
  double nearest_height = -kInfinity;
  bool on_border = false;
  for (int i = s.fan_start[static_cast<std::size_t>(v)];
       i < s.fan_start[static_cast<std::size_t>(v) + 1]; ++i) {
    const int t = s.fan_triangles[static_cast<std::size_t>(i)];
    const auto& tri = s.triangles[static_cast<std::size_t>(t)];
    n_sum += s.normals_S[static_cast<std::size_t>(t)];
    const double height = s.normals_S[static_cast<std::size_t>(t)].dot(u);
    if (height > nearest_height) nearest_height = height, nearest_face = t;
    const int at = tri[0] == v ? 0 : tri[1] == v ? 1 : 2;
    // The two edges of t at v: k = at (v -> next) and k = at + 2 (previous -> v).
    for (const int k : {at, (at + 2) % 3}) {
      on_border =
          on_border || s.neighbours[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)] < 0;
      const int w = tri[k == at ? (at + 1) % 3 : (at + 2) % 3];
      const Vec3 d = s.vertices_S[static_cast<std::size_t>(w)] - p;
      const double slope = u.dot(d) / d.norm();
      if (s.creases[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)] == Crease::concave) {
        steepest_valley = std::max(steepest_valley, slope);
      } else if (slope > steepest) {
        steepest = slope;
        next = canonical_edge(s, t, k);
      }
    }
  }
  if (nearest_height < 0.0 && !on_border) {
    Step step;
    step.next = {FeatureKind::face, nearest_face, 0};
    return step;
  }
  if (steepest > 0.0) {
    Step step;
    step.next = next;
    return step;
  }
  const double height = u.norm();
  return stay({{FeatureKind::vertex, v, 0},
               p,
               height > 0.0 ? Vec3(u / height) : n_sum.normalized(),
               height},
              steepest_valley > 0.0 ? steepest_valley : -kInfinity);
}

Step step_from(const TriangleSurface& s, const Feature& f, const Vec3& c) {
  switch (f.kind) {
    case FeatureKind::face:
      return step_face(s, f.index, c);
    case FeatureKind::face_edge:
      return step_edge(s, f.index, f.index2, c);
    default:
      return step_vertex(s, f.index, c);
  }
}

bool same_point(const SurfacePoint& p, const SurfacePoint& q, double size) {
  return (p.q_S - q.q_S).norm() <= 1e-12 * size && p.n_S.dot(q.n_S) >= 1.0 - 1e-12;
}

}  // namespace

SurfacePoint follow_surface_point(const TriangleSurface& surface, const Vec3& c_S,
                                  const Feature& start) {
  Feature feature = start;
  for (int steps = 0; steps < kMaxWalkSteps; ++steps) {
    const Step step = step_from(surface, feature, c_S);
    if (step.holds) return step.point;
    feature = step.next;
  }
  // Walked too far: the point stays on the face it reached (the plane of the face, or of a face
  // at the edge or vertex), with a validity that makes an event anchor it anew.
  const int t = feature.kind == FeatureKind::vertex
                    ? surface.fan_triangles[static_cast<std::size_t>(
                          surface.fan_start[static_cast<std::size_t>(feature.index)])]
                    : feature.index;
  const Vec3& n = surface.normals_S[static_cast<std::size_t>(t)];
  const double height = n.dot(c_S - vertex_of(surface, t, 0));
  return {{FeatureKind::face, t, 0}, c_S - height * n, n, height, 1.0};
}

int find_surface_points(const TriangleSurface& surface, const Vec3& c_S, double reach,
                        std::span<SurfacePoint> out, double depth) {
  int found = 0;
  int kept = 0;
  const double size = surface.size();
  // A candidate is a feature that holds the point within its region.
  const auto offer = [&](const Step& step) {
    if (!step.holds || step.point.validity > 0.0 || step.point.height > reach) return;
    for (int i = 0; i < kept; ++i) {
      if (same_point(out[static_cast<std::size_t>(i)], step.point, size)) return;
    }
    ++found;
    // Insert by height, the nearest first, keeping out.size().
    int at = kept;
    while (at > 0 && out[static_cast<std::size_t>(at - 1)].height > step.point.height) --at;
    if (at >= static_cast<int>(out.size())) return;
    if (kept < static_cast<int>(out.size())) ++kept;
    for (int i = kept - 1; i > at; --i) {
      out[static_cast<std::size_t>(i)] = out[static_cast<std::size_t>(i - 1)];
    }
    out[static_cast<std::size_t>(at)] = step.point;
  };
  // A point under the surface may be nearer its face's plane than the face's corners are.
  surface.for_each_triangle_near(c_S, std::max(reach, depth), [&](int t) {
    const auto ti = static_cast<std::size_t>(t);
    // A face holds a point over it, in front, or under it down to `depth`.
    const double height = surface.normals_S[ti].dot(c_S - vertex_of(surface, t, 0));
    if (height > -depth && height <= reach &&
        (height < 0.0 || !outside_bounding_edge(surface, t, c_S))) {
      offer(step_face(surface, t, c_S));
    }
    for (int k = 0; k < 3; ++k) {
      const Crease crease = surface.creases[ti][static_cast<std::size_t>(k)];
      if (crease != Crease::convex && crease != Crease::boundary) continue;
      const Feature edge = canonical_edge(surface, t, k);
      if (edge.index != t) continue;  // reported by its other triangle
      offer(step_edge(surface, t, k, c_S));
    }
    for (const int v : surface.triangles[ti]) {
      if (surface.fan_triangles[static_cast<std::size_t>(
              surface.fan_start[static_cast<std::size_t>(v)])] != t) {
        continue;  // reported by its first triangle
      }
      if ((surface.vertices_S[static_cast<std::size_t>(v)] - c_S).squaredNorm() > reach * reach) {
        continue;  // too far to be a candidate
      }
      offer(step_vertex(surface, v, c_S));
    }
  });
  return found;
}

bool is_surface_feature(const TriangleSurface& surface, const Feature& feature) {
  const auto triangles = static_cast<int>(surface.triangles.size());
  switch (feature.kind) {
    case FeatureKind::face:
      return feature.index >= 0 && feature.index < triangles && feature.index2 == 0;
    case FeatureKind::face_edge:
      return feature.index >= 0 && feature.index < triangles && feature.index2 >= 0 &&
             feature.index2 < 3;
    case FeatureKind::vertex:
      return feature.index >= 0 && feature.index < static_cast<int>(surface.vertices_S.size()) &&
             surface.fan_start[static_cast<std::size_t>(feature.index) + 1] >
                 surface.fan_start[static_cast<std::size_t>(feature.index)] &&
             feature.index2 == 0;
    default:
      return false;
  }
}

}  // namespace hybridsim

namespace hybridsim {
namespace {

// Candidates are searched this far from each point (relative to the partner's bounding radius):
// the crossing function z2 needs only those near contact, and the search covers a cap of a ball,
// not its width.
constexpr double kTerrainSearchMargin = 1e-3;
// How deep under a face a corner may be and still touch it, relative to the partner's bounding
// radius: far beyond any contact's depth, short of the far side of a thin wall. The step bound
// (compute_terrain_step_travel) keeps a corner from moving deeper within one step.
constexpr double kCornerDepth = 0.1;

// A terrain pair as (surface, partner), with whether the partner is A.
struct TerrainPair {
  const Shape& terrain;
  const Pose& X_WT;
  const Shape& partner;
  const Pose& X_WP;
  bool partner_is_a;
};

// How deep under a face the partner's points are searched: a ball's or capsule's centre only in
// front of it, a corner (of a box, rounded or not, a hull, a free mesh) down to kCornerDepth of
// the partner's size.
double corner_depth(const Shape& partner) {
  if (partner.type == ShapeType::sphere || partner.type == ShapeType::capsule) return 0.0;
  // A mesh keeps its own frame (its vertices may lie far from S's origin): its size is half its
  // bounds' diagonal.
  const double size = partner.type == ShapeType::mesh ? 0.5 * partner.surface->size()
                                                      : compute_bounding_radius(partner);
  return kCornerDepth * size;
}

TerrainPair order(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB) {
  if (is_terrain_partner_a(a, b)) return {b, X_WB, a, X_WA, true};
  return {a, X_WA, b, X_WB, false};
}

// The partner's points that touch terrain, each grown by a radius: a ball's centre; a capsule's
// two segment ends; a box's eight corners (of its core, grown by its smoothing radius); a hull's
// vertices; a free mesh's vertices (all of them: where the mesh is not convex, a vertex inside its
// hull may still meet a bump). Point k is named {vertex, k}, a ball's centre {shape}.
int partner_point_count(const Shape& partner) {
  switch (partner.type) {
    case ShapeType::capsule:
      return 2;
    case ShapeType::box:
      return 8;
    case ShapeType::convex:
      return static_cast<int>(partner.hull->vertices_S.size());
    case ShapeType::mesh:
      return static_cast<int>(partner.surface->vertices_S.size());
    default:
      return 1;
  }
}

struct PartnerPoint {
  Vec3 p_P;  // in the partner's frame, m
  double radius;
  Feature feature;
};

PartnerPoint partner_point(const Shape& partner, int k) {
  switch (partner.type) {
    case ShapeType::capsule:
      return {Vec3(0.0, 0.0, (k == 0 ? -0.5 : 0.5) * partner.length),
              partner.radius,
              {FeatureKind::vertex, k, 0}};
    case ShapeType::box: {
      const Vec3 core = partner.half_extents - Vec3::Constant(partner.smoothing_radius);
      return {Vec3((k & 1) ? core.x() : -core.x(), (k & 2) ? core.y() : -core.y(),
                   (k & 4) ? core.z() : -core.z()),
              partner.smoothing_radius,
              {FeatureKind::vertex, k, 0}};
    }
    case ShapeType::convex:
      return {
          partner.hull->vertices_S[static_cast<std::size_t>(k)], 0.0, {FeatureKind::vertex, k, 0}};
    case ShapeType::mesh:
      return {partner.surface->vertices_S[static_cast<std::size_t>(k)],
              0.0,
              {FeatureKind::vertex, k, 0}};
    default:
      return {Vec3::Zero(), partner.radius, {}};
  }
}

int partner_point_index(const Feature& feature) {
  return feature.kind == FeatureKind::vertex ? feature.index : 0;
}

Vec3 point_in_terrain(const TerrainPair& p, const PartnerPoint& point) {
  return p.X_WT.rotation.transpose() * (p.X_WP.transform_point(point.p_P) - p.X_WT.translation);
}

// A surface point as a manifold point of the pair: the partner point's distance, the normal from
// A to B.
ManifoldPoint to_manifold_point(const TerrainPair& p, const PartnerPoint& partner_point,
                                const SurfacePoint& s) {
  ManifoldPoint point;
  const Vec3 n_W = p.X_WT.rotation * s.n_S;
  const Vec3 on_surface_W = p.X_WT.transform_point(s.q_S);
  const Vec3 on_partner_W = p.X_WP.transform_point(partner_point.p_P) - partner_point.radius * n_W;
  point.geometry.distance = s.height - partner_point.radius;
  point.geometry.n_AB_W = p.partner_is_a ? Vec3(-n_W) : n_W;
  point.geometry.p_A_W = p.partner_is_a ? on_partner_W : on_surface_W;
  point.geometry.p_B_W = p.partner_is_a ? on_surface_W : on_partner_W;
  point.validity = s.validity;
  (p.partner_is_a ? point.feature_b : point.feature_a) = s.feature;
  (p.partner_is_a ? point.feature_a : point.feature_b) = partner_point.feature;
  return point;
}

// Adds a candidate to the manifold; when it is full the deepest stay, and the unseen distance
// bounds the one left out.
void add_candidate(ContactManifold& manifold, const ManifoldPoint& candidate) {
  if (manifold.count < kMaxManifoldPoints) {
    manifold.points[static_cast<std::size_t>(manifold.count++)] = candidate;
    return;
  }
  auto shallowest = std::max_element(manifold.points.begin(), manifold.points.end(),
                                     [](const ManifoldPoint& x, const ManifoldPoint& y) {
                                       return x.geometry.distance < y.geometry.distance;
                                     });
  manifold.unseen_distance =
      std::min(manifold.unseen_distance,
               std::max(candidate.geometry.distance, shallowest->geometry.distance));
  if (candidate.geometry.distance < shallowest->geometry.distance) *shallowest = candidate;
}

}  // namespace

void compute_terrain_manifold(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                              ContactManifold& manifold) {
  const TerrainPair p = order(a, X_WA, b, X_WB);
  const TriangleSurface& surface = *p.terrain.surface;
  const double size = compute_bounding_radius(p.partner);
  const double margin = kTerrainSearchMargin * size;
  manifold.reference = {ManifoldKind::terrain, -1};
  manifold.count = 0;
  manifold.unseen_distance = margin;
  // Scratch, reused: a fresh array would be initialised on every call (1.4 kB).
  thread_local std::array<SurfacePoint, kMaxManifoldPoints> found;
  for (int k = 0; k < partner_point_count(p.partner); ++k) {
    const PartnerPoint point = partner_point(p.partner, k);
    const Vec3 c_S = point_in_terrain(p, point);
    const int all =
        find_surface_points(surface, c_S, point.radius + margin, found, corner_depth(p.partner));
    const int count = std::min(all, kMaxManifoldPoints);
    // Candidates cut for room are no farther than the last kept one: z2's bound must say so.
    if (all > count) {
      manifold.unseen_distance =
          std::min(manifold.unseen_distance,
                   found[static_cast<std::size_t>(count - 1)].height - point.radius);
    }
    for (int i = 0; i < count; ++i) {
      const SurfacePoint& at = found[static_cast<std::size_t>(i)];
      // A capsule end's point on a ridge that the side holds is the side's.
      if (side_overlap(p.terrain, p.X_WT, p.partner, p.X_WP, at.feature) >= 0.0) continue;
      add_candidate(manifold, to_manifold_point(p, point, at));
    }
  }
  // The terrain's peaks under the partner's faces.
  thread_local std::array<ManifoldPoint, kMaxManifoldPoints> peaks;
  const int all =
      find_peak_points(p.terrain, p.X_WT, p.partner, p.X_WP, p.partner_is_a, margin, peaks);
  const int count = std::min(all, kMaxManifoldPoints);
  if (all > count) {
    manifold.unseen_distance = std::min(
        manifold.unseen_distance, peaks[static_cast<std::size_t>(count - 1)].geometry.distance);
  }
  for (int i = 0; i < count; ++i) add_candidate(manifold, peaks[static_cast<std::size_t>(i)]);
  // The terrain's ridges and peaks under a capsule's side (collision/terrain_side.hpp).
  const int sides =
      find_side_points(p.terrain, p.X_WT, p.partner, p.X_WP, p.partner_is_a, margin, peaks);
  const int side_count = std::min(sides, kMaxManifoldPoints);
  if (sides > side_count) {
    manifold.unseen_distance =
        std::min(manifold.unseen_distance,
                 peaks[static_cast<std::size_t>(side_count - 1)].geometry.distance);
  }
  for (int i = 0; i < side_count; ++i) add_candidate(manifold, peaks[static_cast<std::size_t>(i)]);
}

std::optional<double> compute_flat_terrain_bound(const Shape& a, const Pose& X_WA, const Shape& b,
                                                 const Pose& X_WB, const Feature& feature_a,
                                                 const Feature& feature_b) {
  const TerrainPair p = order(a, X_WA, b, X_WB);
  if (p.partner.type != ShapeType::sphere) return std::nullopt;
  // The tracked point must lie on a face: past a valley it stays on its face's plane extended
  // while the ball is over the next face, whose own point the search would find.
  const Feature& tracked = p.partner_is_a ? feature_b : feature_a;
  if (tracked.kind != FeatureKind::face || !is_surface_feature(*p.terrain.surface, tracked)) {
    return std::nullopt;
  }
  const TriangleSurface& surface = *p.terrain.surface;
  // The margin and the reach of compute_terrain_manifold's search for a ball.
  const double margin = kTerrainSearchMargin * compute_bounding_radius(p.partner);
  const PartnerPoint point = partner_point(p.partner, 0);
  // One plane, the tracked face's, to the rounding of the coordinates; every edge flat (a crease
  // the search sees as a ridge or a valley, or a border, can make a second candidate).
  const double tolerance = 1e-12 * surface.size();
  const Vec3& n = surface.normals_S[static_cast<std::size_t>(tracked.index)];
  const Vec3& on_plane = vertex_of(surface, tracked.index, 0);
  bool flat = true;
  surface.for_each_triangle_near(point_in_terrain(p, point), point.radius + margin, [&](int t) {
    if (!flat) return;
    const auto ti = static_cast<std::size_t>(t);
    for (const Crease crease : surface.creases[ti]) flat = flat && crease == Crease::flat;
    flat = flat && surface.normals_S[ti].dot(n) >= 1.0 - 1e-12;
    for (int k = 0; k < 3; ++k) {
      flat = flat && std::abs(n.dot(vertex_of(surface, t, k) - on_plane)) <= tolerance;
    }
  });
  if (!flat) return std::nullopt;
  return margin;
}

ManifoldPoint evaluate_terrain_point(const Shape& a, const Pose& X_WA, const Shape& b,
                                     const Pose& X_WB, const Feature& feature_a,
                                     const Feature& feature_b) {
  const TerrainPair p = order(a, X_WA, b, X_WB);
  const Feature& start = p.partner_is_a ? feature_b : feature_a;
  const Feature& on_partner = p.partner_is_a ? feature_a : feature_b;
  if (on_partner.kind == FeatureKind::face) {  // a peak under a face
    return evaluate_peak_point(p.terrain, p.X_WT, p.partner, p.X_WP, p.partner_is_a, start.index,
                               on_partner.index);
  }
  if (touches_ridges(p.partner) && on_partner == kCapsuleSide) {
    return evaluate_side_point(p.terrain, p.X_WT, p.partner, p.X_WP, p.partner_is_a, start);
  }
  const PartnerPoint point = partner_point(p.partner, partner_point_index(on_partner));
  ManifoldPoint now = to_manifold_point(
      p, point, follow_surface_point(*p.terrain.surface, point_in_terrain(p, point), start));
  // A capsule end's point on a ridge that the side holds is the side's: an event hands it over.
  const Feature& held = p.partner_is_a ? now.feature_b : now.feature_a;
  now.validity = std::max(now.validity, side_overlap(p.terrain, p.X_WT, p.partner, p.X_WP, held));
  return now;
}

SignedDistance compute_terrain_distance(const Shape& a, const Pose& X_WA, const Shape& b,
                                        const Pose& X_WB) {
  const TerrainPair p = order(a, X_WA, b, X_WB);
  const TriangleSurface& surface = *p.terrain.surface;
  SignedDistance nearest_of_all;
  for (int k = 0; k < partner_point_count(p.partner); ++k) {
    const PartnerPoint point = partner_point(p.partner, k);
    const Vec3 c_S = point_in_terrain(p, point);
    // Far enough to hold the nearest vertex, hence some candidate; no farther than the nearest
    // point found so far (a free mesh has many points).
    const Vec3 nearest_in_bounds = c_S.cwiseMax(surface.min_S).cwiseMin(surface.max_S);
    double reach = (c_S - nearest_in_bounds).norm() + surface.size() + point.radius;
    if (std::isfinite(nearest_of_all.distance)) {
      reach = std::min(reach, std::max(nearest_of_all.distance, 0.0) + point.radius);
    }
    std::array<SurfacePoint, 1> nearest;
    if (find_surface_points(surface, c_S, reach, nearest, corner_depth(p.partner)) == 0) {
      continue;
    }
    const SignedDistance d = to_manifold_point(p, point, nearest[0]).geometry;
    if (d.distance < nearest_of_all.distance) nearest_of_all = d;
  }
  // A peak under a face may be nearer (its distance a lower bound outside the partner).
  std::array<ManifoldPoint, 1> peak;
  const double reach = std::isfinite(nearest_of_all.distance)
                           ? std::max(nearest_of_all.distance, 0.0)
                           : p.terrain.surface->size();
  if (find_peak_points(p.terrain, p.X_WT, p.partner, p.X_WP, p.partner_is_a, reach, peak) > 0 &&
      peak[0].geometry.distance < nearest_of_all.distance) {
    nearest_of_all = peak[0].geometry;
  }
  // A ridge under a capsule's side may be nearer than its ends.
  if (find_side_points(p.terrain, p.X_WT, p.partner, p.X_WP, p.partner_is_a, reach, peak) > 0 &&
      peak[0].geometry.distance < nearest_of_all.distance) {
    nearest_of_all = peak[0].geometry;
  }
  return nearest_of_all;
}

bool is_partner_feature(const Shape& partner, const Feature& feature) {
  if (partner.type == ShapeType::sphere) return feature == Feature{};
  if (feature.kind == FeatureKind::face) return is_peak_partner_feature(partner, feature);
  if (feature == kCapsuleSide) return touches_ridges(partner);
  if (partner.type == ShapeType::mesh && !partner.surface) return false;
  return feature.kind == FeatureKind::vertex && feature.index >= 0 &&
         feature.index < partner_point_count(partner) && feature.index2 == 0;
}

double compute_terrain_step_travel(const Shape& partner) {
  // A point grown by a radius is seen while it is in front of the surface or, for a corner, while
  // it is less than its depth under a face.
  double travel = kInfinity;
  for (int k = 0; k < partner_point_count(partner); ++k) {
    travel = std::min(travel, partner_point(partner, k).radius + corner_depth(partner));
  }
  return travel;
}

}  // namespace hybridsim
