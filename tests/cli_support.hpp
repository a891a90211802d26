// Running the `hybridsim` executable from tests: a fresh temporary directory per call site, the
// exit status and both output streams.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

namespace hybridsim::testing {

namespace fs = std::filesystem;

struct CliResult {
  int status = -1;
  std::string out, err;
};

inline std::string read_file(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

inline fs::path temporary_directory() {
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("hybridsim_cli_{}_{}", ::getpid(), std::rand());
  fs::create_directories(dir);
  return dir;
}

// Runs `hybridsim ARGUMENTS` in dir's files; `launcher` goes before it (e.g. "mpirun -n 2").
inline CliResult run_cli(const std::string& arguments, const fs::path& dir,
                         const std::string& launcher = "") {
  const std::string command =
      fmt::format("{} {} {} >{} 2>{}", launcher, HYBRIDSIM_EXECUTABLE, arguments,
                  (dir / "out.txt").string(), (dir / "err.txt").string());
  const int raw = std::system(command.c_str());
  CliResult result;
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  result.out = read_file(dir / "out.txt");
  result.err = read_file(dir / "err.txt");
  return result;
}

}  // namespace hybridsim::testing
