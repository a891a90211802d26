// hybridsim_reference_demo [rtol]: the demo as a plain CVODE program (reference_demo.hpp).
// hybridsim_reference_demo cradle: Newton's cradle as a plain CVODE program (reference_cradle.hpp)
// at its scene's settings.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tools/bench/reference_cradle.hpp"
#include "tools/bench/reference_demo.hpp"

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "cradle") {
    const auto result = hybridsim::bench::run_reference_cradle(1e-10, 1e-12, 0.5, 1e-3);
    std::printf(
        "reference cradle: %ld contact starts, %ld contact ends, %ld steps, %ld RHS evaluations, "
        "%ld outputs, final ball 5 vx = %.12g m/s\n",
        result.contact_starts, result.contact_ends, result.steps, result.rhs_evals, result.outputs,
        result.final_vx[4]);
    return 0;
  }
  const double rtol = argc > 1 ? std::atof(argv[1]) : 1e-8;
  const auto result = hybridsim::bench::run_reference_demo(rtol, 1e-2 * rtol, 3.0);
  std::printf(
      "reference demo: %ld contact starts, %ld contact ends, %ld steps, %ld RHS evaluations, "
      "final z = %.12g\n",
      result.contact_starts, result.contact_ends, result.steps, result.rhs_evals,
      result.final_state[2]);
  return 0;
}
