#include "models/mesh_reader.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <tiny_obj_loader.h>

#include "core/errors.hpp"
#include "models/input_file.hpp"

namespace hybridsim {
namespace {

// Coordinates beyond 1e6 m (a thousand kilometres) are a unit mistake or garbage, and their
// squares overflow the hull's and the BVH's arithmetic long before 1e308.
constexpr double kMaxCoordinate = 1e6;  // m

// The `v` lines as points, each finite and within kMaxCoordinate, else InputError naming the file
// and the vertex (1-based, as OBJ counts them).
std::vector<Vec3> checked_vertices(const std::vector<tinyobj::real_t>& coordinates,
                                   const std::string& path) {
  std::vector<Vec3> vertices;
  vertices.reserve(coordinates.size() / 3);
  for (std::size_t i = 0; i + 2 < coordinates.size(); i += 3) {
    const Vec3 v(coordinates[i], coordinates[i + 1], coordinates[i + 2]);
    if (!v.allFinite() || v.cwiseAbs().maxCoeff() > kMaxCoordinate) {
      throw InputError(
          fmt::format("mesh file '{}': vertex {} = [{}, {}, {}]: must be finite and "
                      "within {:g} m of the origin",
                      path, i / 3 + 1, v.x(), v.y(), v.z(), kMaxCoordinate));
    }
    vertices.push_back(v);
  }
  return vertices;
}

// tinyobjloader reads a coordinate it cannot parse ("nan", "inf", "1,5") as a number of its own
// choosing; every `v` line's first three coordinates must therefore be finite numbers as written,
// else InputError naming the file and the line.
void check_vertex_lines(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  for (long number = 1; std::getline(file, line); ++number) {
    if (line.size() < 2 || line[0] != 'v' || (line[1] != ' ' && line[1] != '\t')) continue;
    std::istringstream tokens(line.substr(1));
    std::string token;
    for (int k = 0; k < 3; ++k) {
      double value = 0.0;
      const bool read = static_cast<bool>(tokens >> token);
      const auto [end, error] =
          read ? std::from_chars(token.data(), token.data() + token.size(), value)
               : std::from_chars_result{token.data(), std::errc::invalid_argument};
      if (!read || error != std::errc() || end != token.data() + token.size() ||
          !std::isfinite(value)) {
        throw InputError(
            fmt::format("mesh file '{}': line {}: '{}': a vertex needs three finite "
                        "coordinates",
                        path, number, line.substr(0, 80)));
      }
    }
  }
}

}  // namespace

std::vector<Vec3> read_mesh_vertices(const std::string& path) {
  check_input_file(path, "mesh", kMaxDataFileBytes);
  check_vertex_lines(path);
  tinyobj::ObjReader reader;
  tinyobj::ObjReaderConfig config;
  config.triangulate = false;  // only the points are used
  if (!reader.ParseFromFile(path, config)) {
    throw InputError(fmt::format("mesh file '{}': {}", path,
                                 reader.Error().empty() ? "cannot be read" : reader.Error()));
  }
  const auto& coordinates = reader.GetAttrib().vertices;
  if (coordinates.empty()) throw InputError(fmt::format("mesh file '{}': no vertex", path));
  return checked_vertices(coordinates, path);
}

MeshTriangles read_mesh_triangles(const std::string& path) {
  check_input_file(path, "mesh", kMaxDataFileBytes);
  check_vertex_lines(path);
  tinyobj::ObjReader reader;
  tinyobj::ObjReaderConfig config;
  config.triangulate = true;  // polygons as fans, in their own order (their normal kept)
  if (!reader.ParseFromFile(path, config)) {
    throw InputError(fmt::format("mesh file '{}': {}", path,
                                 reader.Error().empty() ? "cannot be read" : reader.Error()));
  }
  MeshTriangles mesh;
  mesh.vertices = checked_vertices(reader.GetAttrib().vertices, path);
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
