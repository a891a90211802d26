// Distance between two convex shapes from their support functions (design.md §6): our own GJK
// for separated shapes, the separation along a direction and its polish, from which
// collision/signed_distance.cpp builds the signed distance of any convex pair, penetrating or
// not, starting from the direction MPR (collision/mpr_adapter.hpp) gives.
//
// The signed distance of convex A and B is the largest separation over unit directions n,
//   d = max_n sigma(n),  sigma(n) = min_{b in B} n.b - max_{a in A} n.a,
// the Euclidean distance when they are apart and minus the penetration depth when they overlap.
// Translating B by s n* along the optimal direction n* leaves n* optimal, so n* is a fixed point
// of "translate B by s n along the current n until the shapes are apart, take the direction of
// their closest points as the new n". The map contracts by about s / (s + curvature radius) for
// curved surfaces and lands exactly on a face normal of the Minkowski difference for flat ones.
#pragma once

#include "core/math.hpp"
#include "core/model.hpp"

namespace hybridsim {

// A convex shape placed in the world, as GJK and MPR see it: a support point in W and a point
// inside it. `shift_W` translates the shape (m) without copying its pose.
struct PlacedConvex {
  const Shape* shape = nullptr;
  const Pose* X_WS = nullptr;
  Vec3 shift_W = Vec3::Zero();

  // The point of the shape farthest along direction_W (any length, non-zero), in W.
  Vec3 support_W(const Vec3& direction_W) const;
  // The shape's interior centre, in W.
  Vec3 centre_W() const { return X_WS->translation + shift_W; }
};

// The result of GJK on two convex shapes.
struct ConvexDistance {
  bool overlapping = false;     // the shapes share a point (distance and witnesses not set)
  double distance = kInfinity;  // m, Euclidean distance, within the tolerance asked for
  // m, what GJK proved: the distance is at least this (0 or less: separation not proved, the
  // shapes may touch or overlap where the coordinates' rounding hides it)
  double lower_bound = 0.0;
  Vec3 n_AB_W = Vec3::UnitZ();  // unit direction from A's closest point to B's
  Vec3 p_A_W = Vec3::Zero();    // closest point of A
  Vec3 p_B_W = Vec3::Zero();    // closest point of B
  int iterations = 0;           // support points added
};

// GJK: the distance of two convex shapes, with the gap between its upper and lower bound below
// `tolerance` (m), or overlap. Stops after `max_iterations` support points or when no progress is
// left at the precision of the coordinates, with the best bounds found.
ConvexDistance compute_convex_distance(const PlacedConvex& a, const PlacedConvex& b,
                                       double tolerance, int max_iterations = 128);

// A direction near the optimum moved to it where the surfaces are curved: GJK's direction is
// exact on flat parts of the Minkowski difference but, at the precision GJK reaches there, only
// good to about sqrt(tolerance / curvature) on curved ones. Never lowers sigma(n). `stationary`
// says the result satisfies the optimality condition (s_B(-n) - s_A(n) parallel to n) to 1e-8
// of `size` (m), so that sigma(n) is the signed distance; it stays false where a support point
// jumps (a flat face against a kink), and the translated refinement must decide.
struct PolishedDirection {
  Vec3 n_AB_W;
  bool stationary = false;
};
PolishedDirection polish_separating_direction(const PlacedConvex& a, const PlacedConvex& b,
                                              Vec3 n_W, double size);

// The separation sigma(n) of A and B along unit n_W (m): positive when n separates them.
double compute_separation(const PlacedConvex& a, const PlacedConvex& b, const Vec3& n_W);

}  // namespace hybridsim
