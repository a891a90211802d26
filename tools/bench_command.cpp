#include "tools/bench_command.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "hybridsim/simulator.hpp"
#include "integrators/hybrid_loop.hpp"
#include "models/multibody_system.hpp"
#include "models/scene_loader.hpp"

namespace hybridsim {
namespace {

// One scene, `repeat` times, in this process, to its own stop time or to `stop_time` if positive;
// prints the row but its memory column. Returns the exit status.
int bench_scene(const std::string& scene, int repeat, double stop_time) {
  try {
    const Model model = load_scene_file(scene);
    SimulatorConfig config;
    if (stop_time > 0.0) config.stop_time = stop_time;
    const SimulationOptions sim = make_simulation_options(model, config);
    std::vector<double> walls;
    SimulationResult result;
    for (int k = 0; k < repeat; ++k) {
      MultibodySystem system(model);
      auto integrator = make_integrator(model.simulation.integrator);
      HybridLoop simulator(system, *integrator, sim);
      const auto started = std::chrono::steady_clock::now();
      result = simulator.run(nullptr);
      walls.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
      if (result.status != SimulationStatus::ok) {
        std::printf("%-22s %s at t = %.6g s: %s\n", model.name.c_str(),
                    std::string(to_string(result.status)).c_str(), result.t_end,
                    result.message.c_str());
        return 3;
      }
    }
    std::sort(walls.begin(), walls.end());
    std::printf("%-22s %8.3g %10.4f %10ld %8ld %9ld %8ld", model.name.c_str(), sim.stop_time,
                walls[walls.size() / 2], result.stats.rhs_evals, result.stats.jac_evals,
                result.stats.steps, result.state_events + result.time_events);
    return 0;
  } catch (const InputError& error) {
    std::printf("%-22s %s\n", scene.c_str(), error.what());
    return 2;
  } catch (const std::exception& error) {
    std::printf("%-22s error: %s\n", scene.c_str(), error.what());
    return 3;
  }
}

}  // namespace

std::vector<std::string> default_bench_scenes() {
  return {"bouncing_sphere",  "newtons_cradle", "billiards_16",
          "box_resting_flat", "grid_10x10",     "pile_100"};
}

int bench_command(const BenchCommandOptions& options) {
  if (options.repeat < 1) {
    std::cerr << fmt::format("hybridsim: --repeat = {}: must be at least 1\n", options.repeat);
    return 2;
  }
  if (options.stop_time < 0.0 || !std::isfinite(options.stop_time)) {
    std::cerr << fmt::format(
        "hybridsim: --stop-time = {}: must be positive (or 0: each scene's own)\n",
        options.stop_time);
    return 2;
  }
  const std::vector<std::string> scenes =
      options.scenes.empty() ? default_bench_scenes() : options.scenes;
  std::printf("%-22s %8s %10s %10s %8s %9s %8s %9s\n", "scene", "t_end s", "wall s", "RHS",
              "Jacobian", "steps", "events", "peak MiB");
  int worst = 0;
  for (const std::string& scene : scenes) {
    // Each scene in its own child process, so that the peak resident memory is that scene's.
    std::fflush(stdout);
    const pid_t child = fork();
    if (child < 0) {
      std::cerr << "hybridsim: bench: fork failed\n";
      return 3;
    }
    if (child == 0) {
      const int status = bench_scene(scene, options.repeat, options.stop_time);
      std::fflush(stdout);
      _exit(status);
    }
    int status = 0;
    rusage usage{};
    wait4(child, &status, 0, &usage);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
    if (code == 0)
      std::printf(" %9.1f\n",
                  static_cast<double>(usage.ru_maxrss) / 1024.0);  // ru_maxrss is in KiB
    std::fflush(stdout);
    worst = std::max(worst, code);
  }
  return worst;
}

}  // namespace hybridsim
