// The overlap of two boxes as one contact point (design.md §6): the centroid of their common
// volume. A single contact point per pair, as the seeds use, must not jump when a face lies flat on
// a face: the closest points GJK and MPR give are then an arbitrary point of the face and move
// across it at the slightest tilt. The centroid of the overlap is the centre of pressure of an
// elastic layer (pressure proportional to the local depth) to first order; it moves continuously
// with the poses, sits at a corner for a corner contact, at the middle of an edge for an edge
// contact and at the middle of the common patch for a flat contact.
#pragma once

#include <optional>

#include "core/math.hpp"
#include "core/model.hpp"

namespace hybridsim {

struct BoxOverlap {
  double volume = 0.0;             // m^3, volume common to both boxes
  Vec3 centroid_W = Vec3::Zero();  // its centroid, W
};

// The volume common to box A at X_WA and box B at X_WB and its centroid; nullopt where the boxes
// share no volume (apart or only touching). Allocates nothing. Both shapes must be boxes.
std::optional<BoxOverlap> compute_box_overlap(const Shape& a, const Pose& X_WA, const Shape& b,
                                              const Pose& X_WB);

}  // namespace hybridsim
