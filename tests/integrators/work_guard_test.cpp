// The work guard of the hybrid loop (SimulationOptions::time_limit, step_budget, stall_window):
// every run ends, with its status, its warning and the outputs up to where it stopped.
// The problem: x' = -k x with k = 3e7 1/s under an explicit method, whose stability bounds the
// step near 3 / k = 1e-7 s, so that a run of 1e6 s of simulated time cannot advance by 1e-6 of
// its length (1 s) in any reasonable wall time: the shape of a run that stalls on a contact law
// too stiff for its method. (Steps below 4e-14 of the stop time are the loop's "no progress"
// step failure, a separate guard.)
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "integrators/hybrid_loop.hpp"
#include "integrators/integrator.hpp"

namespace hybridsim {
namespace {

class StiffDecay final : public HybridSystem {
 public:
  int state_size() const override { return 1; }
  void initial_state(VectorRef x0) const override { x0[0] = 1.0; }
  EventOutcome initialize(double, VectorRef) override { return {}; }
  void compute_derivatives(double, ConstVectorRef x, VectorRef xdot) override {
    ++rhs_;
    xdot[0] = -3e7 * x[0];
  }
  int crossing_count() const override { return 0; }
  std::vector<int> crossing_directions() const override { return {}; }
  void compute_crossings(double, ConstVectorRef, VectorRef) override {}
  EventOutcome handle_state_event(double, VectorRef, std::span<const int>) override { return {}; }
  long rhs_evaluation_count() const override { return rhs_; }

 private:
  long rhs_ = 0;
};

struct Watcher : SimulationObserver {
  std::vector<double> output_times;
  std::vector<Warning> warnings;
  void on_output(double t, const VectorX&) override { output_times.push_back(t); }
  void on_warning(const Warning& warning) override { warnings.push_back(warning); }
};

struct Guarded {
  SimulationResult result;
  Watcher watcher;
  double wall = 0.0;  // s
};

Guarded run_guarded(SimulationOptions options) {
  StiffDecay system;
  auto integrator = make_integrator("arkode-erk");
  options.stop_time = 1e6;
  options.output_interval = 1e5;
  // The first steps of the decay are far below the loop's default smallest step (1e-14 of the
  // stop time, 1e-8 s).
  options.integrator.min_step = 1e-18;
  HybridLoop loop(system, *integrator, options);
  Guarded run;
  const auto start = std::chrono::steady_clock::now();
  run.result = loop.run(&run.watcher);
  run.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace

TEST_CASE("work guard: a stalled run stops with status stalled and a stall warning") {
  SimulationOptions options;
  options.stall_window = 0.3;  // s; 10 s by default
  options.step_budget = 0.0;
  const Guarded run = run_guarded(options);
  CHECK(run.result.status == SimulationStatus::stalled);
  CHECK(run.result.message.find("simulated time advanced") != std::string::npos);
  REQUIRE(run.watcher.warnings.size() == 1);
  CHECK(run.watcher.warnings[0].kind == "stall");
  // It stops after one window (the clock is read every 64 steps, microseconds here); 2 s bounds
  // a loaded machine.
  CHECK(run.wall >= 0.3);
  CHECK(run.wall < 2.0);
  // The outputs: the start, and the final one where it stopped.
  REQUIRE(run.watcher.output_times.size() == 2);
  CHECK(run.watcher.output_times.back() == run.result.t_end);
  CHECK(run.result.t_end > 0.0);
}

TEST_CASE("work guard: the wall-time limit stops the run with status time_limit") {
  SimulationOptions options;
  options.time_limit = 0.2;  // s
  options.stall_window = 0.0;
  options.step_budget = 0.0;
  const Guarded run = run_guarded(options);
  CHECK(run.result.status == SimulationStatus::time_limit);
  CHECK(run.watcher.warnings.empty());
  CHECK(run.wall >= 0.2);
  CHECK(run.wall < 2.0);
  CHECK(run.watcher.output_times.back() == run.result.t_end);
}

TEST_CASE("work guard: the step budget stops a run that needs more steps than it allows") {
  SimulationOptions options;
  options.stall_window = 0.0;
  options.step_budget = 1.0;  // one step per simulated second, after the allowance
  const Guarded run = run_guarded(options);
  CHECK(run.result.status == SimulationStatus::step_budget);
  // Exactly the allowance plus what the budget grants for the time advanced (0.1 s: 0 steps).
  CHECK(run.result.stats.steps == static_cast<long>(kStepBudgetAllowance) + 1);
  CHECK(run.watcher.output_times.back() == run.result.t_end);
}

}  // namespace hybridsim

namespace hybridsim {
namespace {

// 20,000 uncoupled decays x' = -x: a state too large for a dense Jacobian (3.2 GB).
class ManyDecays final : public HybridSystem {
 public:
  int state_size() const override { return 20000; }
  void initial_state(VectorRef x0) const override { x0.setOnes(); }
  EventOutcome initialize(double, VectorRef) override { return {}; }
  void compute_derivatives(double, ConstVectorRef x, VectorRef xdot) override { xdot = -x; }
  int crossing_count() const override { return 0; }
  std::vector<int> crossing_directions() const override { return {}; }
  void compute_crossings(double, ConstVectorRef, VectorRef) override {}
  EventOutcome handle_state_event(double, VectorRef, std::span<const int>) override { return {}; }
  long rhs_evaluation_count() const override { return 0; }
};

}  // namespace

TEST_CASE("a dense Jacobian too large to allocate is refused, naming the solvers to use") {
  // SUNDIALS would return a null matrix (or the machine swap): the run stops with a message that
  // says how large the matrix would be and what to choose instead, before any step.
  for (const char* name : {"cvode-bdf", "arkode-dirk"}) {
    ManyDecays system;
    auto integrator = make_integrator(name);
    SimulationOptions options;
    options.stop_time = 1.0;
    HybridLoop loop(system, *integrator, options);
    const SimulationResult result = loop.run(nullptr);
    CAPTURE(name);
    CHECK(result.status == SimulationStatus::error);
    CHECK(result.message.find("a dense Jacobian of 20000 states would take 3.2 GB") !=
          std::string::npos);
    CHECK(result.message.find("gmres") != std::string::npos);
  }
}

}  // namespace hybridsim
