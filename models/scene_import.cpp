#include "models/scene_import.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "models/import/import_module.hpp"
#include "models/input_file.hpp"
#include "models/optional_module.hpp"
#include "models/scene_loader.hpp"

namespace hybridsim {
namespace {

// The name of the first element: after a byte-order mark, the XML declaration, comments,
// processing instructions and a DOCTYPE. Empty when the text does not start like XML.
std::string first_element_name(const std::string& text) {
  std::size_t at = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  while (true) {
    at = text.find_first_not_of(" \t\r\n", at);
    if (at == std::string::npos || text[at] != '<') return "";
    if (text.compare(at, 4, "<!--") == 0) {
      at = text.find("-->", at);
      if (at == std::string::npos) return "";
      at += 3;
    } else if (text.compare(at, 2, "<?") == 0 || text.compare(at, 2, "<!") == 0) {
      at = text.find('>', at);
      if (at == std::string::npos) return "";
      ++at;
    } else {
      const std::size_t end = text.find_first_of(" \t\r\n/>", at + 1);
      return text.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
    }
  }
}

}  // namespace

SceneFormat detect_scene_format(const std::string& text) {
  const std::string root = first_element_name(text);
  if (root == "robot") return SceneFormat::urdf;
  if (root == "mujoco") return SceneFormat::mjcf;
  if (root == "sdf") return SceneFormat::sdf;
  return SceneFormat::yaml;
}

const char* scene_format_name(SceneFormat format) {
  switch (format) {
    case SceneFormat::urdf:
      return "URDF";
    case SceneFormat::mjcf:
      return "MJCF";
    case SceneFormat::sdf:
      return "SDFormat";
    case SceneFormat::yaml:
      break;
  }
  return "YAML";
}

ConvertedScene convert_scene_text(const std::string& text, const std::string& source,
                                  const ImportOptions& options,
                                  const std::string& output_directory) {
  const SceneFormat format = detect_scene_format(text);
  if (format == SceneFormat::yaml) {
    throw InputError(fmt::format(
        "{}:1: not an SDFormat (<sdf>), URDF (<robot>) or MJCF (<mujoco>) file", source));
  }
  // The readers live in the import module (optional_module.hpp), loaded on the first import.
  const std::string purpose = fmt::format("{}: {} import", source, scene_format_name(format));
  auto* convert = optional_module_function<ImportConvertFunction>(
      "import", "hybridsim_import_convert", purpose.c_str());
  ConvertedScene converted;
  std::string message;
  ImportRequest request;
  request.text = &text;
  request.source = &source;
  request.options = &options;
  request.output_directory = &output_directory;
  request.result = &converted;
  request.message = &message;
  convert(&request);
  switch (request.error) {
    case ImportRequest::Error::none:
      return converted;
    case ImportRequest::Error::not_supported:
      throw NotSupportedError(message);
    case ImportRequest::Error::input:
      throw InputError(message);
    case ImportRequest::Error::other:
      break;
  }
  throw std::runtime_error(message);
}

ConvertedScene convert_scene_file(const std::string& path_or_name, const ImportOptions& options,
                                  const std::string& output_path) {
  namespace fs = std::filesystem;
  const std::string path = resolve_scene_path(path_or_name);
  const std::string output_directory =
      output_path.empty() ? "" : fs::absolute(output_path).parent_path().string();
  ConvertedScene converted =
      convert_scene_text(read_scene_text(path), path, options, output_directory);
  if (!output_path.empty()) {
    std::ofstream out(output_path);
    out << converted.yaml;
    if (!(out.flush())) throw InputError(fmt::format("{}: cannot write the scene", output_path));
  }
  return converted;
}

}  // namespace hybridsim
