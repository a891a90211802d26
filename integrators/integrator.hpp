// The Integrator interface: one implementation per method family (SUNDIALS CVODE here; ARKODE,
// IDA and fixed-step methods slot in behind the same calls). An integrator advances a
// HybridSystem one internal step at a time, locates roots of its crossing functions, gives dense
// output over its last step, and restarts at events.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/hybrid_system.hpp"

namespace hybridsim {

// Tolerances and step bounds of one integration.
struct IntegratorSettings {
  double rtol = 1e-6;  // relative tolerance, dimensionless
  // Absolute tolerance, one value for every state, in that state's unit (for scenes: m, the
  // dimensionless quaternion, m/s, rad/s).
  double atol = 1e-8;
  double max_step = kInfinity;  // s; +inf: no bound
  // Smallest step the method may take, s; 0 for the Simulator's default, 1e-14 max(1, |t_stop|)
  // (a few units in the last place of t): a method that needs less has failed.
  double min_step = 0.0;
  // Butcher table of arkode-erk and arkode-dirk, by the names list_integrators() gives; empty: the
  // method's default.
  std::string table = {};
  // Linear solver of the Newton iterations of cvode-bdf and arkode-dirk: "dense" (the default
  // when empty), "gmres" (matrix-free, unpreconditioned) or, for cvode-bdf, "klu" (sparse direct
  // on the pattern of HybridSystem::state_blocks, rebuilt at every restart; dense block LU where
  // it pays) and "klu-plain" (the same with KLU only).
  std::string linear_solver = {};
  // Step of the fixed-step methods, s; they require it (> 0), the adaptive ones ignore it. Steps
  // are shortened only to end at time events, at the stop time and within max_step.
  double step_size = 0.0;
};

// Counters of one integration segment (since the last (re)initialisation) or summed over all.
struct IntegratorStats {
  long steps = 0;                 // internal steps taken
  long rhs_evals = 0;             // right-hand-side evaluations, including those for Jacobians
  long jac_evals = 0;             // Jacobian evaluations (0 for methods without a Jacobian)
  long root_evals = 0;            // evaluations of the crossing functions
  long error_test_fails = 0;      // steps rejected by the local error test
  long nonlinear_iters = 0;       // iterations of the nonlinear solver
  long nonlinear_conv_fails = 0;  // convergence failures of the nonlinear solver

  // Adds the counters of another segment.
  IntegratorStats& operator+=(const IntegratorStats& other);
};

// The outcome of Integrator::step.
struct StepResult {
  // step_taken: an internal step before t_stop. root_found: a crossing function reached zero in
  // the triggering direction (t is the root). stop_time_reached: the step ended at t_stop.
  // failure: no step could be taken (see message).
  enum class Status { step_taken, root_found, stop_time_reached, failure };
  Status status = Status::step_taken;
  double t = 0.0;                // s, time reached (the root at a root)
  std::vector<int> roots_found;  // per crossing function at a root: +1/-1 direction, 0 none
  std::string message;           // failures: the solver's own message
};

class Integrator {
 public:
  virtual ~Integrator() = default;

  // The registry name, as given to make_integrator (e.g. "cvode-bdf").
  virtual std::string name() const = 0;

  // Binds the system and starts at (t0, x0). The system must outlive the integrator.
  virtual void initialize(HybridSystem& system, double t0, const VectorX& x0,
                          const IntegratorSettings& settings) = 0;
  // Restarts at (t, x) after an event; the statistics of the segment are reset.
  virtual void reinitialize(double t, const VectorX& x) = 0;
  // Bounds the step size from now on, s; +inf: no bound.
  virtual void set_max_step(double max_step) = 0;

  // One internal step that does not pass t_stop (s; the step ends exactly there if it reaches it).
  virtual StepResult step(double t_stop) = 0;

  // State at the current time (after a root: at the root).
  virtual void current_state(VectorX& x) const = 0;
  // Dense output anywhere in the last step, [t_prev, t].
  virtual void interpolate(double t, VectorX& x) const = 0;

  // Counters since the last initialize or reinitialize.
  virtual IntegratorStats segment_statistics() const = 0;
};

// Creates an integrator by registry name; InputError for an unknown name.
std::unique_ptr<Integrator> make_integrator(const std::string& name);

// One entry of the integrator registry.
struct IntegratorInfo {
  std::string name;         // registry name for make_integrator and the scene's `integrator`
  std::string description;  // one line: library, method, nonlinear and linear solvers
  std::vector<std::string> tables = {};  // names for IntegratorSettings::table; first: default
  // Choices of IntegratorSettings::linear_solver; the first is the default.
  std::vector<std::string> linear_solvers = {};
  bool fixed_step = false;  // needs IntegratorSettings::step_size
};
// Every integrator make_integrator knows, in a fixed order.
std::vector<IntegratorInfo> list_integrators();

// Checks the method options of `settings` (table, linear_solver, step_size) against the
// integrator `name`: an InputError that names the option, its value and the choices otherwise.
void check_integrator_settings(const std::string& name, const IntegratorSettings& settings);

}  // namespace hybridsim
