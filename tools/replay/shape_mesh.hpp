// Triangle meshes of collision shapes, for pictures: the replay page and the glTF export draw
// every shape from these (the simulation never uses them).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/model.hpp"

namespace hybridsim {

// A triangle mesh in the shape frame S: vertices in m, triangles counter-clockwise seen from
// outside, and per vertex a unit normal for shading (flat faces repeat their corners).
struct ShapeMesh {
  std::vector<Vec3> vertices_S;
  std::vector<Vec3> normals_S;
  std::vector<std::array<int, 3>> triangles;
};

// The mesh of `shape`: spheres, ellipsoids and capsules as latitude-longitude grids of `sides`
// meridians and sides / 2 rings, cylinders and cones with `sides` sides; boxes, convex hulls,
// meshes and heightmaps as they are. A half-space is
// the square of half side `ground_half_size` (m) on its boundary plane, centred on the point of
// the plane closest to S's origin. The smoothing radius of a box or cylinder is not drawn.
ShapeMesh make_shape_mesh(const Shape& shape, double ground_half_size, int sides = 32);

// The colour of a body, fixed by its name: hue from the 32-bit FNV-1a hash of the name's bytes
// (hue = hash mod 360 degrees), saturation 0.55, lightness 0.55; red, green, blue in [0, 1].
// The replay page draws fixed bodies in a pale, see-through version of it. Tests recompute it
// independently.
std::array<double, 3> body_colour(const std::string& body_name);

}  // namespace hybridsim
