#include "tools/replay/replay_page.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "tools/output_file.hpp"
#include "tools/replay/shape_mesh.hpp"

namespace hybridsim {

extern const char* const kReplayViewerHtml;  // tools/replay/viewer.html, embedded at build time

namespace {

std::string base64(const std::string& bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t chunk = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      chunk = (chunk << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    }
    for (std::size_t k = 0; k < 4; ++k) {
      text += k <= n ? kDigits[(chunk >> (18 - 6 * k)) & 63u] : '=';
    }
  }
  return text;
}

// Little-endian binary arrays (the page reads them as typed arrays).
template <typename T>
void append(std::string& bytes, T value) {
  char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  bytes.append(raw, sizeof(T));
}

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw InputError(fmt::format(
        "{}: cannot read; the replay page inlines three.js from Debian's libjs-three (apt-get "
        "install libjs-three, or set HYBRIDSIM_THREE_DIR)",
        path));
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// Half the side of the square that draws a half-space: twice the farthest any body goes.
double ground_half_size(const ReplayRecording& recording) {
  double farthest = 0.5;
  for (const auto& poses : recording.frame_poses) {
    for (const BodyPose& pose : poses) {
      farthest = std::max(farthest, std::hypot(pose[0], pose[1]));
    }
  }
  return 2.0 * farthest + 1.0;
}

// The meshes (each distinct one once) and the bodies with their shapes' meshes and poses.
nlohmann::json scene_json(const Model& model, const ReplayRecording& recording) {
  nlohmann::json meshes = nlohmann::json::array();
  std::map<std::string, int> mesh_index;  // the mesh's bytes -> its index
  const double ground = ground_half_size(recording);
  // Round shapes get fewer facets in a crowd, so that a software renderer keeps its frame rate
  // (pile_1000: 1000 spheres of 12 x 6 facets, 144k triangles).
  int round_shapes = 0;
  for (const Shape& shape : model.shapes) {
    round_shapes += shape.type != ShapeType::box && shape.type != ShapeType::halfspace &&
                    shape.type != ShapeType::convex && shape.type != ShapeType::mesh &&
                    shape.type != ShapeType::heightmap;
  }
  const int sides = round_shapes <= 50 ? 32 : round_shapes <= 300 ? 16 : 12;
  nlohmann::json bodies = nlohmann::json::array();
  for (const Body& body : model.bodies) {
    nlohmann::json shapes = nlohmann::json::array();
    for (const int s : body.shapes) {
      const Shape& shape = model.shapes[static_cast<std::size_t>(s)];
      const ShapeMesh mesh = make_shape_mesh(shape, ground, sides);
      std::string positions, normals, indices;
      for (std::size_t v = 0; v < mesh.vertices_S.size(); ++v) {
        for (int k = 0; k < 3; ++k) {
          append(positions, static_cast<float>(mesh.vertices_S[v][k]));
          append(normals, static_cast<float>(mesh.normals_S[v][k]));
        }
      }
      for (const auto& triangle : mesh.triangles) {
        for (const int corner : triangle) append(indices, static_cast<std::uint32_t>(corner));
      }
      const std::string key = positions + indices;
      auto [found, inserted] = mesh_index.emplace(key, static_cast<int>(meshes.size()));
      if (inserted) {
        meshes.push_back({{"positions", base64(positions)},
                          {"normals", base64(normals)},
                          {"indices", base64(indices)}});
      }
      const Quat q(shape.X_BS.rotation);
      const Vec3& p = shape.X_BS.translation;
      shapes.push_back({{"name", shape.name},
                        {"type", to_string(shape.type)},
                        {"radius", shape.radius},
                        {"mesh", found->second},
                        {"collision", shape.collision},
                        {"pose", {p.x(), p.y(), p.z(), q.w(), q.x(), q.y(), q.z()}}});
    }
    const auto colour = body_colour(body.name);
    // Where a body is at the start (a fixed body stays there).
    const BodyPose& pose = recording.frame_poses.front()[bodies.size()];  // has a frame: checked
    bodies.push_back({{"name", body.name},
                      {"fixed", body.fixed},
                      {"pose", pose},
                      {"colour", {colour[0], colour[1], colour[2]}},
                      {"shapes", shapes}});
  }
  return {{"meshes", meshes}, {"bodies", bodies}};
}

// `kept` of `count` indices, evenly spaced, the first and the last among them (all when kept
// >= count).
std::vector<std::size_t> evenly_spaced(std::size_t count, std::size_t kept) {
  if (kept >= count) kept = count;
  std::vector<std::size_t> indices;
  if (kept == 1) indices.push_back(0);
  for (std::size_t i = 0; kept > 1 && i < kept; ++i) {
    const double position =
        static_cast<double>(i) * static_cast<double>(count - 1) / static_cast<double>(kept - 1);
    indices.push_back(static_cast<std::size_t>(std::llround(position)));
  }
  return indices;
}

// The marker texts replaced in one pass from left to right, so that nothing inserted is
// searched again (a scene's name may hold anything).
std::string fill_template(const std::string& page,
                          const std::vector<std::pair<std::string, std::string>>& fills) {
  std::string out;
  std::size_t at = 0;
  while (true) {
    std::size_t next = std::string::npos;
    const std::pair<std::string, std::string>* found = nullptr;
    for (const auto& fill : fills) {
      const std::size_t position = page.find(fill.first, at);
      if (position < next) {
        next = position;
        found = &fill;
      }
    }
    if (found == nullptr) return out + page.substr(at);
    out += page.substr(at, next - at);
    out += found->second;
    at = next + found->first.size();
  }
}

}  // namespace

std::string three_js_directory() {
  const char* directory = std::getenv("HYBRIDSIM_THREE_DIR");
  return directory != nullptr && *directory != '\0' ? directory : "/usr/share/javascript/three";
}

ReplayPageReport write_replay_page(const Model& model, const ReplayRecording& recording,
                                   const ReplayPageOptions& options, const std::string& path) {
  if (recording.frame_times.empty()) {
    throw InputError(fmt::format("{}: the run recorded no output to replay", path));
  }
  const std::string three = read_file(three_js_directory() + "/build/three.min.js");
  const std::string orbit =
      read_file(three_js_directory() + "/examples/js/controls/OrbitControls.js");

  // The moving bodies carry frames; fixed ones stay where the scene puts them.
  std::vector<int> moving;
  for (std::size_t b = 0; b < model.bodies.size(); ++b) {
    if (!model.bodies[b].fixed) moving.push_back(static_cast<int>(b));
  }

  nlohmann::json data = scene_json(model, recording);
  data["title"] = options.title;
  data["units"] = {{"length", "m"}, {"time", "s"}, {"force", "N"}, {"mass", "kg"}};
  data["moving"] = moving;
  data["events"] = nlohmann::json::array();
  for (const auto& event : recording.events) {
    data["events"].push_back({{"t", event.t}, {"kind", event.kind}, {"line", event.line}});
  }
  for (const auto& warning : recording.warnings) {
    data["events"].push_back({{"t", warning.t}, {"kind", "warning"}, {"line", warning.line}});
  }

  // The budget: what is fixed (page, three.js, meshes, events), then the event keys, then as
  // many frames as fit, evenly spaced in their order.
  const double base64_growth = 4.0 / 3.0;
  const double fixed_bytes = static_cast<double>(std::strlen(kReplayViewerHtml) + three.size() +
                                                 orbit.size() + data.dump().size());
  const double key_bytes = base64_growth * (8 + 4 + 7 * 4);
  const double frame_bytes = base64_growth * (8 + 4 + 7 * 4 * static_cast<double>(moving.size()));
  const double contact_bytes = base64_growth * 9 * 4;
  std::size_t contacts_total = 0;
  for (const auto& contacts : recording.frame_contacts) contacts_total += contacts.size();
  const std::size_t frame_count = recording.frame_times.size();
  const double all_frames_bytes = frame_bytes * static_cast<double>(frame_count) +
                                  contact_bytes * static_cast<double>(contacts_total);
  double available = options.size_budget_bytes - fixed_bytes;
  // A frame's bytes on average, and the most any one takes (its contacts vary).
  std::size_t most_contacts = 0;
  for (const auto& contacts : recording.frame_contacts) {
    most_contacts = std::max(most_contacts, contacts.size());
  }
  const double mean_frame_bytes =
      all_frames_bytes / static_cast<double>(std::max<std::size_t>(frame_count, 1));
  const double largest_frame_bytes =
      frame_bytes + contact_bytes * static_cast<double>(most_contacts);
  if (available < 2 * largest_frame_bytes) {
    throw InputError(fmt::format(
        "replay budget {:.3g} MB: too small for this run (the page, three.js, the meshes and the "
        "events take {:.3g} MB)",
        options.size_budget_bytes / 1e6, fixed_bytes / 1e6));
  }
  // Event keys take at most half of what is left; frames the rest, the first and last always.
  const std::size_t keys_fit = static_cast<std::size_t>(std::floor(available / 2 / key_bytes));
  const std::vector<std::size_t> keys_kept = evenly_spaced(recording.event_keys.size(), keys_fit);
  available -= key_bytes * static_cast<double>(keys_kept.size());
  const std::size_t frames_fit = std::max<std::size_t>(
      2, 1 + static_cast<std::size_t>(
                 std::floor((available - largest_frame_bytes) / mean_frame_bytes)));
  const std::vector<std::size_t> frames_kept = evenly_spaced(frame_count, frames_fit);

  // The binary arrays.
  std::string frame_times, frame_poses, contact_starts, contact_arrows;
  std::uint32_t contacts_so_far = 0;
  for (const std::size_t f : frames_kept) {
    append(frame_times, recording.frame_times[f]);
    for (const int b : moving) {
      for (const double value : recording.frame_poses[f][static_cast<std::size_t>(b)]) {
        append(frame_poses, static_cast<float>(value));
      }
    }
    append(contact_starts, contacts_so_far);
    for (const auto& arrow : recording.frame_contacts[f]) {
      for (const Vec3* v : {&arrow.point_W, &arrow.normal_force_W, &arrow.friction_force_W}) {
        for (int k = 0; k < 3; ++k) append(contact_arrows, static_cast<float>((*v)[k]));
      }
      ++contacts_so_far;
    }
  }
  append(contact_starts, contacts_so_far);
  std::string key_times, key_bodies, key_poses;
  for (const std::size_t k : keys_kept) {
    const auto& key = recording.event_keys[k];
    append(key_times, key.t);
    append(key_bodies, static_cast<std::uint32_t>(key.body));
    for (const double value : key.pose) append(key_poses, static_cast<float>(value));
  }
  data["frames"] = {{"times", base64(frame_times)},
                    {"poses", base64(frame_poses)},
                    {"contact_starts", base64(contact_starts)},
                    {"contacts", base64(contact_arrows)},
                    {"has_contacts", recording.has_contacts},
                    {"recorded", frame_count},
                    {"kept", frames_kept.size()}};
  data["keys"] = {{"times", base64(key_times)},
                  {"bodies", base64(key_bodies)},
                  {"poses", base64(key_poses)},
                  {"recorded", recording.event_keys.size()},
                  {"kept", keys_kept.size()}};

  // The page: the viewer with three.js, OrbitControls and the data in place of its markers. The
  // data is JSON inside a script element: "</" is escaped so that no text ends the element.
  std::string json = data.dump();
  for (std::size_t at = 0; (at = json.find("</", at)) != std::string::npos; at += 3) {
    json.replace(at, 2, "<\\/");
  }
  std::string title;
  for (const char c : options.title) {
    title += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  }
  const std::string page = fill_template(kReplayViewerHtml, {{"%%TITLE%%", title},
                                                             {"%%DATA%%", json},
                                                             {"/*%%ORBIT_CONTROLS%%*/", orbit},
                                                             {"/*%%THREE%%*/", three}});

  OutputFile file(path, std::ios::binary);
  file << page;
  if (!file.commit()) throw InputError(fmt::format("{}: could not write (disk full?)", path));
  return {frame_count, frames_kept.size(), recording.event_keys.size(), keys_kept.size(),
          page.size()};
}

}  // namespace hybridsim
