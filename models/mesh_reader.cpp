#include "models/mesh_reader.hpp"

#include <fmt/format.h>
#include <tiny_obj_loader.h>

#include "core/errors.hpp"
#include "models/input_file.hpp"

namespace hybridsim {

std::vector<Vec3> read_mesh_vertices(const std::string& path) {
  check_input_file(path, "mesh", kMaxDataFileBytes);
  tinyobj::ObjReader reader;
  tinyobj::ObjReaderConfig config;
  config.triangulate = false;  // only the points are used
  if (!reader.ParseFromFile(path, config)) {
    throw InputError(fmt::format("mesh file '{}': {}", path,
                                 reader.Error().empty() ? "cannot be read" : reader.Error()));
  }
  const auto& coordinates = reader.GetAttrib().vertices;
  if (coordinates.empty()) throw InputError(fmt::format("mesh file '{}': no vertex", path));
  std::vector<Vec3> vertices;
  vertices.reserve(coordinates.size() / 3);
  for (std::size_t i = 0; i + 2 < coordinates.size(); i += 3) {
    vertices.emplace_back(coordinates[i], coordinates[i + 1], coordinates[i + 2]);
  }
  return vertices;
}

MeshTriangles read_mesh_triangles(const std::string& path) {
  check_input_file(path, "mesh", kMaxDataFileBytes);
  tinyobj::ObjReader reader;
  tinyobj::ObjReaderConfig config;
  config.triangulate = true;  // polygons as fans, in their own order (their normal kept)
  if (!reader.ParseFromFile(path, config)) {
    throw InputError(fmt::format("mesh file '{}': {}", path,
                                 reader.Error().empty() ? "cannot be read" : reader.Error()));
  }
  MeshTriangles mesh;
  const auto& coordinates = reader.GetAttrib().vertices;
  for (std::size_t i = 0; i + 2 < coordinates.size(); i += 3) {
    mesh.vertices.emplace_back(coordinates[i], coordinates[i + 1], coordinates[i + 2]);
  }
  for (const auto& shape : reader.GetShapes()) {
    const auto& indices = shape.mesh.indices;
    for (std::size_t i = 0; i + 2 < indices.size(); i += 3) {
      mesh.triangles.push_back(
          {indices[i].vertex_index, indices[i + 1].vertex_index, indices[i + 2].vertex_index});
    }
  }
  if (mesh.triangles.empty()) throw InputError(fmt::format("mesh file '{}': no face", path));
  return mesh;
}

}  // namespace hybridsim
