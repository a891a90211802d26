// Helpers of the importers' tests: the test data folder, and two runs compared output by output
// and event by event.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "test_support.hpp"

namespace hybridsim::testing {

inline std::string import_data(const std::string& file) {
  return std::string(HYBRIDSIM_TESTS_DIR) + "/models/import/data/" + file;
}

// The largest difference of any state component at any output between two runs of the same
// length (quaternion components and velocities alike, in their units).
inline double largest_state_difference(const Run& a, const Run& b) {
  REQUIRE(a.recorder.output_states.size() == b.recorder.output_states.size());
  double largest = 0.0;
  for (std::size_t i = 0; i < a.recorder.output_states.size(); ++i) {
    REQUIRE(a.recorder.output_states[i].size() == b.recorder.output_states[i].size());
    largest = std::max(
        largest, (a.recorder.output_states[i] - b.recorder.output_states[i]).cwiseAbs().maxCoeff());
  }
  return largest;
}

// Two runs of one world compared output by output and event by event: bit for bit.
inline void check_same_motion(const Run& a, const Run& b) {
  REQUIRE(a.result.status == SimulationStatus::ok);
  REQUIRE(b.result.status == SimulationStatus::ok);
  CHECK(largest_state_difference(a, b) == 0.0);
  REQUIRE(a.recorder.events.size() == b.recorder.events.size());
  for (std::size_t i = 0; i < a.recorder.events.size(); ++i) {
    CHECK(a.recorder.events[i].t == b.recorder.events[i].t);
    CHECK(a.recorder.events[i].kind == b.recorder.events[i].kind);
  }
}

}  // namespace hybridsim::testing
