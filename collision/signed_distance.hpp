// Signed distance between two shapes (design.md §2, §6): closed forms for sphere-sphere,
// sphere-box, capsule-sphere, capsule-capsule and every shape against a half-space (through its
// support function); every other convex pair through GJK and libccd's MPR with a refinement that
// makes it exact to about 1e-12 of the shapes' size (collision/convex_distance.hpp). Each is
// continuous in the poses through zero, on the separated and the penetrating side, as the root
// finder needs.
#pragma once

#include "core/math.hpp"
#include "core/model.hpp"

namespace hybridsim {

struct SignedDistance {
  double distance = kInfinity;  // > 0 apart, 0 touching, < 0 penetrating, m
  Vec3 n_AB_W = Vec3::UnitZ();  // unit normal from A to B
  Vec3 p_A_W = Vec3::Zero();    // witness point on the surface of A
  Vec3 p_B_W = Vec3::Zero();    // witness point on the surface of B

  // The contact point C where the pair defines its own (two overlapping boxes: the centroid of
  // the common volume, collision/box_overlap.hpp); NaN otherwise.
  Vec3 p_C_W = Vec3::Constant(kNaN);

  // C: p_C_W where set, otherwise the midpoint of the witnesses.
  Vec3 contact_point_W() const { return p_C_W.allFinite() ? p_C_W : Vec3(0.5 * (p_A_W + p_B_W)); }
};

// Whether compute_signed_distance supports this pair of shape types (in either order).
bool is_supported_shape_pair(ShapeType a, ShapeType b);

// Signed distance of shape A at X_WA and shape B at X_WB. Requires a supported pair.
SignedDistance compute_signed_distance(const Shape& a, const Pose& X_WA, const Shape& b,
                                       const Pose& X_WB);

// The general path for two bounded convex shapes (no half-space), used where no closed form is:
// GJK when they are apart by more than the smaller shape's bounding radius, otherwise MPR's
// direction polished or refined to the optimum; about 1e-10 of the size or better (docs/
// physics.md). Throws SolverError, with both shapes and poses, when libccd fails.
SignedDistance compute_convex_signed_distance(const Shape& a, const Pose& X_WA, const Shape& b,
                                              const Pose& X_WB);

}  // namespace hybridsim
