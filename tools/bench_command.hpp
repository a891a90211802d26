// `hybridsim bench [SCENE...]`: runs catalog scenes (by default the heavy ones) and prints, per
// scene, the wall time (median over --repeat runs), RHS and Jacobian evaluations, steps, events
// and the peak memory of the process that ran it.
#pragma once

#include <string>
#include <vector>

namespace hybridsim {

struct BenchCommandOptions {
  std::vector<std::string> scenes;  // empty: the default set
  int repeat = 1;
  double stop_time = 0.0;  // s; > 0: every scene stops there instead of at its own stop time
};

// The scenes `hybridsim bench` runs when none is named.
std::vector<std::string> default_bench_scenes();

// Returns the process exit status (0 ok, 2 bad input, 3 a run failed).
int bench_command(const BenchCommandOptions& options);

}  // namespace hybridsim
