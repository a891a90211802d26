#include "models/yaml_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace hybridsim {
namespace {

bool is_override_node(const YamlSource& source, const YAML::Node& node) {
  for (const YAML::Node& created : source.override_nodes) {
    if (created.is(node)) return true;
  }
  return false;
}

void collect_nodes(const YAML::Node& node, std::vector<YAML::Node>& out) {
  out.push_back(node);
  if (node.IsSequence()) {
    for (const YAML::Node& child : node) collect_nodes(child, out);
  } else if (node.IsMap()) {
    for (const auto& entry : node) collect_nodes(entry.second, out);
  }
}

// Levenshtein distance, for "did you mean" hints on misspelt keys.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

}  // namespace

std::string indexed(const std::string& path, std::size_t index) {
  return fmt::format("{}[{}]", path, index);
}

std::string describe_yaml_value(const YAML::Node& node) {
  // Messages name a value, they do not repeat a huge one: at most 8 elements of a list, 200
  // characters.
  constexpr std::size_t kShownElements = 8, kShownCharacters = 200;
  if (!node.IsDefined() || node.IsNull()) return "null";
  std::string text;
  if (node.IsScalar()) {
    text = node.Scalar();
  } else if (node.IsSequence() && node.size() > kShownElements) {
    text = "[";
    for (std::size_t i = 0; i < kShownElements; ++i) text += describe_yaml_value(node[i]) + ", ";
    text += fmt::format("... ({} elements)]", node.size());
  } else {
    YAML::Emitter emitter;
    emitter << YAML::Flow << node;
    text = emitter.c_str();
  }
  if (text.size() > kShownCharacters) {
    text = text.substr(0, kShownCharacters) + fmt::format("... ({} characters)", text.size());
  }
  return text;
}

// "file:line", or "file (--set)" for a node that a command-line override created.
std::string describe_location(const YamlSource& source, const YAML::Node& node) {
  std::string where = source.file;
  if (node.IsDefined() && is_override_node(source, node)) {
    where += " (--set)";
  } else if (node.IsDefined() && node.Mark().line >= 0) {
    where += fmt::format(":{}", node.Mark().line + 1);
  }
  return where;
}

void throw_yaml_error(const YamlSource& source, const YAML::Node& node, const std::string& path,
                      const std::string& message) {
  const std::string where = describe_location(source, node);
  if (node.IsDefined() && !node.IsNull()) {
    throw InputError(
        fmt::format("{}: key '{}' = {}: {}", where, path, describe_yaml_value(node), message));
  }
  throw InputError(fmt::format("{}: key '{}': {}", where, path, message));
}

double read_yaml_number(const YamlSource& source, const YAML::Node& value,
                        const std::string& path) {
  double number = 0.0;
  if (!value.IsScalar()) throw_yaml_error(source, value, path, "must be a number");
  try {
    number = value.as<double>();
  } catch (const YAML::Exception&) {
    throw_yaml_error(source, value, path, "must be a number");
  }
  if (!std::isfinite(number)) throw_yaml_error(source, value, path, "must be a finite number");
  return number;
}

Vec3 read_yaml_vec3(const YamlSource& source, const YAML::Node& value, const std::string& path) {
  if (!value.IsSequence() || value.size() != 3) {
    throw_yaml_error(source, value, path, "must be a list of 3 numbers");
  }
  Vec3 v;
  for (int i = 0; i < 3; ++i) v[i] = read_yaml_number(source, value[i], path);
  return v;
}

MapReader::MapReader(const YAML::Node& node, std::string path, const YamlSource& source)
    : node_(node), path_(std::move(path)), source_(source) {
  if (!node.IsMap())
    throw_yaml_error(source, node, path_.empty() ? "(top level)" : path_, "must be a map of keys");
  // A key given twice: YAML leaves it open which wins (yaml-cpp takes the first), so it is an
  // error, naming both lines.
  std::set<std::string> keys;
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) continue;
    if (!keys.insert(entry.first.Scalar()).second) {
      const YAML::Node first = node[entry.first.Scalar()];
      throw InputError(fmt::format("{}: key '{}' is given twice (first{}); give it once",
                                   describe_location(source, entry.first),
                                   path_of(entry.first.Scalar()),
                                   first.IsDefined() && first.Mark().line >= 0
                                       ? fmt::format(" at line {}", first.Mark().line + 1)
                                       : ""));
    }
  }
}

namespace {

SceneKeyLog* g_scene_key_log = nullptr;

void log_scene_key(const std::string& path, const std::string& key) {
  if (g_scene_key_log == nullptr) return;
  const std::string section = scene_key_section(path);
  // The keys of `materials` are the materials' names.
  g_scene_key_log->emplace(section, section == "materials" ? "<name>" : key);
}

}  // namespace

void set_scene_key_log(SceneKeyLog* log) {
  g_scene_key_log = log;
}

std::string scene_key_section(const std::string& path) {
  std::string section;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '[') {
      section += "[]";
      i = path.find(']', i);
      if (i == std::string::npos) break;
    } else {
      section += path[i];
    }
  }
  if (section.starts_with("materials.")) section = "materials.<name>";
  // Signal maps, wherever they are: inputs[].signal, bodies[].prescribed.*.signal,
  // joints[].servo.velocity and .position.
  for (const std::string_view marker : {".signal", ".servo.velocity", ".servo.position"}) {
    const auto at = section.find(marker);
    if (at != std::string::npos) {
      return "<signal>" + section.substr(at + marker.size());
    }
  }
  return section;
}

bool MapReader::has(const std::string& key) const {
  log_scene_key(path_, key);
  const YAML::Node value = node_[key];
  return value.IsDefined() && !value.IsNull();
}

YAML::Node MapReader::get(const std::string& key) {
  log_scene_key(path_, key);
  used_.insert(key);
  return node_[key];
}

std::string MapReader::path_of(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

double MapReader::number(const std::string& key, double fallback) {
  if (!has(key)) {
    used_.insert(key);
    return fallback;
  }
  return read_yaml_number(source_, get(key), path_of(key));
}

void MapReader::require(const std::string& key) {
  if (has(key)) return;
  // A present key spelt within two edits of the required one is most likely a typo of it.
  for (const auto& entry : node_) {
    if (!entry.first.IsScalar()) continue;
    const std::string present = entry.first.Scalar();
    if (present != key && edit_distance(present, key) <= 2) {
      throw InputError(fmt::format("{}: key '{}' is required; unknown key '{}' here: a typo?",
                                   describe_location(source_, entry.first), path_of(key),
                                   path_of(present)));
    }
  }
  fail(key, "is required");
}

double MapReader::required_number(const std::string& key) {
  require(key);
  return number(key, 0.0);
}

double MapReader::positive(const std::string& key, double fallback) {
  const double value = number(key, fallback);
  if (!(value > 0.0)) throw_yaml_error(source_, node_[key], path_of(key), "must be positive");
  return value;
}

double MapReader::required_positive(const std::string& key) {
  require(key);
  return positive(key, 0.0);
}

double MapReader::non_negative(const std::string& key, double fallback) {
  const double value = number(key, fallback);
  if (value < 0.0) throw_yaml_error(source_, node_[key], path_of(key), "must not be negative");
  return value;
}

Vec3 MapReader::vec3(const std::string& key, const Vec3& fallback) {
  if (!has(key)) {
    used_.insert(key);
    return fallback;
  }
  return read_yaml_vec3(source_, get(key), path_of(key));
}

Vec3 MapReader::required_vec3(const std::string& key) {
  require(key);
  return vec3(key, Vec3::Zero());
}

std::string MapReader::string(const std::string& key, const std::string& fallback) {
  if (!has(key)) {
    used_.insert(key);
    return fallback;
  }
  const YAML::Node value = get(key);
  if (!value.IsScalar()) throw_yaml_error(source_, value, path_of(key), "must be a string");
  return value.Scalar();
}

std::string MapReader::required_string(const std::string& key) {
  require(key);
  return string(key, "");
}

bool MapReader::boolean(const std::string& key, bool fallback) {
  if (!has(key)) {
    used_.insert(key);
    return fallback;
  }
  const YAML::Node value = get(key);
  try {
    if (value.IsScalar()) return value.as<bool>();
  } catch (const YAML::Exception&) {
  }
  throw_yaml_error(source_, value, path_of(key), "must be true or false");
}

std::string MapReader::choice(const std::string& key, const std::string& fallback,
                              const std::vector<std::string>& choices) {
  const std::string value = string(key, fallback);
  for (const std::string& option : choices) {
    if (value == option) return value;
  }
  throw_yaml_error(source_, node_[key], path_of(key),
                   fmt::format("must be one of: {}", fmt::join(choices, ", ")));
}

YAML::Node MapReader::sequence(const std::string& key) {
  const YAML::Node value = get(key);
  if (!value.IsDefined() || value.IsNull()) return YAML::Node(YAML::NodeType::Sequence);
  if (!value.IsSequence()) throw_yaml_error(source_, value, path_of(key), "must be a list");
  return value;
}

void MapReader::fail(const std::string& key, const std::string& message) {
  const YAML::Node value = node_[key];
  if (value.IsDefined()) throw_yaml_error(source_, value, path_of(key), message);
  // A key that is not given: the location of its map, without the map's whole content.
  throw InputError(fmt::format("{}: key '{}' (not given): {}", describe_location(source_, node_),
                               path_of(key), message));
}

void MapReader::reject_unknown_keys() const {
  for (const auto& entry : node_) {
    if (!entry.first.IsScalar()) {
      throw InputError(fmt::format("{}: a key under '{}' is not a plain name",
                                   describe_location(source_, entry.first), path_));
    }
    const std::string key = entry.first.Scalar();
    if (used_.contains(key)) continue;
    std::vector<std::string> known(used_.begin(), used_.end());
    throw InputError(fmt::format("{}: unknown key '{}' (known here: {})",
                                 describe_location(source_, entry.first), path_of(key),
                                 fmt::join(known, ", ")));
  }
}

namespace {

// An override's value is a tree: an alias that refers to its own ancestor (`&a [*a]`) would send
// every later walk into endless recursion, and nested aliases can expand a few hundred bytes
// into billions of nodes. Both are refused.
constexpr std::size_t kMaxOverrideNodes = 100000;

void check_override_tree(const YAML::Node& node, std::vector<YAML::Node>& ancestors,
                         std::size_t& nodes, const std::string& key) {
  if (++nodes > kMaxOverrideNodes) {
    throw InputError(
        fmt::format("--set '{}': the value has more than {} YAML nodes", key, kMaxOverrideNodes));
  }
  for (const YAML::Node& ancestor : ancestors) {
    if (ancestor.is(node)) {
      throw InputError(fmt::format("--set '{}': the value contains itself (a YAML alias)", key));
    }
  }
  if (!node.IsSequence() && !node.IsMap()) return;
  ancestors.push_back(node);
  for (const auto& entry : node) {
    if (node.IsMap()) {
      check_override_tree(entry.first, ancestors, nodes, key);
      check_override_tree(entry.second, ancestors, nodes, key);
    } else {
      check_override_tree(entry, ancestors, nodes, key);
    }
  }
  ancestors.pop_back();
}

}  // namespace

void apply_yaml_override(YAML::Node root, const std::string& assignment, YamlSource& source) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw InputError(fmt::format("--set '{}': expected KEY=VALUE", assignment));
  }
  const std::string key = assignment.substr(0, equals);
  const std::string text = assignment.substr(equals + 1);
  YAML::Node value;
  try {
    value = YAML::Load(text);
  } catch (const YAML::Exception& error) {
    throw InputError(fmt::format("--set '{}': value is not valid YAML: {}", key, error.msg));
  }
  std::vector<YAML::Node> ancestors;
  std::size_t nodes = 0;
  check_override_tree(value, ancestors, nodes, key);

  // Walk the path; yaml-cpp nodes are handles, so `current` aliases into the tree.
  std::vector<std::string> segments;
  for (std::size_t begin = 0; begin <= key.size();) {
    const auto dot = key.find('.', begin);
    const auto end = dot == std::string::npos ? key.size() : dot;
    segments.push_back(key.substr(begin, end - begin));
    begin = end + 1;
  }
  YAML::Node current = root;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::string& segment = segments[i];
    const bool last = i + 1 == segments.size();
    if (segment.empty()) throw InputError(fmt::format("--set '{}': empty path segment", key));
    if (current.IsSequence()) {
      YAML::Node element;
      bool found = false;
      std::size_t index = 0;
      const auto [end, error] =
          std::from_chars(segment.data(), segment.data() + segment.size(), index);
      if (error == std::errc() && end == segment.data() + segment.size()) {
        if (index < current.size()) {
          element = current[index];
          found = true;
        }
      } else {
        // By name: only map elements have one (indexing others would change them).
        for (std::size_t k = 0; k < current.size() && !found; ++k) {
          const YAML::Node candidate = current[k];
          if (!candidate.IsMap()) continue;
          const YAML::Node name = static_cast<const YAML::Node&>(candidate)["name"];
          if (name.IsDefined() && name.IsScalar() && name.Scalar() == segment) {
            element = candidate;
            found = true;
          }
        }
      }
      if (!found) {
        throw InputError(
            fmt::format("--set '{}': no list element '{}' (an index or a name)", key, segment));
      }
      if (last) {
        element = value;  // assigns through the handle into the sequence
      } else {
        current.reset(element);
      }
    } else if (current.IsMap() || current.IsNull() || !current.IsDefined()) {
      if (last) {
        current[segment] = value;
      } else {
        // A missing map on the way is created; the loader rejects keys that mean nothing.
        YAML::Node next = current[segment];
        if (!next.IsDefined() || next.IsNull()) {
          current[segment] = YAML::Node(YAML::NodeType::Map);
          next = current[segment];
        }
        current.reset(next);
      }
    } else {
      throw InputError(fmt::format("--set '{}': '{}' is below a scalar value", key, segment));
    }
  }
  collect_nodes(value, source.override_nodes);
}

}  // namespace hybridsim
