#include "tools/checkpoint_file.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "integrators/run_counters.hpp"
#include "tools/output_writers.hpp"

namespace hybridsim {
namespace {

constexpr const char* kFormat = "hybridsim-checkpoint";
// Version 2: contactDict by contact point ("contact_points", 14 numbers each, followed by 22 per
// bilateral contact of the scene: whether it is on, its anchors and frame); version 1 stored
// one point per pair ("contact_pairs": shapes, v_pre, d_res) and is read as such.
constexpr int kVersion = 2;

// Reads key of the checkpoint's object, naming file, key and value when it is missing or of
// another type.
class Reader {
 public:
  Reader(const std::string& path, const nlohmann::json& root) : path_(path), root_(root) {}

  const nlohmann::json& at(const nlohmann::json& object, const std::string& key) const {
    if (!object.is_object() || !object.contains(key)) {
      throw InputError(fmt::format("{}: checkpoint key '{}' is missing", path_, key));
    }
    return object.at(key);
  }
  double number(const nlohmann::json& object, const std::string& key) const {
    const nlohmann::json& value = at(object, key);
    if (value.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!value.is_number()) throw wrong(key, value, "a number");
    return value.get<double>();
  }
  long integer(const nlohmann::json& object, const std::string& key) const {
    const nlohmann::json& value = at(object, key);
    if (!value.is_number_integer()) throw wrong(key, value, "an integer");
    return value.get<long>();
  }
  std::vector<double> numbers(const nlohmann::json& object, const std::string& key) const {
    const nlohmann::json& value = at(object, key);
    if (!value.is_array()) throw wrong(key, value, "a list of numbers");
    std::vector<double> list;
    list.reserve(value.size());
    for (const nlohmann::json& item : value) {
      if (!item.is_number()) throw wrong(key, item, "a list of numbers");
      list.push_back(item.get<double>());
    }
    return list;
  }
  InputError wrong(const std::string& key, const nlohmann::json& value, const char* wanted) const {
    std::string shown = value.dump();
    if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
    return InputError(
        fmt::format("{}: checkpoint key '{}' is {}, expected {}", path_, key, shown, wanted));
  }
  const nlohmann::json& root() const { return root_; }

 private:
  const std::string& path_;
  const nlohmann::json& root_;
};

}  // namespace

void write_checkpoint_file(const std::string& path, const Model& model,
                           const CheckpointFile& file) {
  const Checkpoint& c = file.checkpoint;
  nlohmann::json json;
  json["format"] = kFormat;
  json["version"] = kVersion;
  json["scene"] = model.name;
  json["state_size"] = model.state_size;
  json["t"] = c.t;
  json["wall_time_s"] = file.wall_time_s;
  json["initial_energy"] = file.initial_energy;  // null if not known (NaN)
  json["next_output_index"] = c.next_output_index;
  json["last_output_time"] = c.last_output_time;
  // The summary's counters by their names (integrators/run_counters.hpp), and the system's count.
  json["counters"] = nlohmann::json::object();
  for (const RunCounter& counter : kRunCounters)
    json["counters"][counter.name] = counter.get(c.counters);
  json["counters"]["rhs_calls"] = c.counters.rhs_calls;
  json["recent_event_times"] = c.recent_event_times;
  json["contact_points"] = c.discrete;
  json["x"] = std::vector<double>(c.x.data(), c.x.data() + c.x.size());

  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) throw InputError(fmt::format("{}: cannot open for writing", temporary));
    out << json.dump() << '\n';
    if (!out.flush()) throw InputError(fmt::format("{}: write failed", temporary));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    throw InputError(fmt::format("{}: cannot replace it with {}", path, temporary));
  }
}

CheckpointFile read_checkpoint_file(const std::string& path, const Model& model) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open the checkpoint", path));
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& error) {
    // Syntax errors, and numbers beyond a double (out_of_range 406), found by fuzzing.
    throw InputError(fmt::format("{}: not a checkpoint (malformed JSON: {})", path, error.what()));
  }
  const Reader read(path, json);
  if (!json.is_object() || !json.contains("format") || json["format"] != kFormat) {
    throw InputError(
        fmt::format("{}: not a checkpoint (key 'format' is not \"{}\")", path, kFormat));
  }
  const long version = read.integer(json, "version");
  if (version != kVersion && version != 1) {
    throw read.wrong("version", json["version"], fmt::format("1 or {}", kVersion).c_str());
  }
  if (!json.contains("scene") || json["scene"] != model.name) {
    throw InputError(
        fmt::format("{}: checkpoint key 'scene' is {}, expected \"{}\" (the scene run)", path,
                    json.value("scene", nlohmann::json()).dump(), model.name));
  }
  if (read.integer(json, "state_size") != model.state_size) {
    throw read.wrong("state_size", json["state_size"],
                     fmt::format("{} (the scene's states)", model.state_size).c_str());
  }

  CheckpointFile file;
  Checkpoint& c = file.checkpoint;
  c.t = read.number(json, "t");
  if (!std::isfinite(c.t)) throw read.wrong("t", json["t"], "a finite time");
  file.wall_time_s = read.number(json, "wall_time_s");
  file.initial_energy = read.number(json, "initial_energy");
  c.next_output_index = read.integer(json, "next_output_index");
  c.last_output_time = read.number(json, "last_output_time");
  c.recent_event_times = read.numbers(json, "recent_event_times");
  if (version == 1) {
    // One point per pair, slot 0, made by the whole shapes: the layout of version 2.
    const std::vector<double> pairs = read.numbers(json, "contact_pairs");
    if (pairs.size() % 4 != 0)
      throw read.wrong("contact_pairs", json["contact_pairs"], "4 numbers per pair");
    for (std::size_t i = 0; i < pairs.size(); i += 4) {
      c.discrete.insert(c.discrete.end(), {pairs[i], pairs[i + 1], 0, 0, -1, 0, 0, 0, 0, 0, 0,
                                           pairs[i + 2], pairs[i + 3], 0});
    }
  } else {
    c.discrete = read.numbers(json, "contact_points");
  }
  const std::vector<double> x = read.numbers(json, "x");
  if (static_cast<long>(x.size()) != model.state_size) {
    throw read.wrong("x", json["x"],
                     fmt::format("{} numbers (the scene's states)", model.state_size).c_str());
  }
  for (double value : x) {
    if (!std::isfinite(value)) throw read.wrong("x", json["x"], "finite numbers");
  }
  c.x = Eigen::Map<const VectorX>(x.data(), static_cast<Eigen::Index>(x.size()));

  const nlohmann::json& counters = read.at(json, "counters");
  SimulationResult& r = c.counters;
  for (const RunCounter& counter : kRunCounters) {
    // Checkpoints written before bilateral contacts (stick-slip friction) existed have no
    // bilateral_switches (stick_slip_switches).
    const std::string_view name = counter.name;
    if ((name == "bilateral_switches" || name == "stick_slip_switches") &&
        !counters.contains(counter.name)) {
      continue;
    }
    counter.ref(r) = read.integer(counters, counter.name);
  }
  r.rhs_calls = read.integer(counters, "rhs_calls");
  return file;
}

CheckpointFileWriter::CheckpointFileWriter(std::string path, const Model& model, double interval_s,
                                           double wall_time_before_s, double initial_energy)
    : path_(std::move(path)),
      model_(model),
      interval_s_(interval_s),
      wall_time_before_s_(wall_time_before_s),
      initial_energy_(initial_energy),
      started_(std::chrono::steady_clock::now()),
      last_written_(started_) {}

bool CheckpointFileWriter::checkpoint_due(double /*t*/) {
  const double since =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - last_written_).count();
  return since >= interval_s_;
}

void CheckpointFileWriter::write_checkpoint(const Checkpoint& checkpoint) {
  const auto now = std::chrono::steady_clock::now();
  CheckpointFile file;
  file.checkpoint = checkpoint;
  file.wall_time_s = wall_time_before_s_ + std::chrono::duration<double>(now - started_).count();
  file.initial_energy = initial_energy_;
  write_checkpoint_file(path_, model_, file);
  last_written_ = now;
  ++written_;
}

}  // namespace hybridsim
