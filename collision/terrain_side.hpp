// A capsule's side against the terrain's ridges and peaks (design.md §4b).
//
// A capsule touches terrain with its two ends (collision/terrain_contact.hpp), which misses a
// ridge or a peak under its middle: lying across a crest or over a table's edge, it would sink
// there until an end met the surface. A ridge (a convex or border edge) or a peak under the
// capsule's cylinder is a point of its own: the closest points of the capsule's axis and the edge
// (or the peak), both strictly inside their segments, and the capsule's radius less their distance
// as its depth, exact. A point follows the ridge from edge to vertex to edge with no event, as a
// ball's point walks over the surface. Where the axis' nearest point reaches an end of the axis,
// the point's validity turns positive and an event hands it to that end's ball, which holds the
// same place when its nearest feature is the same edge; an end held by a ridge edge or peak from
// which the side's walk down along the ridge reaches a point strictly inside the axis stops the
// same way and hands over to the side. Flat and concave edges are not ridges: on a flat or
// bending-up surface the ends carry the capsule. A side point is the end of a line of contact (a
// capsule lying on a face across a ridge rests on the ridge and on its end on the face, as a box
// rests on its corners).
#pragma once

#include <span>

#include "collision/contact_manifold.hpp"
#include "core/model.hpp"

namespace hybridsim {

// The capsule's side as its feature names it: the edge from end 0 to end 1 ("e0-1").
inline constexpr Feature kCapsuleSide{FeatureKind::edge, 0, 1};

// Whether the partner meets ridges and peaks with its side: a capsule.
inline bool touches_ridges(const Shape& partner) {
  return partner.type == ShapeType::capsule;
}

// The side's point that the surface feature `start` held, followed along the ridge to the feature
// that holds it now: the distance (capsule radius less), the normal from A to B and the validity
// (> 0 asks an event to settle it). Allocates nothing.
ManifoldPoint evaluate_side_point(const Shape& terrain, const Pose& X_WT, const Shape& partner,
                                  const Pose& X_WP, bool partner_is_a, const Feature& start);

// The side's points whose distance is below `reach`, the nearest first, at most out.size().
// Returns how many were found (before the cut). Allocates nothing.
int find_side_points(const Shape& terrain, const Pose& X_WT, const Shape& partner, const Pose& X_WP,
                     bool partner_is_a, double reach, std::span<ManifoldPoint> out);

// For a capsule end's ball held at the surface feature `end_feature`: how far inside the axis
// (m) the side's walk from that ridge edge or peak, down along the ridge, ends; >= 0 where it
// ends inside (the end's point is then no nearest point of the capsule to the ridge, and an event
// hands it over to the side's), else < 0 (also for a face, or an edge that is no ridge).
double side_overlap(const Shape& terrain, const Pose& X_WT, const Shape& partner, const Pose& X_WP,
                    const Feature& end_feature);

}  // namespace hybridsim
