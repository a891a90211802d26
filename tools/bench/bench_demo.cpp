// hybridsim_bench: the foundation benchmark. Runs the demo scene through the hybridsim library
// (scene file, MultibodySystem, HybridLoop, CVODE adapter, outputs every 0.01 s kept in memory)
// and through the plain CVODE reference program, alternately in one process, and prints the
// median wall times, their ratio and the RHS evaluations of each. Targets (issue 2): wall-time
// ratio <= 1.3, RHS evaluations within 10%.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "integrators/hybrid_loop.hpp"
#include "models/multibody_system.hpp"
#include "models/scene_loader.hpp"
#include "tools/bench/reference_demo.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Keeps the outputs, as the reference program does.
struct OutputKeeper : hybridsim::SimulationObserver {
  std::vector<double> z;
  void on_output(double, const hybridsim::VectorX& x) override { z.push_back(x[2]); }
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int repetitions = argc > 1 ? std::atoi(argv[1]) : 21;
  const double rtol = argc > 2 ? std::atof(argv[2]) : 1e-8;
  const double atol = 1e-2 * rtol, stop_time = 3.0;
  const hybridsim::Model model = hybridsim::load_scene_file("bouncing_sphere");

  std::vector<double> library_times, reference_times, ratios;
  long library_rhs = 0, reference_rhs = 0, library_steps = 0, reference_steps = 0;
  long library_starts = 0, reference_starts = 0;
  double library_z = 0.0, reference_z = 0.0;
  for (int i = 0; i < repetitions + 1; ++i) {  // the first round warms up and is not counted
    const auto t0 = Clock::now();
    hybridsim::MultibodySystem system(model);
    auto integrator = hybridsim::make_integrator("cvode-bdf");
    hybridsim::SimulationOptions options;
    options.stop_time = stop_time;
    options.output_interval = 0.01;
    options.integrator.rtol = rtol;
    options.integrator.atol = atol;
    hybridsim::HybridLoop simulator(system, *integrator, options);
    OutputKeeper keeper;
    const auto result = simulator.run(&keeper);
    const auto t1 = Clock::now();
    const auto reference = hybridsim::bench::run_reference_demo(rtol, atol, stop_time);
    const auto t2 = Clock::now();
    if (i == 0) continue;
    library_times.push_back(std::chrono::duration<double>(t1 - t0).count());
    reference_times.push_back(std::chrono::duration<double>(t2 - t1).count());
    ratios.push_back(library_times.back() / reference_times.back());
    library_rhs = result.stats.rhs_evals;
    library_steps = result.stats.steps;
    library_starts = result.contact_starts;
    library_z = simulator.state()[2];
    reference_rhs = reference.rhs_evals;
    reference_steps = reference.steps;
    reference_starts = reference.contact_starts;
    reference_z = reference.final_state[2];
  }
  std::printf("demo scene (bouncing_sphere, cvode-bdf, rtol %g, atol %g, %g s), %d repetitions\n",
              rtol, atol, stop_time, repetitions);
  std::printf("%-22s %14s %10s %10s %8s %18s\n", "", "wall median s", "RHS evals", "steps",
              "starts", "final z m");
  std::printf("%-22s %14.6f %10ld %10ld %8ld %18.12f\n", "hybridsim library", median(library_times),
              library_rhs, library_steps, library_starts, library_z);
  std::printf("%-22s %14.6f %10ld %10ld %8ld %18.12f\n", "plain CVODE reference",
              median(reference_times), reference_rhs, reference_steps, reference_starts,
              reference_z);
  std::printf("wall-time ratio (library / reference, median of pairs): %.3f\n", median(ratios));
  std::printf("RHS-evaluation ratio: %.3f\n",
              static_cast<double>(library_rhs) / static_cast<double>(reference_rhs));
  return 0;
}
