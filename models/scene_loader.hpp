// Scene loading: the YAML of spec/scene-format.md to a Model. Every error is an InputError whose
// message names the file and, where they apply, the line, the key path and the value.
#pragma once

#include <string>
#include <vector>

#include "core/model.hpp"

namespace hybridsim {

struct ImportOptions;

// A scene from a file path or a catalog name (models/scenes/NAME.yaml), with KEY=VALUE overrides.
// SDFormat, URDF and MJCF files (models/scene_import.hpp) are read by their content, the overrides
// applying to the scene they convert to.
Model load_scene_file(const std::string& path_or_name,
                      const std::vector<std::string>& overrides = {});
Model load_scene_file(const std::string& path_or_name, const std::vector<std::string>& overrides,
                      const ImportOptions& import_options);

// A scene from YAML (or SDFormat, URDF, MJCF) text; `source_name` stands for the file in messages.
Model load_scene_text(const std::string& text, const std::string& source_name,
                      const std::vector<std::string>& overrides = {});
Model load_scene_text(const std::string& text, const std::string& source_name,
                      const std::vector<std::string>& overrides,
                      const ImportOptions& import_options);

// A scene of the catalog (models/scenes): its name for `hybridsim run NAME`, its file, and the
// scene's description and reference; error holds the load error of a broken file instead.
struct CatalogEntry {
  std::string name, path, description, reference, error;
};
// Every scene of the catalog, by name.
std::vector<CatalogEntry> list_catalog();

// The file a path or catalog name refers to; InputError if there is none.
std::string resolve_scene_path(const std::string& path_or_name);

}  // namespace hybridsim
