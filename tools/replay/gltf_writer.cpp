#include "tools/replay/gltf_writer.hpp"

#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "hybridsim/version.h"
#include "tools/output_file.hpp"
#include "tools/replay/shape_mesh.hpp"

namespace hybridsim {
namespace {

// glTF's constants (the specification's accessor and buffer-view enums).
constexpr int kFloat = 5126;
constexpr int kUnsignedInt = 5125;
constexpr int kArrayBuffer = 34962;
constexpr int kElementArrayBuffer = 34963;

// The binary chunk and the JSON that describes it, built together.
class GltfBuilder {
 public:
  // Appends 32-bit values as one buffer view and accessor; returns the accessor's index.
  template <typename T>
  int add_accessor(const std::vector<T>& values, int components, const char* type, int target,
                   bool with_bounds) {
    const std::size_t offset = binary_.size();
    binary_.resize(offset + values.size() * sizeof(T));
    std::memcpy(binary_.data() + offset, values.data(), values.size() * sizeof(T));
    nlohmann::json view = {
        {"buffer", 0}, {"byteOffset", offset}, {"byteLength", values.size() * sizeof(T)}};
    if (target != 0) view["target"] = target;
    json_["bufferViews"].push_back(view);
    nlohmann::json accessor = {{"bufferView", json_["bufferViews"].size() - 1},
                               {"componentType", std::is_same_v<T, float> ? kFloat : kUnsignedInt},
                               {"count", values.size() / static_cast<std::size_t>(components)},
                               {"type", type}};
    // Positions and animation inputs must carry their bounds.
    if (with_bounds && !values.empty()) {
      std::vector<T> low(values.begin(), values.begin() + components);
      std::vector<T> high = low;
      for (std::size_t i = 0; i < values.size(); ++i) {
        const std::size_t k = i % static_cast<std::size_t>(components);
        low[k] = std::min(low[k], values[i]);
        high[k] = std::max(high[k], values[i]);
      }
      accessor["min"] = low;
      accessor["max"] = high;
    }
    json_["accessors"].push_back(accessor);
    return static_cast<int>(json_["accessors"].size()) - 1;
  }

  nlohmann::json& json() { return json_; }

  // The GLB container: header, JSON chunk (padded with spaces), binary chunk (padded with 0).
  void write(const std::string& path) {
    while (binary_.size() < 4) binary_.push_back(0);  // a buffer holds one byte at least
    json_["buffers"] = {{{"byteLength", binary_.size()}}};
    std::string text = json_.dump();
    while (text.size() % 4 != 0) text += ' ';
    while (binary_.size() % 4 != 0) binary_.push_back(0);
    const auto u32 = [](std::ofstream& out, std::uint32_t value) {
      out.write(reinterpret_cast<const char*>(&value), 4);
    };
    OutputFile out(path, std::ios::binary);
    u32(out, 0x46546C67u);  // "glTF"
    u32(out, 2);
    u32(out, static_cast<std::uint32_t>(12 + 8 + text.size() + 8 + binary_.size()));
    u32(out, static_cast<std::uint32_t>(text.size()));
    u32(out, 0x4E4F534Au);  // "JSON"
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    u32(out, static_cast<std::uint32_t>(binary_.size()));
    u32(out, 0x004E4942u);  // "BIN\0"
    out.write(binary_.data(), static_cast<std::streamsize>(binary_.size()));
    if (!out.commit()) throw InputError(fmt::format("{}: could not write (disk full?)", path));
  }

 private:
  nlohmann::json json_ = {
      {"asset", {{"version", "2.0"}, {"generator", "hybridsim " HYBRIDSIM_VERSION_STRING}}},
      {"scene", 0},
      {"scenes", {{{"nodes", nlohmann::json::array()}}}},
      {"nodes", nlohmann::json::array()},
      {"meshes", nlohmann::json::array()},
      {"materials", nlohmann::json::array()},
      {"accessors", nlohmann::json::array()},
      {"bufferViews", nlohmann::json::array()}};
  std::vector<char> binary_;
};

// A body's shapes as one mesh, one primitive per shape, in the body frame; -1 if it has none.
int add_body_mesh(GltfBuilder& builder, const Model& model, const Body& body, int material,
                  double ground_half_size) {
  nlohmann::json primitives = nlohmann::json::array();
  for (const int s : body.shapes) {
    const Shape& shape = model.shapes[static_cast<std::size_t>(s)];
    const ShapeMesh mesh = make_shape_mesh(shape, ground_half_size);
    if (mesh.triangles.empty()) continue;
    std::vector<float> positions, normals;
    for (std::size_t v = 0; v < mesh.vertices_S.size(); ++v) {
      const Vec3 p_B = shape.X_BS.transform_point(mesh.vertices_S[v]);
      const Vec3 n_B = shape.X_BS.rotation * mesh.normals_S[v];
      for (int k = 0; k < 3; ++k) {
        positions.push_back(static_cast<float>(p_B[k]));
        normals.push_back(static_cast<float>(n_B[k]));
      }
    }
    std::vector<std::uint32_t> indices;
    for (const auto& triangle : mesh.triangles) {
      for (const int corner : triangle) indices.push_back(static_cast<std::uint32_t>(corner));
    }
    const int position = builder.add_accessor(positions, 3, "VEC3", kArrayBuffer, true);
    const int normal = builder.add_accessor(normals, 3, "VEC3", kArrayBuffer, false);
    const int index = builder.add_accessor(indices, 1, "SCALAR", kElementArrayBuffer, false);
    primitives.push_back({{"attributes", {{"POSITION", position}, {"NORMAL", normal}}},
                          {"indices", index},
                          {"material", material}});
  }
  if (primitives.empty()) return -1;
  builder.json()["meshes"].push_back({{"name", body.name}, {"primitives", primitives}});
  return static_cast<int>(builder.json()["meshes"].size()) - 1;
}

}  // namespace

void write_gltf(const Model& model, const ReplayRecording& recording, const std::string& path) {
  GltfBuilder builder;
  double farthest = 0.5;
  for (const auto& poses : recording.frame_poses) {
    for (const BodyPose& pose : poses) farthest = std::max(farthest, std::hypot(pose[0], pose[1]));
  }
  nlohmann::json channels = nlohmann::json::array();
  nlohmann::json samplers = nlohmann::json::array();
  for (std::size_t b = 0; b < model.bodies.size(); ++b) {
    const Body& body = model.bodies[b];
    const auto colour = body_colour(body.name);
    builder.json()["materials"].push_back(
        {{"name", body.name},
         {"doubleSided", true},
         {"pbrMetallicRoughness",
          {{"baseColorFactor", {colour[0], colour[1], colour[2], 1.0}},
           {"metallicFactor", 0.0},
           {"roughnessFactor", 0.8}}}});
    const int material = static_cast<int>(builder.json()["materials"].size()) - 1;
    const int mesh = add_body_mesh(builder, model, body, material, 2.0 * farthest + 1.0);

    // The node at the first pose; its track as the animation's channels.
    const std::vector<ReplayRecording::BodyKey> track = body_track(recording, static_cast<int>(b));
    nlohmann::json node = {{"name", body.name}};
    if (mesh >= 0) node["mesh"] = mesh;
    // A recording without frames leaves the body at its scene pose, unanimated.
    const BodyPose first =
        track.empty() ? BodyPose{body.p_WB.x(), body.p_WB.y(), body.p_WB.z(), body.q_WB.w(),
                                 body.q_WB.x(), body.q_WB.y(), body.q_WB.z()}
                      : track.front().pose;
    node["translation"] = {first[0], first[1], first[2]};
    node["rotation"] = {first[4], first[5], first[6], first[3]};  // glTF: x, y, z, w
    builder.json()["nodes"].push_back(node);
    const int node_index = static_cast<int>(builder.json()["nodes"].size()) - 1;
    builder.json()["scenes"][0]["nodes"].push_back(node_index);
    if (body.fixed || track.empty()) continue;

    std::vector<float> times, translations, rotations;
    for (const auto& key : track) {
      const auto t = static_cast<float>(key.t);
      // Keyframe times must increase strictly: a key within a float's resolution of the one
      // before replaces it.
      if (!times.empty() && t <= times.back()) {
        times.pop_back();
        translations.resize(translations.size() - 3);
        rotations.resize(rotations.size() - 4);
      }
      times.push_back(t);
      for (const int k : {0, 1, 2}) translations.push_back(static_cast<float>(key.pose[k]));
      for (const int k : {4, 5, 6, 3}) rotations.push_back(static_cast<float>(key.pose[k]));
    }
    const int input = builder.add_accessor(times, 1, "SCALAR", 0, true);
    const int translation = builder.add_accessor(translations, 3, "VEC3", 0, false);
    const int rotation = builder.add_accessor(rotations, 4, "VEC4", 0, false);
    for (const auto& [output, property] :
         {std::pair{translation, "translation"}, std::pair{rotation, "rotation"}}) {
      samplers.push_back({{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
      channels.push_back({{"sampler", samplers.size() - 1},
                          {"target", {{"node", node_index}, {"path", property}}}});
    }
  }
  if (!channels.empty()) {
    builder.json()["animations"] = {
        {{"name", "run"}, {"channels", channels}, {"samplers", samplers}}};
  }
  builder.write(path);
}

}  // namespace hybridsim
