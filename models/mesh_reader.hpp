// Mesh files for convex shapes and triangle meshes: the tinyobjloader adapter, the only file that
// includes its header.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/math.hpp"

namespace hybridsim {

// The vertex positions of a Wavefront OBJ file (its `v` lines, m, faces ignored: a convex shape
// is the hull of the points). Throws InputError naming the file when it cannot be read or parsed,
// or holds no vertex.
std::vector<Vec3> read_mesh_vertices(const std::string& path);

// The vertices and the triangles (polygons split into fans) of an OBJ file, for a triangle mesh.
struct MeshTriangles {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> triangles;
};
MeshTriangles read_mesh_triangles(const std::string& path);

}  // namespace hybridsim
