#include "models/optional_module.hpp"

#include <dlfcn.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "hybridsim/version.h"

namespace hybridsim {
namespace {

// Where modules are looked for, in order: next to the binary that holds this code (the shared
// library in LIBDIR, a statically linked program in BINDIR, or the Python extension in
// PREFIX/lib/python3.X/site-packages/hybridsim), the build tree, the configured install location.
std::vector<std::filesystem::path> module_directories() {
  namespace fs = std::filesystem;
  std::vector<fs::path> directories;
  if (const fs::path binary_directory = code_binary_directory(); !binary_directory.empty()) {
    directories.push_back(binary_directory / HYBRIDSIM_MODULES_FROM_LIBDIR);
    directories.push_back(binary_directory / HYBRIDSIM_MODULES_FROM_BINDIR);
    directories.push_back(binary_directory / "../../../.." / HYBRIDSIM_MODULES_FROM_PREFIX);
  }
  directories.emplace_back(HYBRIDSIM_MODULES_BUILD_DIR);
  directories.emplace_back(HYBRIDSIM_INSTALLED_MODULES_DIR);
  return directories;
}

std::string module_file_name(const std::string& name) {
  return "libhybridsim_" + name + ".so";
}

// The first file of the module in module_directories(), or empty; `searched` lists them.
std::filesystem::path find_module(const std::string& name, std::string& searched) {
  namespace fs = std::filesystem;
  for (const fs::path& directory : module_directories()) {
    const fs::path file = directory / module_file_name(name);
    std::error_code error;
    if (fs::is_regular_file(file, error)) return file.lexically_normal();
    if (!searched.empty()) searched += ", ";
    searched += directory.lexically_normal().string();
  }
  return {};
}

// The module's handle: the first file found, loaded with its symbols private to it (RTLD_LOCAL),
// and its version checked.
void* load_module(const std::string& name, const char* purpose) {
  namespace fs = std::filesystem;
  std::string searched;
  if (const fs::path file = find_module(name, searched); !file.empty()) {
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      throw InputError(fmt::format("{} needs the module {}, which does not load: {}", purpose,
                                   file.string(), dlerror()));
    }
    using VersionFunction = const char*();
    auto* version = reinterpret_cast<VersionFunction*>(dlsym(handle, kModuleVersionSymbol));
    if (version == nullptr || std::strcmp(version(), HYBRIDSIM_VERSION_STRING) != 0) {
      throw InputError(fmt::format(
          "{} needs the module {}, which is of version {}, not {}", purpose, file.string(),
          version == nullptr ? "unknown" : version(), HYBRIDSIM_VERSION_STRING));
    }
    return handle;
  }
  throw InputError(fmt::format("{} needs the module {}, which is not installed (searched {})",
                               purpose, module_file_name(name), searched));
}

}  // namespace

std::filesystem::path code_binary_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&code_binary_directory), &info) == 0 ||
      info.dli_fname == nullptr) {
    return {};
  }
  return std::filesystem::path(info.dli_fname).parent_path();
}

std::string optional_module_path(const std::string& name) {
  std::string searched;
  return find_module(name, searched).string();
}

void* optional_module_symbol(const std::string& name, const char* symbol, const char* purpose) {
  static std::mutex mutex;
  static std::map<std::string, void*> handles;
  const std::lock_guard<std::mutex> lock(mutex);
  auto found = handles.find(name);
  if (found == handles.end()) found = handles.emplace(name, load_module(name, purpose)).first;
  void* address = dlsym(found->second, symbol);
  if (address == nullptr) {
    throw InputError(fmt::format("{}: the module {} has no function {}", purpose,
                                 module_file_name(name), symbol));
  }
  return address;
}

}  // namespace hybridsim
