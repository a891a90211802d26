// Peaks of a terrain surface under the flat faces of a box or a convex hull (design.md §4b).
//
// A box or hull touches terrain with its corners (collision/terrain_contact.hpp), which misses a
// bump of the terrain that rises into the middle of one of its faces. Where the surface is
// strictly convex at a vertex (every neighbour lies below a plane through it: a peak), the vertex
// is a point of its own against the partner: its depth in the partner is the least distance to
// the partner's face planes, exact for a point inside a convex solid. Its features are the peak
// (a surface vertex) and the face whose plane is nearest; where another face's plane becomes
// nearer (near the partner's edges) its validity turns positive and an event moves it there.
// Vertices where the surface is flat or bends up are not peaks: under a face they lie no higher
// than the corners' own contacts. A ridge under a face (its vertices along a straight crest) is
// still no contact.
#pragma once

#include <span>

#include "collision/contact_manifold.hpp"
#include "collision/triangle_surface.hpp"
#include "core/model.hpp"

namespace hybridsim {

// Whether the partner meets terrain peaks with its faces: a sharp box (a rounded one's faces end
// before its planes do) or a convex hull.
bool touches_peaks(const Shape& partner);

// Whether `feature` names a face of such a partner ({face, f}: a box's face 2 axis + (0 below,
// 1 above), a hull's face f).
bool is_peak_partner_feature(const Shape& partner, const Feature& feature);

// Peak `vertex` of the terrain against face `face` of the partner: the distance from the face's
// plane (< 0 inside the partner), the normal from A to B, and the validity (how much nearer
// another face's plane lies; > 0 asks an event to move the point there).
ManifoldPoint evaluate_peak_point(const Shape& terrain, const Pose& X_WT, const Shape& partner,
                                  const Pose& X_WP, bool partner_is_a, int vertex, int face);

// The peaks (TriangleSurface::peaks) within the partner's bounding sphere whose distance is below
// `reach`, each at its nearest face, the nearest first, at most out.size(). Returns how many were
// found (before the cut). Allocates nothing.
int find_peak_points(const Shape& terrain, const Pose& X_WT, const Shape& partner, const Pose& X_WP,
                     bool partner_is_a, double reach, std::span<ManifoldPoint> out);

}  // namespace hybridsim
