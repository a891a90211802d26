// Contact manifolds (design.md §4b): several contact points per shape pair where a face lies on a
// face, each with the features that make it, so that the event scheme can follow every point on
// its own.
//
// A polytope (box, convex hull) on a half-space: every vertex is a candidate point, its distance
// the vertex's height above the plane. Two polytopes: when their normal (the signed distance's) is
// a face normal of either one, that face is the reference and the most opposed face of the other,
// the incident face, is clipped to the reference face's prism (Sutherland-Hodgman); each corner
// of the clipped polygon is a candidate point, its distance the depth below the reference plane.
// Otherwise (edge on edge) the pair has one point, its closest points.
//
// Each point is named by its features, and a point can be evaluated from its features alone, as
// a continuous function of the poses: the vertex's height, the incident edge's crossing of a side
// plane, the reference corner's drop onto the incident face. Its `validity` says whether the
// features still make the point (<= 0) or the clipping would now make another (> 0: the vertex
// left the reference face, the crossing left its edge); the crossing function z1 takes it with
// the distance, so that a point changing features is an event (design.md §4b).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "collision/signed_distance.hpp"
#include "core/math.hpp"
#include "core/model.hpp"

namespace hybridsim {

// Which part of a shape makes a contact point.
enum class FeatureKind : std::uint8_t {
  shape,      // the whole shape (one point per pair: the closest points)
  vertex,     // index: the vertex
  edge,       // index, index2: the edge's end vertices
  face,       // index: the face (a half-space's is 0)
  face_edge,  // index: the face; index2: position s in its loop, the edge loop[s] -> loop[s + 1]
};

struct Feature {
  FeatureKind kind = FeatureKind::shape;
  int index = 0;
  int index2 = 0;
  friend bool operator==(const Feature&, const Feature&) = default;
};

// "shape", "v3", "e3-5", "f2", "f2e1": the feature as the outputs name it.
std::string format_feature(const Feature& feature);

// A feature as three integers (kind, index, index2), as ContactResult carries it, and back.
inline std::array<int, 3> feature_numbers(const Feature& feature) {
  return {static_cast<int>(feature.kind), feature.index, feature.index2};
}
inline Feature feature_from_numbers(const std::array<int, 3>& numbers) {
  return {static_cast<FeatureKind>(numbers[0]), numbers[1], numbers[2]};
}

// How the points of a pair are made.
enum class ManifoldKind : std::uint8_t {
  single,     // one point, compute_signed_distance (seed 002's rule, and every non-polytope pair)
  closest,    // two polytopes edge on edge: one point, their closest points
  halfspace,  // a polytope on a half-space: its vertices; a cylinder or cone: its rims' points
  face_of_a,  // a face of A is the reference face, B's incident face is clipped to it
  face_of_b,  // a face of B is the reference face, A's incident face is clipped to it
  terrain,    // a ball on a triangle surface: a point per local minimum of its distance
};

struct ManifoldReference {
  ManifoldKind kind = ManifoldKind::single;
  int face = -1;  // the reference face (face_of_a, face_of_b)
  friend bool operator==(const ManifoldReference&, const ManifoldReference&) = default;
};

// One candidate contact point of a pair.
struct ManifoldPoint {
  SignedDistance geometry;  // this point's distance, normal from A to B and witnesses
  Feature feature_a;
  Feature feature_b;
  // m: <= 0 while the features make this point, > 0 once the clipping would make another; -inf
  // where features never change (a vertex on a half-space, a single point).
  double validity = -kInfinity;
};

// A face of a convex hull with more corners than this is not clipped: such a pair keeps one point.
inline constexpr int kMaxClippedFaceCorners = 64;
// Points kept per pair: the deepest ones, where clipping gives more (two faces of 8+ corners).
inline constexpr int kMaxManifoldPoints = 16;

struct ContactManifold {
  ManifoldReference reference;
  int count = 0;
  // m: a lower bound of the distance of every candidate not listed (terrain lists the near ones).
  double unseen_distance = kInfinity;
  std::array<ManifoldPoint, kMaxManifoldPoints> points;
};

// Whether the shape takes part in manifolds: a half-space, a box (with or without a smoothing
// radius: its core's corners, grown) or a convex hull with no face above kMaxClippedFaceCorners.
bool has_manifold_geometry(const Shape& shape);

// Whether the shape stands on a half-space on several points of its rims: a cylinder or a cone
// (or frustum), sharp or rounded (its core's rims, grown), whose lower end is a rim, not an apex
// (a frustum on its narrow end rounded to a point keeps one point). Against other shapes it has
// one point.
bool has_round_flats(const Shape& shape);

// How many points a cylinder or cone has on a half-space: four per rim, a cone's apex one.
int round_point_count(const Shape& round);

// Whether the pair has manifolds: one is a terrain shape (mesh, heightmap), a cylinder or cone is
// on a half-space, or both have manifold geometry and they are not two half-spaces.
inline bool has_contact_manifold(const Shape& a, const Shape& b) {
  const auto terrain = [](const Shape& s) {
    return s.type == ShapeType::mesh || s.type == ShapeType::heightmap;
  };
  if (terrain(a) || terrain(b)) return true;
  if ((a.type == ShapeType::halfspace && has_round_flats(b)) ||
      (b.type == ShapeType::halfspace && has_round_flats(a))) {
    return true;
  }
  return has_manifold_geometry(a) && has_manifold_geometry(b) &&
         !(a.type == ShapeType::halfspace && b.type == ShapeType::halfspace);
}

// What compute_contact_manifold may do with a reference it is given.
enum class ReferenceUse {
  keep,      // use it as it is (a pair in contact between events)
  reassess,  // keep it while the pair's normal still lies along its face, else choose anew
};

// The candidate points of a pair with manifolds at X_WA, X_WB. With `kept` (the reference of a
// pair in contact), per `use`; without, the reference is chosen from the pair's signed distance.
// Allocates nothing.
void compute_contact_manifold(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                              const ManifoldReference* kept, ReferenceUse use,
                              ContactManifold& manifold);

// What evaluate_manifold_point computes: the geometry alone (the right-hand side's forces), or
// also the validity (the crossing functions; validity stays -inf without it).
enum class PointEvaluation { geometry, geometry_and_validity };

// The point that `feature_a` and `feature_b` make under `reference` at X_WA, X_WB: the same
// numbers compute_contact_manifold gives it, continuous in the poses.
ManifoldPoint evaluate_manifold_point(
    const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
    const ManifoldReference& reference, const Feature& feature_a, const Feature& feature_b,
    PointEvaluation what = PointEvaluation::geometry_and_validity);

}  // namespace hybridsim
