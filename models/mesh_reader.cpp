#include "models/mesh_reader.hpp"

#include <fmt/format.h>
#include <tiny_obj_loader.h>

#include "core/errors.hpp"

namespace hybridsim {

std::vector<Vec3> read_mesh_vertices(const std::string& path) {
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

}  // namespace hybridsim
