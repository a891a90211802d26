// hybridsim_bench: the library against plain CVODE programs of the same equations. Runs the demo
// scene (bouncing_sphere) and Newton's cradle through the hybridsim library (scene file,
// MultibodySystem, HybridLoop, CVODE adapter, outputs kept in memory) and through their plain
// CVODE reference programs, alternately in one process, and prints the median wall times, their
// ratio and the RHS evaluations of each. Targets: wall-time ratio <= 1.3 for both (issues 2 and
// 8), RHS evaluations within 10% (issue 2).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "hybridsim/simulator.hpp"
#include "integrators/hybrid_loop.hpp"
#include "models/multibody_system.hpp"
#include "models/scene_loader.hpp"
#include "tools/bench/reference_cradle.hpp"
#include "tools/bench/reference_demo.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Keeps the outputs, as the reference program does.
struct OutputKeeper : hybridsim::SimulationObserver {
  std::vector<double> z;
  void on_output(double, const hybridsim::VectorX& x) override { z.push_back(x[2]); }
};

// Keeps every state at every output, as the cradle's reference program does.
struct StateKeeper : hybridsim::SimulationObserver {
  std::vector<double> states;
  void on_output(double, const hybridsim::VectorX& x) override {
    states.insert(states.end(), x.data(), x.data() + x.size());
  }
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// One run of the cradle through the library: its wall time, counters and ball 5's final velocity.
struct CradleRun {
  double wall = 0.0;
  hybridsim::SimulationResult result;
  double v5 = 0.0;
};

CradleRun run_library_cradle(const hybridsim::Model& model,
                             const hybridsim::SimulationOptions& options) {
  const auto t0 = Clock::now();
  hybridsim::MultibodySystem system(model);
  auto integrator = hybridsim::make_integrator(model.simulation.integrator);
  hybridsim::HybridLoop simulator(system, *integrator, options);
  StateKeeper keeper;
  CradleRun run;
  run.result = simulator.run(&keeper);
  run.wall = std::chrono::duration<double>(Clock::now() - t0).count();
  run.v5 = simulator.state()[13 * 4 + 7];
  return run;
}

// Newton's cradle at its scene's settings (cvode-bdf with KLU, rtol 1e-10, atol 1e-12, 0.5 s,
// outputs every 1 ms), and the same with the dense linear solver the reference uses, against
// hybridsim::bench::run_reference_cradle.
void compare_cradle(int repetitions) {
  const hybridsim::Model model = hybridsim::load_scene_file("newtons_cradle");
  const hybridsim::SimulationOptions options =
      hybridsim::make_simulation_options(model, hybridsim::SimulatorConfig{});
  hybridsim::SimulationOptions dense_options = options;
  dense_options.integrator.linear_solver = "dense";
  std::vector<double> scene_times, dense_times, reference_times, scene_ratios, dense_ratios;
  CradleRun scene, dense;
  hybridsim::bench::CradleResult reference;
  for (int i = 0; i < repetitions + 1; ++i) {
    scene = run_library_cradle(model, options);
    dense = run_library_cradle(model, dense_options);
    const auto t0 = Clock::now();
    reference =
        hybridsim::bench::run_reference_cradle(options.integrator.rtol, options.integrator.atol,
                                               options.stop_time, options.output_interval);
    const double reference_wall = std::chrono::duration<double>(Clock::now() - t0).count();
    if (i == 0) continue;
    scene_times.push_back(scene.wall);
    dense_times.push_back(dense.wall);
    reference_times.push_back(reference_wall);
    scene_ratios.push_back(scene.wall / reference_wall);
    dense_ratios.push_back(dense.wall / reference_wall);
  }
  std::printf(
      "\nNewton's cradle (newtons_cradle, cvode-bdf, rtol %g, atol %g, %g s), %d repetitions\n",
      options.integrator.rtol, options.integrator.atol, options.stop_time, repetitions);
  std::printf("%-30s %14s %10s %10s %8s %18s %8s\n", "", "wall median s", "RHS evals", "steps",
              "starts", "ball 5 vx m/s", "ratio");
  const auto row = [](const char* name, double wall, long rhs, long steps, long starts, double v5,
                      double ratio) {
    std::printf("%-30s %14.6f %10ld %10ld %8ld %18.12f %8.3f\n", name, wall, rhs, steps, starts, v5,
                ratio);
  };
  row("hybridsim library (scene: klu)", median(scene_times), scene.result.stats.rhs_evals,
      scene.result.stats.steps, scene.result.contact_starts, scene.v5, median(scene_ratios));
  row("hybridsim library, dense", median(dense_times), dense.result.stats.rhs_evals,
      dense.result.stats.steps, dense.result.contact_starts, dense.v5, median(dense_ratios));
  row("plain CVODE reference (dense)", median(reference_times), reference.rhs_evals,
      reference.steps, reference.contact_starts, reference.final_vx[4], 1.0);
  std::printf("ratio: library / reference wall time, median of pairs\n");
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
  compare_cradle(repetitions);
  return 0;
}
