#include "tools/python_script.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace hybridsim {

std::string python_script_path(const std::string& name, const std::string& source_path) {
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path installed =
        executable.parent_path().parent_path() / "share" / "hybridsim" / name;
    if (fs::is_regular_file(installed)) return installed.string();
  }
  return source_path;
}

int run_python_script(const std::string& script, const std::vector<std::string>& arguments) {
  std::fflush(nullptr);
  const char* override = std::getenv("HYBRIDSIM_PYTHON");
  const std::string python = override != nullptr              ? override
                             : fs::exists("/usr/bin/python3") ? "/usr/bin/python3"
                                                              : "python3";
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(python.c_str()));
  argv.push_back(const_cast<char*>(script.c_str()));
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    execvp(python.c_str(), argv.data());
    std::perror("hybridsim: cannot start python3");
    _exit(127);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) < 0 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

}  // namespace hybridsim
