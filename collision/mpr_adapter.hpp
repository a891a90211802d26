// The one place that calls libccd (style.md, habit 5): Minkowski Portal Refinement on two convex
// shapes given by their support functions. MPR tells whether they overlap and, if they do, a
// penetration depth and direction; collision/signed_distance.cpp refines that direction to the
// exact signed distance, so MPR's own tolerance only needs to put it near the optimum.
//
// Normal convention: n_AB_W points from A to B; translating B by depth * n_AB_W makes the shapes
// touch (libccd's `dir` for obj1 = A, obj2 = B). libccd's contact position is not used: witness
// points come from the support functions.
#pragma once

#include <optional>

#include "collision/convex_distance.hpp"
#include "core/math.hpp"

namespace hybridsim {

struct MprPenetration {
  double depth = 0.0;           // m, >= 0
  Vec3 n_AB_W = Vec3::UnitZ();  // unit direction from A to B
};

// MPR on A and B with libccd's tolerance `tolerance` (m, scaled to the shapes by the caller) and
// at most `max_iterations` portal refinements. Empty when MPR finds them apart. Throws SolverError
// with both shapes and poses when libccd's answer is not a unit normal with a finite depth.
std::optional<MprPenetration> compute_mpr_penetration(const PlacedConvex& a, const PlacedConvex& b,
                                                      double tolerance, int max_iterations = 200);

// The two shapes and poses of a failed query, ready to paste into a test.
std::string describe_convex_pair(const PlacedConvex& a, const PlacedConvex& b);

}  // namespace hybridsim
