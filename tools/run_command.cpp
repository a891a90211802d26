#include "tools/run_command.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "integrators/hybrid_loop.hpp"
#include "models/scene_loader.hpp"
#include "tools/output_writers.hpp"

namespace hybridsim {
namespace {

SimulationOptions make_simulation_options(const Model& model, const RunCommandOptions& options) {
  SimulationOptions sim;
  sim.stop_time = options.stop_time.value_or(model.simulation.stop_time);
  sim.output_interval = options.output_interval.value_or(model.simulation.output_interval);
  sim.integrator.rtol = options.rtol.value_or(model.simulation.rtol);
  sim.integrator.atol = options.atol.value_or(
      model.simulation.atol.value_or(default_absolute_tolerance(sim.integrator.rtol)));
  sim.integrator.max_step = model.simulation.max_step;
  sim.max_events_per_second = model.contact.max_events_per_second;
  for (const auto& [name, value] :
       {std::pair{"--stop-time", sim.stop_time},
        std::pair{"--output-interval", sim.output_interval},
        std::pair{"--rtol", sim.integrator.rtol}, std::pair{"--atol", sim.integrator.atol}}) {
    if (!(value > 0.0) || !std::isfinite(value)) {
      throw InputError(fmt::format("{} = {}: must be a positive finite number", name, value));
    }
  }
  return sim;
}

}  // namespace

int run_command(const RunCommandOptions& options) {
  try {
    const Model model = load_scene_file(options.scene, options.overrides);
    const SimulationOptions sim = make_simulation_options(model, options);
    const std::string integrator_name = options.integrator.value_or(model.simulation.integrator);
    auto integrator = make_integrator(integrator_name);

    MultibodySystem system(model);
    RunOutputs outputs;
    outputs.trajectory_path = options.trajectory_path;
    outputs.events_path = options.events_path;
    outputs.contacts_path = options.contacts_path;
    outputs.log_events = options.log_events;
    outputs.progress = options.progress || (!options.quiet && isatty(STDERR_FILENO) != 0);
    std::ofstream summary_file;
    if (!options.summary_path.empty()) {
      summary_file.open(options.summary_path);
      if (!summary_file) {
        throw InputError(fmt::format("{}: cannot open for writing", options.summary_path));
      }
    }
    RunWriter writer(system, outputs, sim.start_time, sim.stop_time);

    HybridLoop simulator(system, *integrator, sim);
    const auto started = std::chrono::steady_clock::now();
    const SimulationResult result = simulator.run(&writer);
    const double wall_time =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    writer.finish();

    if (summary_file.is_open()) {
      summary_file << make_summary(system, sim, integrator_name, result, simulator.state(),
                                   writer.initial_energy(), wall_time)
                          .dump(2)
                   << '\n';
    }
    if (!options.quiet) {
      std::cout << fmt::format(
          "{}: {} at t = {:.10g} s, {} contact starts, {} contact ends, {} steps, {} RHS "
          "evaluations, {:.3f} s wall\n",
          model.name, to_string(result.status), result.t_end, result.contact_starts,
          result.contact_ends, result.stats.steps, result.stats.rhs_evals, wall_time);
    }
    if (result.status != SimulationStatus::ok) {
      std::cerr << fmt::format("hybridsim: {}: {}\n", to_string(result.status), result.message);
      return 3;
    }
    return 0;
  } catch (const InputError& error) {
    std::cerr << "hybridsim: " << error.what() << '\n';
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "hybridsim: error: " << error.what() << '\n';
    return 3;
  }
}

}  // namespace hybridsim
