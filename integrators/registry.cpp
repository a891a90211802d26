#include <fmt/format.h>

#include "core/errors.hpp"
#include "integrators/cvode_integrator.hpp"
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
  return {
      {"cvode-bdf",
       "SUNDIALS CVODE, variable-order BDF (1-5), Newton iteration, dense linear solver"},
      {"cvode-adams", "SUNDIALS CVODE, variable-order Adams-Moulton (1-12), fixed-point iteration"},
      {"ida",
       "SUNDIALS IDA, variable-order BDF (1-5) on the DAE form (joint multipliers algebraic), "
       "Newton iteration, dense linear solver, IDACalcIC at every restart"},
  };
}

std::unique_ptr<Integrator> make_integrator(const std::string& name) {
  if (name == "cvode-bdf") return std::make_unique<CvodeIntegrator>(CvodeIntegrator::Method::bdf);
  if (name == "cvode-adams") {
    return std::make_unique<CvodeIntegrator>(CvodeIntegrator::Method::adams);
  }
  if (name == "ida") return std::make_unique<IdaIntegrator>();
  std::string known;
  for (const IntegratorInfo& info : list_integrators()) {
    known += (known.empty() ? "" : ", ") + info.name;
  }
  throw InputError(fmt::format("unknown integrator '{}' (known: {})", name, known));
}

}  // namespace hybridsim
