#include "tools/trajectory_columns.hpp"

#include <fnmatch.h>

#include <algorithm>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace hybridsim {

std::vector<std::size_t> select_trajectory_columns(const std::vector<std::string>& names,
                                                   const std::vector<std::string>& patterns,
                                                   const std::string& what) {
  std::vector<std::size_t> selected;
  if (patterns.empty()) {
    for (std::size_t i = 0; i < names.size(); ++i) selected.push_back(i);
    return selected;
  }
  std::vector<bool> taken(names.size(), false);
  for (const std::string& pattern : patterns) {
    bool matched = pattern == "t";
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (fnmatch(pattern.c_str(), names[i].c_str(), 0) != 0) continue;
      matched = true;
      taken[i] = true;
    }
    if (!matched) {
      throw InputError(
          fmt::format("{}: '{}' matches no column (the columns "
                      "are t, then {}{})",
                      what, pattern, names.empty() ? "none" : names.front(),
                      names.size() > 1 ? " .. " + names.back() : ""));
    }
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (taken[i]) selected.push_back(i);
  }
  return selected;
}

std::vector<std::string> split_column_patterns(const std::string& text) {
  std::vector<std::string> patterns;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    std::string pattern = text.substr(at, comma - at);
    const std::size_t first = pattern.find_first_not_of(" \t");
    const std::size_t last = pattern.find_last_not_of(" \t");
    if (first == std::string::npos) {
      throw InputError(fmt::format("--trajectory-columns '{}': an empty pattern", text));
    }
    patterns.push_back(pattern.substr(first, last - first + 1));
    at = comma + 1;
  }
  return patterns;
}

void check_trajectory_max_rate(double rate, const std::string& what) {
  if (!(rate > 0.0)) {
    throw InputError(fmt::format("{} {}: must be above 0 (rows per simulated second)", what, rate));
  }
}

bool trajectory_event_rows(const std::string& instants, const std::string& what) {
  if (instants == "all") return true;
  if (instants == "outputs") return false;
  throw InputError(
      fmt::format("{} '{}': expected all (outputs and events) or outputs", what, instants));
}

}  // namespace hybridsim
