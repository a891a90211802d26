// The counters of a run (SimulationResult) in one table, in the order every output lists them:
// the summary's "stats", the checkpoint's "counters", the batch's result columns and the Python
// statistics read it; the C API's hybridsim_statistics has the same fields in the same order
// (tests/api/c_api_test.cpp compares them).
#pragma once

#include <array>

#include "integrators/simulation.hpp"

namespace hybridsim {

struct RunCounter {
  const char* name;                         // as in the outputs ("steps", "rhs_evals", ...)
  const char* description;                  // one line, for documentation
  long IntegratorStats::*integrator_field;  // one of the two is set
  long SimulationResult::*result_field;

  long get(const SimulationResult& result) const {
    return integrator_field != nullptr ? result.stats.*integrator_field : result.*result_field;
  }
  long& ref(SimulationResult& result) const {
    return integrator_field != nullptr ? result.stats.*integrator_field : result.*result_field;
  }
};

inline constexpr std::array<RunCounter, 14> kRunCounters = {{
    {"steps", "integrator steps", &IntegratorStats::steps, nullptr},
    {"rhs_evals", "right-hand-side evaluations, including those for Jacobians",
     &IntegratorStats::rhs_evals, nullptr},
    {"jac_evals", "Jacobian evaluations", &IntegratorStats::jac_evals, nullptr},
    {"root_evals", "crossing-function evaluations", &IntegratorStats::root_evals, nullptr},
    {"error_test_fails", "steps rejected by the error test", &IntegratorStats::error_test_fails,
     nullptr},
    {"nonlinear_iters", "nonlinear solver iterations", &IntegratorStats::nonlinear_iters, nullptr},
    {"nonlinear_conv_fails", "nonlinear solver convergence failures",
     &IntegratorStats::nonlinear_conv_fails, nullptr},
    {"state_events", "instants at which a crossing function triggered", nullptr,
     &SimulationResult::state_events},
    {"time_events", "input breakpoints, host input changes, bilateral switches by time or host",
     nullptr, &SimulationResult::time_events},
    {"contact_starts", "contact_start records", nullptr, &SimulationResult::contact_starts},
    {"contact_ends", "contact_end records", nullptr, &SimulationResult::contact_ends},
    {"bilateral_switches", "bilateral_on and bilateral_off records", nullptr,
     &SimulationResult::bilateral_switches},
    {"stick_slip_switches", "stick and slip records", nullptr,
     &SimulationResult::stick_slip_switches},
    {"restarts", "integrator re-initialisations", nullptr, &SimulationResult::restarts},
}};

}  // namespace hybridsim
