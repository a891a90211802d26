// A ball against a triangle surface (design.md §4b): where its centre c is nearest the surface.
//
// The candidates are the local minima of the distance from c to the surface, each at one
// feature: a face (c over it), an edge of a ridge or of the border (c in the wedge outside it),
// a vertex (c in the cone outside it). They partition the space outside a convex patch, so that a
// ball on a ridge or a triangulated plane has one point, which moves from feature to feature
// continuously: no double counting at shared edges and vertices. In a valley (a concave edge)
// each face holds a point of its own over its plane extended beyond the valley's edge: the solid
// there is the union of the faces' half-spaces, and a ball in a V-groove touches both.
// A contact point follows its ball by walking from the feature that held it to the neighbouring
// one that holds it now, so that it keeps its identity across triangles with no event.
#pragma once

#include <optional>
#include <span>

#include "collision/contact_manifold.hpp"
#include "collision/triangle_surface.hpp"

namespace hybridsim {

// The point of a surface nearest a ball's centre c, at one feature.
struct SurfacePoint {
  // face t: {face, t}; the edge k of triangle t (the smaller of its two triangles):
  // {face_edge, t, k}; vertex v: {vertex, v}
  Feature feature;
  Vec3 q_S = Vec3::Zero();   // the feature's point nearest c, m
  Vec3 n_S = Vec3::UnitZ();  // unit normal from the surface towards c
  double height = 0.0;       // n_S . (c - q_S), m: the distance of c, < 0 below a face
  // m: <= 0 while the feature holds the point; > 0 where the point stayed with its feature past
  // its region because moving on would make its distance jump (a saddle, a ridge met past a
  // valley), which an event must settle.
  double validity = -kInfinity;
};

// The point held by `start` (a feature of this surface) moved to the feature that holds it at
// c_S, over moves that keep its distance continuous (flat edges, ridges, convex corners); where
// none does, it stays, with a positive validity. Allocates nothing.
SurfacePoint follow_surface_point(const TriangleSurface& surface, const Vec3& c_S,
                                  const Feature& start);

// The candidate points of a ball at c_S whose nearest points lie within `reach` (m) of it, the
// nearest first, at most out.size(). Returns how many were found (before the cut). Allocates
// nothing.
// A point under the surface (a corner pressed in) has candidates on faces down to `depth` (m)
// below them; a ball's centre (depth 0) only in front of them (a ball behind a thin wall does not
// touch its far side).
int find_surface_points(const TriangleSurface& surface, const Vec3& c_S, double reach,
                        std::span<SurfacePoint> out, double depth = 0.0);

// Whether `feature` names a face, edge or vertex of this surface as SurfacePoint does.
bool is_surface_feature(const TriangleSurface& surface, const Feature& feature);

// Whether the shape is a triangle surface (mesh, heightmap).
inline bool is_terrain(const Shape& shape) {
  return shape.type == ShapeType::mesh || shape.type == ShapeType::heightmap;
}

// Whether a pair's points come from the surface walk: a terrain shape with a partner that touches
// terrain. A mesh on a moving body meets a half-space with its vertices' hull instead (Shape::hull,
// in S), like a convex hull.
inline bool is_terrain_pair(const Shape& a, const Shape& b) {
  return (is_terrain(a) || is_terrain(b)) && a.type != ShapeType::halfspace &&
         b.type != ShapeType::halfspace;
}

// Whether the shape is a mesh on a free body: the loader gives only those a hull. Against other
// terrain (a fixed or prescribed mesh, a heightmap) it is the partner and touches with its
// vertices, as a hull does.
inline bool is_free_mesh(const Shape& shape) {
  return shape.type == ShapeType::mesh && shape.hull != nullptr;
}

// Of a terrain pair, whether A is the partner: the shape whose points meet the other's surface.
// That is the shape which is not terrain or, of two terrain shapes, the mesh on a free body.
inline bool is_terrain_partner_a(const Shape& a, const Shape& b) {
  return !is_terrain(a) || (is_terrain(b) && is_free_mesh(a) && !is_free_mesh(b));
}

// The shapes that may touch a terrain shape: a ball (its centre, grown by its radius), a capsule
// (its two segment ends, grown, and its side: collision/terrain_side.hpp), a box (its corners,
// grown by its smoothing radius), a convex hull (its vertices) and a mesh on a free body (its
// vertices; touches_terrain_shapes checks the bodies).
inline bool touches_terrain(ShapeType type) {
  return type == ShapeType::sphere || type == ShapeType::capsule || type == ShapeType::box ||
         type == ShapeType::convex || type == ShapeType::mesh;
}

// Whether a pair with a terrain shape has a partner: of two terrain shapes, exactly one must be a
// mesh on a free body (two free meshes have no contact rule yet; two immovable ones never meet).
inline bool touches_terrain_shapes(const Shape& a, const Shape& b) {
  if (!is_terrain(a) || !is_terrain(b)) return true;
  return is_free_mesh(a) != is_free_mesh(b);
}

// The candidate points of a terrain shape and a partner that touches terrain (either order) whose
// distance is below 0.1% of the partner's bounding radius; `manifold.unseen_distance` is that
// margin, a lower bound of every other candidate's distance. On the partner's side a point is
// named by the partner point that makes it: `shape` for a ball, vertex k for the others (a box's
// corner k has x positive if bit 0 of k is set, y bit 1, z bit 2; a capsule's end 0 is at -z),
// by the partner's face that a peak of the terrain meets (collision/terrain_peaks.hpp), or by a
// capsule's side, edge 0-1, that a ridge or peak meets (collision/terrain_side.hpp).
void compute_terrain_manifold(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                              ContactManifold& manifold);

// The point of a terrain pair that the surface feature among feature_a / feature_b held, followed
// to the feature that holds it now (the point's features say which).
ManifoldPoint evaluate_terrain_point(const Shape& a, const Pose& X_WA, const Shape& b,
                                     const Pose& X_WB, const Feature& feature_a,
                                     const Feature& feature_b);

// For a ball over flat terrain, the unseen distance compute_terrain_manifold would give, without
// the search. The pair tracks one point, at the surface feature among feature_a / feature_b (as
// it walked there). Where that feature is a face and every triangle the search reaches lies in
// the face's plane with flat creases only, the search's one candidate is the projection of the
// centre on that plane: the tracked point, which z2 skips. Empty for other partners and
// elsewhere: a patch that only bends away is not enough (a wall whose triangles are in reach
// while its foot's crease is not, a second piece of mesh), nor a tracked point held on its
// face's plane past a valley.
std::optional<double> compute_flat_terrain_bound(const Shape& a, const Pose& X_WA, const Shape& b,
                                                 const Pose& X_WB, const Feature& feature_a,
                                                 const Feature& feature_b);

// Whether `feature` names a point of the partner as compute_terrain_manifold does.
bool is_partner_feature(const Shape& partner, const Feature& feature);

// How far (m) a point of a shape that touches terrain may move into it within one step and still
// be seen: a ball's centre, and a capsule's axis, while in front of the surface (its radius); a
// corner or vertex down to a tenth of the partner's bounding radius under a face (plus a rounded
// corner's radius). The step bound (MultibodySystem::max_step_hint) keeps every step's travel
// below it.
double compute_terrain_step_travel(const Shape& partner);

// The pair's nearest candidate (one point per pair), searched as far as needed.
SignedDistance compute_terrain_distance(const Shape& a, const Pose& X_WA, const Shape& b,
                                        const Pose& X_WB);

}  // namespace hybridsim
