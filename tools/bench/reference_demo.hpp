// The demo scene (a steel sphere bouncing to rest on a steel plate) as a plain C++ program on
// CVODE, written directly, the way a numerical engineer would: the same 13 equations, tolerances,
// crossing functions z1/z2 and step bound as hybridsim, with none of its generality. It is the
// yardstick of the foundation benchmark (BENCHMARKS.md). It includes SUNDIALS itself on purpose:
// it stands for the program a user would write without hybridsim.
#pragma once

#include <array>
#include <vector>

namespace hybridsim::bench {

struct ReferenceResult {
  long rhs_evals = 0;
  long steps = 0;
  long contact_starts = 0;
  long contact_ends = 0;
  std::array<double, 13> final_state{};
  std::vector<double> output_z;  // sphere centre height at each output (0.01 s)
};

ReferenceResult run_reference_demo(double rtol, double atol, double stop_time);

}  // namespace hybridsim::bench
