#include "models/input_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace hybridsim {

void check_input_file(const std::string& path, const std::string& what, std::uintmax_t max_bytes) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status)) {
    throw InputError(fmt::format("{} file '{}': no such file", what, path));
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw InputError(fmt::format("{} file '{}': not a regular file", what, path));
  }
  const std::uintmax_t bytes = std::filesystem::file_size(path, error);
  if (!error && bytes > max_bytes) {
    throw InputError(
        fmt::format("{} file '{}': {} bytes, more than the {} MiB such a file may have", what, path,
                    bytes, max_bytes >> 20));
  }
}

std::string read_scene_text(const std::string& path) {
  check_input_file(path, "scene", kMaxSceneFileBytes);
  std::ifstream file(path);
  if (!file) throw InputError(fmt::format("{}: cannot open the scene file", path));
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace hybridsim
