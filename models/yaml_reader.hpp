// Checked reading of YAML maps for the scene loader: every value is validated, every error names
// the file, the line, the key path and the value, and unknown keys are rejected.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/math.hpp"

namespace hybridsim {

// Where nodes come from: the scene file, or a --set override on the command line.
struct YamlSource {
  std::string file;
  std::vector<YAML::Node> override_nodes;  // every node created by a --set value
};

// "file:line", or "file (--set)" for a node created by a command-line override.
std::string describe_location(const YamlSource& source, const YAML::Node& node);

// "file:line: key 'path' = value: message" (the value and line only when known).
[[noreturn]] void throw_yaml_error(const YamlSource& source, const YAML::Node& node,
                                   const std::string& path, const std::string& message);

// Flow-style text of a node, for messages.
std::string describe_yaml_value(const YAML::Node& node);

// The key path of a list's element for messages: "path[index]".
std::string indexed(const std::string& path, std::size_t index);

// The keys the loader asks for, by section: the path of their map with list indices as "[]" and
// the names of `materials` entries as "<name>" ("bodies[].shapes[]", "materials.<name>"). When a
// log is set (the scene-format reference's test), every MapReader records each key it is asked
// for, given or not. Not thread-safe: for tests.
using SceneKeyLog = std::set<std::pair<std::string, std::string>>;
void set_scene_key_log(SceneKeyLog* log);
std::string scene_key_section(const std::string& path);

class MapReader {
 public:
  // Fails unless node is a map.
  MapReader(const YAML::Node& node, std::string path, const YamlSource& source);

  bool has(const std::string& key) const;
  // The value of a key (marked as used); an undefined node when absent.
  YAML::Node get(const std::string& key);
  std::string path_of(const std::string& key) const;
  const std::string& path() const { return path_; }
  const YamlSource& source() const { return source_; }

  // Fails unless the key is present (pointing at a likely misspelling of it).
  void require(const std::string& key);
  double number(const std::string& key, double fallback);
  double required_number(const std::string& key);
  double positive(const std::string& key, double fallback);  // > 0
  double required_positive(const std::string& key);
  double non_negative(const std::string& key, double fallback);  // >= 0
  Vec3 vec3(const std::string& key, const Vec3& fallback);
  Vec3 required_vec3(const std::string& key);
  std::string string(const std::string& key, const std::string& fallback);
  std::string required_string(const std::string& key);
  bool boolean(const std::string& key, bool fallback);
  // One of `choices`; the error lists them.
  std::string choice(const std::string& key, const std::string& fallback,
                     const std::vector<std::string>& choices);
  // A sequence (possibly absent: an empty one).
  YAML::Node sequence(const std::string& key);

  [[noreturn]] void fail(const std::string& key, const std::string& message);
  // Rejects every key not read through this reader.
  void reject_unknown_keys() const;

 private:
  double to_number(const YAML::Node& value, const std::string& key_path) const;

  YAML::Node node_;
  std::string path_;
  const YamlSource& source_;
  std::set<std::string> used_;
};

// A finite number, or an error naming the path.
double read_yaml_number(const YamlSource& source, const YAML::Node& value, const std::string& path);
// A 3-vector of finite numbers.
Vec3 read_yaml_vec3(const YamlSource& source, const YAML::Node& value, const std::string& path);

// Applies "KEY=VALUE" to the scene tree: KEY is a dot path through maps (by key) and sequences (by
// index or by an element's `name`); VALUE is YAML. A missing last map key is created.
void apply_yaml_override(YAML::Node root, const std::string& assignment, YamlSource& source);

}  // namespace hybridsim
