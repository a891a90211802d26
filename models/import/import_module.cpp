// The import module (libhybridsim_import.so, models/optional_module.hpp): the SDFormat, URDF and
// MJCF readers with libsdformat, urdfdom and tinyxml2, loaded only when a scene is one of those
// files. Its one entry converts a file's text to scene YAML; the loader's convert_scene_text
// (models/scene_import.cpp) calls it.
#include <exception>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "hybridsim/version.h"
#include "models/import/import_module.hpp"
#include "models/import/mjcf_reader.hpp"
#include "models/import/scene_tree.hpp"
#include "models/import/sdf_reader.hpp"
#include "models/import/urdf_reader.hpp"

namespace hybridsim {
namespace {

ConvertedScene convert(const ImportRequest& request) {
  ImportContext context(*request.options, *request.source, *request.output_directory);
  YAML::Node tree;
  switch (detect_scene_format(*request.text)) {
    case SceneFormat::urdf:
      tree = read_urdf(*request.text, context);
      break;
    case SceneFormat::mjcf:
      tree = read_mjcf(*request.text, context);
      break;
    case SceneFormat::sdf:
      tree = read_sdf(*request.text, context);
      break;
    case SceneFormat::yaml:
      throw InputError(
          fmt::format("{}:1: not an SDFormat (<sdf>), URDF (<robot>) or MJCF (<mujoco>) file",
                      *request.source));
  }
  ConvertedScene converted;
  converted.warnings = context.take_warnings();
  converted.yaml = emit_scene(tree, std::filesystem::path(*request.source).filename().string(),
                              converted.warnings);
  return converted;
}

}  // namespace
}  // namespace hybridsim

extern "C" const char* hybridsim_module_version() {
  return HYBRIDSIM_VERSION_STRING;
}

// Exceptions do not cross the module's edge: the error's kind and message travel in the request.
extern "C" void hybridsim_import_convert(hybridsim::ImportRequest* request) noexcept {
  using hybridsim::ImportRequest;
  try {
    *request->result = hybridsim::convert(*request);
  } catch (const hybridsim::NotSupportedError& error) {
    request->error = ImportRequest::Error::not_supported;
    *request->message = error.what();
  } catch (const hybridsim::InputError& error) {
    request->error = ImportRequest::Error::input;
    *request->message = error.what();
  } catch (const std::exception& error) {
    request->error = ImportRequest::Error::other;
    *request->message = error.what();
  } catch (...) {
    request->error = ImportRequest::Error::other;
    *request->message = "an unknown exception";
  }
}
