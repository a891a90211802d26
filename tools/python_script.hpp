// The Python scripts hybridsim runs for its figures (batch work-precision plots, run plots): found
// beside the installed catalog, else in the source tree; run with Debian's python3, where
// python3-matplotlib installs.
#pragma once

#include <string>
#include <vector>

namespace hybridsim {

// share/hybridsim/<name> beside the running executable when installed, else `source_path`.
std::string python_script_path(const std::string& name, const std::string& source_path);

// Runs `script` with `arguments` under $HYBRIDSIM_PYTHON, else /usr/bin/python3, else python3
// from PATH; returns the script's exit status (127: python3 could not be started; -1: it died).
int run_python_script(const std::string& script, const std::vector<std::string>& arguments);

}  // namespace hybridsim
