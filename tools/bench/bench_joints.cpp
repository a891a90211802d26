// hybridsim_bench_joints: the joints' constraint solver, dense against sparse factorisation of
// G M^-1 G^T (issue 5), side by side in one process, on chains of N links hinged end to end
// (5 rows per revolute joint):
//  1. the cost of one right-hand-side evaluation (MultibodySystem::compute_derivatives, the
//     KKT solve included), median over rounds that alternate dense and sparse;
//  2. whole runs of a falling chain under cvode-adams, alternating, median wall time.
// Usage: hybridsim_bench_joints [max_links_for_runs (default 100)]
//        hybridsim_bench_joints --scene N   (prints the chain of N links as a scene file)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/constraint_solver.hpp"
#include "integrators/hybrid_loop.hpp"
#include "integrators/integrator.hpp"
#include "models/multibody_system.hpp"
#include "models/scene_loader.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace hybridsim;

// N links of 0.1 kg, 50 mm long, along +y from a hinge at the origin, each hinged to the one
// before about x: a chain held horizontal at one end, released at rest.
std::string chain_scene(int links, double stop_time) {
  std::string scene = fmt::format(
      "name: chain\nsimulation: {{stop_time: {}, rtol: 1.0e-8, output_interval: 0.01}}\n"
      "bodies:\n  - {{name: ground, fixed: true}}\n",
      stop_time);
  std::string joints = "joints:\n";
  for (int i = 0; i < links; ++i) {
    scene += fmt::format(
        "  - {{name: l{}, mass: 0.1, inertia: [2.1e-5, 1.0e-6, 2.1e-5, 0, 0, 0], position: [0, "
        "{:.17g}, 0]}}\n",
        i, 0.05 * (i + 0.5));
    joints += fmt::format(
        "  - {{name: j{}, type: revolute, parent: {}, child: l{}, anchor: [0, {:.17g}, 0], axis: "
        "[1, 0, 0]}}\n",
        i, i == 0 ? "ground" : fmt::format("l{}", i - 1), i, 0.05 * i);
  }
  return scene + joints;
}

Model chain_model(int links, ConstraintFactorization factorization, double stop_time = 1.0) {
  Model model = load_scene_text(chain_scene(links, stop_time), "chain.yaml");
  model.simulation.constraint_factorization = factorization;
  return model;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Seconds per compute_derivatives call at the initial state, one round of `calls` calls.
double time_rhs(MultibodySystem& system, const VectorX& x, VectorX& xdot, int calls) {
  const auto start = Clock::now();
  for (int i = 0; i < calls; ++i) system.compute_derivatives(0.0, x, xdot);
  return std::chrono::duration<double>(Clock::now() - start).count() / calls;
}

struct RunFigures {
  double wall = 0.0;
  long steps = 0;
  long rhs = 0;
  double drift = 0.0;
};

RunFigures run_chain(const Model& model) {
  MultibodySystem system(model);
  SimulationOptions options;
  options.stop_time = model.simulation.stop_time;
  options.output_interval = model.simulation.output_interval;
  options.integrator.rtol = model.simulation.rtol;
  options.integrator.atol = default_absolute_tolerance(model.simulation.rtol);
  auto integrator = make_integrator("cvode-adams");
  HybridLoop loop(system, *integrator, options);
  const auto start = Clock::now();
  const SimulationResult result = loop.run(nullptr);
  RunFigures figures;
  figures.wall = std::chrono::duration<double>(Clock::now() - start).count();
  figures.steps = result.stats.steps;
  figures.rhs = result.rhs_calls;
  figures.drift = system.compute_constraint_error(loop.state()).position;
  if (result.status != SimulationStatus::ok) {
    std::fprintf(stderr, "run failed: %s\n", result.message.c_str());
    std::exit(1);
  }
  return figures;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "--scene") {
    std::fputs(chain_scene(std::atoi(argv[2]), 1.0).c_str(), stdout);
    return 0;
  }
  const int max_run_links = argc > 1 ? std::atoi(argv[1]) : 100;

  std::printf("1. One right-hand side (KKT solve included), median of 9 alternating rounds\n");
  std::printf("%6s %6s %14s %14s %12s\n", "links", "rows", "dense [us]", "sparse [us]",
              "dense/sparse");
  for (int links : {1, 2, 4, 8, 12, 16, 24, 32, 64, 128, 256, 400, 1000}) {
    const bool with_dense = 5 * links <= kMaxDenseConstraintRows;
    const Model sparse_model = chain_model(links, ConstraintFactorization::sparse);
    // The dense system only within the dense limit (beyond, its matrices alone take gigabytes).
    const Model dense_model = chain_model(with_dense ? links : 1, ConstraintFactorization::dense);
    MultibodySystem sparse(sparse_model), dense(dense_model);
    VectorX x(sparse.state_size()), xdot(sparse.state_size());
    sparse.initial_state(x);
    // About 20 ms per round for the slower of the two.
    const double probe = with_dense ? time_rhs(dense, x, xdot, 3) : time_rhs(sparse, x, xdot, 3);
    const int calls = std::max(3, static_cast<int>(0.02 / probe));
    std::vector<double> dense_times, sparse_times;
    for (int round = 0; round < 10; ++round) {
      const double s = time_rhs(sparse, x, xdot, calls);
      const double d = with_dense ? time_rhs(dense, x, xdot, calls) : 0.0;
      if (round == 0) continue;  // warm-up
      sparse_times.push_back(s);
      dense_times.push_back(d);
    }
    const double d = median(dense_times) * 1e6, s = median(sparse_times) * 1e6;
    if (with_dense) {
      std::printf("%6d %6d %14.2f %14.2f %12.2f\n", links, 5 * links, d, s, d / s);
    } else {
      std::printf("%6d %6d %14s %14.2f %12s\n", links, 5 * links, "-", s, "-");
    }
  }

  std::printf(
      "\n2. A falling chain over 1 s under cvode-adams (rtol 1e-8), median of 3 "
      "alternating runs\n");
  std::printf("%6s %6s %12s %12s %12s %8s %10s %10s\n", "links", "rows", "dense [s]", "sparse [s]",
              "dense/sparse", "steps", "rhs", "drift [m]");
  for (int links : {10, 25, 50, 100, 200}) {
    if (links > max_run_links) break;
    const Model sparse_model = chain_model(links, ConstraintFactorization::sparse);
    const Model dense_model = chain_model(links, ConstraintFactorization::dense);
    std::vector<double> dense_walls, sparse_walls;
    RunFigures last;
    for (int round = 0; round < 3; ++round) {
      last = run_chain(sparse_model);
      sparse_walls.push_back(last.wall);
      dense_walls.push_back(run_chain(dense_model).wall);
    }
    const double d = median(dense_walls), s = median(sparse_walls);
    std::printf("%6d %6d %12.3f %12.3f %12.2f %8ld %10ld %10.1e\n", links, 5 * links, d, s, d / s,
                last.steps, last.rhs, last.drift);
  }
  return 0;
}
