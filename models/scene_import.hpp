// Scenes from other simulators' files: URDF (robot descriptions) and MJCF (MuJoCo models), read
// by content and turned into the hybridsim scene YAML of docs/scene-format.md. `hybridsim run`
// loads that YAML text, `hybridsim convert` writes it, so both give bit-identical runs. What each
// element becomes is documented in docs/import.md.
#pragma once

#include <string>
#include <vector>

#include "core/model.hpp"

namespace hybridsim {

// How imported files are read (none of this applies to YAML scenes).
struct ImportOptions {
  // Directories searched for package:// and model:// URIs, after the environment variables
  // ROS_PACKAGE_PATH, AMENT_PREFIX_PATH (each entry's share/), GZ_SIM_RESOURCE_PATH,
  // IGN_GAZEBO_RESOURCE_PATH, GAZEBO_MODEL_PATH and SDF_PATH.
  std::vector<std::string> resource_paths;
  // URDF: the root link "fixed" to the world or "floating" (a free body).
  std::string urdf_root = "fixed";
  // The palette material of imported shapes, for the contact laws their files do not state.
  std::string default_material = "Steel";
};

enum class SceneFormat { yaml, urdf, mjcf, sdf };

// The format of a scene's text by its first element (<robot>, <mujoco>, <sdf>), else YAML.
SceneFormat detect_scene_format(const std::string& text);
const char* scene_format_name(SceneFormat format);

// An imported file as scene YAML, with the warnings of what the model cannot honour exactly.
struct ConvertedScene {
  std::string yaml;
  std::vector<std::string> warnings;  // "file:line: <element>: message"
};

// The scene YAML of a URDF or MJCF text; `source` is its file (relative mesh paths start there).
// Files the scene names are written relative to `output_directory`, or absolute when it is empty.
// InputError naming the file, the line and the element for bad input.
ConvertedScene convert_scene_text(const std::string& text, const std::string& source,
                                  const ImportOptions& options = {},
                                  const std::string& output_directory = "");

// `hybridsim convert`: the scene YAML of a file (a path or a catalog name), written to
// `output_path` unless it is empty.
ConvertedScene convert_scene_file(const std::string& path, const ImportOptions& options = {},
                                  const std::string& output_path = "");

}  // namespace hybridsim
