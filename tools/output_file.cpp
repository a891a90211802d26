#include "tools/output_file.hpp"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace hybridsim {
namespace fs = std::filesystem;

OutputFile::OutputFile(const std::string& path, std::ios::openmode mode) : path_(path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  const bool special = fs::exists(status) && !fs::is_regular_file(status);
  if (!special) temporary_ = path + ".tmp";
  open(special ? path : temporary_, mode | std::ios::trunc);
  if (!is_open()) throw InputError(fmt::format("{}: cannot open for writing", path));
}

OutputFile::~OutputFile() {
  if (!is_open()) return;
  close();
  if (!temporary_.empty()) std::remove(temporary_.c_str());
}

bool OutputFile::commit() {
  if (!is_open()) return true;
  flush();
  close();
  if (fail()) return false;
  if (temporary_.empty()) return true;
  std::error_code error;
  fs::rename(temporary_, path_, error);
  return !error;
}

}  // namespace hybridsim
