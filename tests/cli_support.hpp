// Running the `hybridsim` executable from tests: a fresh temporary directory per call site, the
// exit status and both output streams.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
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

// Made afresh by mkdtemp: a name from the process id and rand() repeated once pids wrapped round
// (ctest runs each test case in its own process, whose first rand() is always the same), and a
// stale directory of an earlier test then held that test's outputs.
inline fs::path temporary_directory() {
  std::string name = (fs::temp_directory_path() / "hybridsim_cli_XXXXXX").string();
  if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + name);
  return fs::path(name);
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
