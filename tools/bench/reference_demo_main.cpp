// hybridsim_reference_demo [rtol]: the demo as a plain CVODE program (reference_demo.hpp).
#include <cstdio>
#include <cstdlib>

#include "tools/bench/reference_demo.hpp"

int main(int argc, char** argv) {
  const double rtol = argc > 1 ? std::atof(argv[1]) : 1e-8;
  const auto result = hybridsim::bench::run_reference_demo(rtol, 1e-2 * rtol, 3.0);
  std::printf(
      "reference demo: %ld contact starts, %ld contact ends, %ld steps, %ld RHS evaluations, "
      "final z = %.12g\n",
      result.contact_starts, result.contact_ends, result.steps, result.rhs_evals,
      result.final_state[2]);
  return 0;
}
