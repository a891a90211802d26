// Which trajectory columns and rows `hybridsim run` writes (--trajectory-columns,
// --trajectory-instants, --trajectory-max-rate): a large scene's full trajectory is 13 columns a
// body at every output and every event, 107 MB for 0.3 s of a 100-sphere pile.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace hybridsim {

struct TrajectorySelection {
  // Shell patterns (`*`, `?`) over the column names, e.g. {"t", "ball.*", "energy"}; empty: all.
  std::vector<std::string> column_patterns;
  bool event_rows = true;  // false: rows at the outputs only
  // An event row closer than 1 / max_event_rate s of simulated time to the event row written
  // before it is left out (output rows are always written); infinity: none left out.
  double max_event_rate = std::numeric_limits<double>::infinity();
};

// Whether an event row at time t is written after the event row written at last_event_row_time
// (-inf: none yet): event rows chosen, and at least 1 / max_event_rate later (1 - 1e-12: an event
// exactly 1 / rate after it is kept despite the difference's rounding).
inline bool keeps_event_row(const TrajectorySelection& selection, double t,
                            double last_event_row_time) {
  return selection.event_rows &&
         !((t - last_event_row_time) * selection.max_event_rate < 1.0 - 1e-12);
}

// InputError naming the setting (`what`) unless the rate is above 0.
void check_trajectory_max_rate(double rate, const std::string& what);

// The indices into `names` (the columns after t) that the patterns select, in the file's order.
// `t` is always written first and needs no pattern. InputError naming the setting (`what`: the
// CLI's flag or the Python keyword) and the pattern for one that matches no column.
std::vector<std::size_t> select_trajectory_columns(
    const std::vector<std::string>& names, const std::vector<std::string>& patterns,
    const std::string& what = "--trajectory-columns");

// --trajectory-columns "t,ball.*,energy" as patterns; --trajectory-instants "all" or "outputs".
std::vector<std::string> split_column_patterns(const std::string& text);
bool trajectory_event_rows(const std::string& instants,
                           const std::string& what = "--trajectory-instants");

}  // namespace hybridsim
