// The scene format's reference, generated from the loader's key table: every key of every section
// with its type, unit, default and one line of meaning (docs/scene-reference.md is its output).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hybridsim {

struct SceneKey {
  std::string_view section;  // models/yaml_reader.hpp: scene_key_section ("" the top level)
  std::string_view key;
  std::string_view type;  // with its unit
  std::string_view default_value;
  std::string_view meaning;  // one line
};

std::span<const SceneKey> scene_keys();
// The sections, in the reference's order.
std::span<const std::string_view> scene_key_sections();
// The reference as Markdown, one table per section.
std::string format_scene_reference();

}  // namespace hybridsim
