#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/errors.hpp"
#include "integrators/arkode_integrator.hpp"
#include "integrators/cvode_integrator.hpp"
#include "integrators/fixed_step_integrator.hpp"
#include "integrators/ida_integrator.hpp"
#include "integrators/integrator.hpp"

namespace hybridsim {

IntegratorStats& IntegratorStats::operator+=(const IntegratorStats& other) {
  steps += other.steps;
  rhs_evals += other.rhs_evals;
  jac_evals += other.jac_evals;
  root_evals += other.root_evals;
  error_test_fails += other.error_test_fails;
  nonlinear_iters += other.nonlinear_iters;
  nonlinear_conv_fails += other.nonlinear_conv_fails;
  return *this;
}

std::vector<IntegratorInfo> list_integrators() {
  const std::vector<std::string> newton_solvers = {"dense", "gmres"};
  return {
      {.name = "cvode-bdf",
       .description = "SUNDIALS CVODE, variable-order BDF (1-5), Newton iteration with a dense "
                      "(difference-quotient Jacobian), KLU sparse (the bodies' coupling pattern, "
                      "coloured difference quotients, positions and orientations eliminated "
                      "per body, dense 6x6 block LU from 32 bodies; klu-plain: KLU only) or "
                      "matrix-free GMRES linear solver",
       .linear_solvers = {"dense", "klu", "klu-plain", "gmres"}},
      {.name = "cvode-adams",
       .description = "SUNDIALS CVODE, variable-order Adams-Moulton (1-12), fixed-point iteration"},
      {.name = "ida",
       .description = "SUNDIALS IDA, variable-order BDF (1-5) on the DAE form (joint multipliers "
                      "algebraic), Newton iteration, dense linear solver, IDACalcIC at every "
                      "restart"},
      {.name = "arkode-erk",
       .description = "SUNDIALS ARKODE ERKStep (ARKStep's explicit mode for tables ERKStep of "
                      "SUNDIALS 6.4-6.6 would reuse a last stage wrongly: heun-euler, verner-6-5, "
                      "fehlberg-7-8), adaptive explicit Runge-Kutta pair (named table); with "
                      "step_size, fixed steps without error control",
       .tables = ArkodeIntegrator::table_names(ArkodeIntegrator::Method::erk)},
      {.name = "arkode-dirk",
       .description = "SUNDIALS ARKODE ARKStep, adaptive diagonally implicit Runge-Kutta (named "
                      "SDIRK/ESDIRK table), Newton iteration; with step_size, fixed steps",
       .tables = ArkodeIntegrator::table_names(ArkodeIntegrator::Method::dirk),
       .linear_solvers = newton_solvers},
      {.name = "euler", .description = "explicit Euler, fixed step (order 1)", .fixed_step = true},
      {.name = "semi-implicit-euler",
       .description =
           "semi-implicit (symplectic) Euler: velocities, then positions, fixed step (order 1)",
       .fixed_step = true},
      {.name = "rk4",
       .description = "classical Runge-Kutta, fixed step (order 4)",
       .fixed_step = true},
      {.name = "implicit-euler",
       .description = "implicit Euler, fixed step (order 1), modified Newton with a "
                      "difference-quotient Jacobian and dense LU",
       .fixed_step = true},
  };
}

std::unique_ptr<Integrator> make_integrator(const std::string& name) {
  if (name == "cvode-bdf") return std::make_unique<CvodeIntegrator>(CvodeIntegrator::Method::bdf);
  if (name == "cvode-adams") {
    return std::make_unique<CvodeIntegrator>(CvodeIntegrator::Method::adams);
  }
  if (name == "ida") return std::make_unique<IdaIntegrator>();
  if (name == "arkode-erk") {
    return std::make_unique<ArkodeIntegrator>(ArkodeIntegrator::Method::erk);
  }
  if (name == "arkode-dirk") {
    return std::make_unique<ArkodeIntegrator>(ArkodeIntegrator::Method::dirk);
  }
  using Fixed = FixedStepIntegrator::Method;
  if (name == "euler") return std::make_unique<FixedStepIntegrator>(Fixed::euler);
  if (name == "semi-implicit-euler") {
    return std::make_unique<FixedStepIntegrator>(Fixed::semi_implicit_euler);
  }
  if (name == "rk4") return std::make_unique<FixedStepIntegrator>(Fixed::rk4);
  if (name == "implicit-euler") return std::make_unique<FixedStepIntegrator>(Fixed::implicit_euler);
  std::vector<std::string> known;
  for (const IntegratorInfo& info : list_integrators()) known.push_back(info.name);
  throw InputError(
      fmt::format("unknown integrator '{}' (known: {})", name, fmt::join(known, ", ")));
}

void check_integrator_settings(const std::string& name, const IntegratorSettings& settings) {
  const std::vector<IntegratorInfo> list = list_integrators();
  const auto info = std::find_if(list.begin(), list.end(),
                                 [&](const IntegratorInfo& entry) { return entry.name == name; });
  if (info == list.end()) make_integrator(name);  // throws the unknown-name error
  auto check_choice = [&](const char* option, const std::string& value,
                          const std::vector<std::string>& choices) {
    if (value.empty() || std::find(choices.begin(), choices.end(), value) != choices.end()) return;
    if (choices.empty()) {
      throw InputError(
          fmt::format("{} '{}': integrator {} has no {} option", option, value, name, option));
    }
    throw InputError(fmt::format("{} '{}' is not one of {}'s: {}", option, value, name,
                                 fmt::join(choices, ", ")));
  };
  check_choice("table", settings.table, info->tables);
  check_choice("linear_solver", settings.linear_solver, info->linear_solvers);
  if (settings.step_size != 0.0 &&
      !(settings.step_size > 0.0 && std::isfinite(settings.step_size))) {
    throw InputError(fmt::format("step_size = {}: must be a positive finite step, s (0: none)",
                                 settings.step_size));
  }
  if (info->fixed_step && !(settings.step_size > 0.0 && std::isfinite(settings.step_size))) {
    throw InputError(fmt::format(
        "step_size = {}: the fixed-step integrator {} needs a positive finite step size, s",
        settings.step_size, name));
  }
}

}  // namespace hybridsim
