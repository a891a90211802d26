#include "integrators/ida_integrator.hpp"

#include <fmt/format.h>
#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cmath>
#include <utility>

#include "core/errors.hpp"
#include "integrators/sundials_support.hpp"

namespace hybridsim {
namespace {

// Absolute tolerance of the algebraic variables (for joints: multipliers, N or N m). They are
// excluded from the error test; this only scales them in the Newton convergence test, where a
// tolerance of the states' size would demand multipliers to ~1e-12 N.
constexpr double kAlgebraicAbsoluteTolerance = 1e-6;

}  // namespace

using sundials::as_eigen;
using sundials::check_flag;
using sundials::check_pointer;
using sundials::new_dense_matrix;

struct IdaIntegrator::Solver {
  HybridSystem* system = nullptr;
  SUNContext context = nullptr;
  void* ida = nullptr;
  N_Vector y = nullptr;
  N_Vector yp = nullptr;
  N_Vector scratch = nullptr;
  N_Vector id = nullptr;
  N_Vector atol = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver linear_solver = nullptr;
  int state_size = 0;
  int crossing_count = 0;
  std::exception_ptr callback_exception;
  std::string last_message;

  ~Solver() {
    if (ida != nullptr) IDAFree(&ida);
    if (linear_solver != nullptr) SUNLinSolFree(linear_solver);
    if (matrix != nullptr) SUNMatDestroy(matrix);
    for (N_Vector v : {y, yp, scratch, id, atol}) {
      if (v != nullptr) N_VDestroy(v);
    }
    if (context != nullptr) SUNContext_Free(&context);
  }

  // F(t, y, y'): 0 on success, +1 (recoverable) on a non-finite residual, -1 after an exception.
  static int residual(realtype t, N_Vector y, N_Vector yp, N_Vector r, void* user_data) noexcept {
    auto* self = static_cast<Solver*>(user_data);
    try {
      auto out = as_eigen(r);
      self->system->compute_residual(t, as_eigen(y), as_eigen(yp), out);
      return out.allFinite() ? 0 : 1;
    } catch (...) {
      self->callback_exception = std::current_exception();
      return -1;
    }
  }

  static int roots(realtype t, N_Vector y, N_Vector /*yp*/, realtype* gout,
                   void* user_data) noexcept {
    auto* self = static_cast<Solver*>(user_data);
    try {
      Eigen::Map<Eigen::VectorXd> z(gout, self->crossing_count);
      self->system->compute_crossings(t, as_eigen(y).head(self->state_size), z);
      return z.allFinite() ? 0 : -1;
    } catch (...) {
      self->callback_exception = std::current_exception();
      return -1;
    }
  }

  void rethrow_callback_exception() { sundials::rethrow_callback_exception(*this); }

  // y = (x, guessed algebraic variables), y' = (f(t, x), 0): consistent for the differential
  // part of a system whose ODE form is exact, and a starting point for IDACalcIC otherwise.
  void load_state(double t, const VectorX& x) {
    auto y_all = as_eigen(y);
    auto yp_all = as_eigen(yp);
    y_all.head(state_size) = x;
    auto algebraic = y_all.tail(y_all.size() - state_size);
    system->guess_algebraic(t, x, algebraic);
    auto f = yp_all.head(state_size);
    system->compute_derivatives(t, x, f);
    yp_all.tail(yp_all.size() - state_size).setZero();
  }

  // IDACalcIC: the algebraic variables and y' from the differential variables at t.
  void compute_consistent_start(double t) {
    last_message.clear();
    const int flag = IDACalcIC(ida, IDA_YA_YDP_INIT, t + 1e-3 * std::max(1.0, std::abs(t)));
    rethrow_callback_exception();
    if (flag < 0) {
      throw SolverError(fmt::format("IDACalcIC failed with flag {} at t = {:.17g}: {}", flag, t,
                                    last_message.empty() ? "no message" : last_message));
    }
    check_flag(IDAGetConsistentIC(ida, y, yp), "IDAGetConsistentIC");
  }
};

IdaIntegrator::IdaIntegrator() = default;
IdaIntegrator::~IdaIntegrator() = default;

void IdaIntegrator::initialize(HybridSystem& system, double t0, const VectorX& x0,
                               const IntegratorSettings& settings) {
  check_integrator_settings(name(), settings);
  solver_ = std::make_unique<Solver>();
  Solver& s = *solver_;
  s.system = &system;
  s.state_size = system.state_size();
  const auto n = static_cast<sunindextype>(s.state_size + system.algebraic_size());
  check_flag(SUNContext_Create(nullptr, &s.context), "SUNContext_Create");
  for (N_Vector* v : {&s.y, &s.yp, &s.scratch, &s.id, &s.atol}) {
    *v = sundials::new_state_vector(n, s.context);
  }
  // id: 1 for the differential variables (x), 0 for the algebraic ones.
  as_eigen(s.id).setZero();
  as_eigen(s.id).head(s.state_size).setOnes();
  as_eigen(s.atol).setConstant(kAlgebraicAbsoluteTolerance);
  as_eigen(s.atol).head(s.state_size).setConstant(settings.atol);
  s.load_state(t0, x0);

  s.ida = check_pointer(IDACreate(s.context), "IDACreate");
  check_flag(IDASetErrHandlerFn(s.ida, &sundials::record_error_message<Solver>, &s),
             "IDASetErrHandlerFn");
  check_flag(IDAInit(s.ida, &Solver::residual, t0, s.y, s.yp), "IDAInit");
  check_flag(IDASetUserData(s.ida, &s), "IDASetUserData");
  check_flag(IDASVtolerances(s.ida, settings.rtol, s.atol), "IDASVtolerances");
  check_flag(IDASetId(s.ida, s.id), "IDASetId");
  check_flag(IDASetSuppressAlg(s.ida, SUNTRUE), "IDASetSuppressAlg");
  check_flag(IDASetMaxNumSteps(s.ida, 1000000), "IDASetMaxNumSteps");
  s.matrix = new_dense_matrix(
      n, s.context, "ida has the dense solver only; use cvode-bdf with linear_solver klu or gmres");
  s.linear_solver = check_pointer(SUNLinSol_Dense(s.y, s.matrix, s.context), "SUNLinSol_Dense");
  check_flag(IDASetLinearSolver(s.ida, s.linear_solver, s.matrix), "IDASetLinearSolver");

  s.crossing_count = system.crossing_count();
  if (s.crossing_count > 0) {
    check_flag(IDARootInit(s.ida, s.crossing_count, &Solver::roots), "IDARootInit");
    std::vector<int> directions = system.crossing_directions();
    check_flag(IDASetRootDirection(s.ida, directions.data()), "IDASetRootDirection");
    check_flag(IDASetNoInactiveRootWarn(s.ida), "IDASetNoInactiveRootWarn");
  }
  if (settings.min_step > 0.0) check_flag(IDASetMinStep(s.ida, settings.min_step), "IDASetMinStep");
  set_max_step(settings.max_step);
  s.compute_consistent_start(t0);
}

void IdaIntegrator::reinitialize(double t, const VectorX& x) {
  Solver& s = *solver_;
  s.load_state(t, x);
  check_flag(IDAReInit(s.ida, t, s.y, s.yp), "IDAReInit");
  s.compute_consistent_start(t);
}

void IdaIntegrator::set_max_step(double max_step) {
  // IDA takes 0 for "no bound".
  check_flag(IDASetMaxStep(solver_->ida, std::isfinite(max_step) ? max_step : 0.0),
             "IDASetMaxStep");
}

StepResult IdaIntegrator::step(double t_stop) {
  Solver& s = *solver_;
  StepResult result;
  check_flag(IDASetStopTime(s.ida, t_stop), "IDASetStopTime");
  realtype t_reached = 0.0;
  s.last_message.clear();
  const int flag = IDASolve(s.ida, t_stop, &t_reached, s.y, s.yp, IDA_ONE_STEP);
  s.rethrow_callback_exception();
  result.t = t_reached;
  if (flag == IDA_ROOT_RETURN) {
    result.status = StepResult::Status::root_found;
    result.roots_found.assign(s.crossing_count, 0);
    check_flag(IDAGetRootInfo(s.ida, result.roots_found.data()), "IDAGetRootInfo");
  } else if (flag == IDA_TSTOP_RETURN) {
    result.status = StepResult::Status::stop_time_reached;
  } else if (flag >= 0) {
    result.status = StepResult::Status::step_taken;
  } else {
    result.status = StepResult::Status::failure;
    result.message = fmt::format("IDASolve returned flag {} at t = {:.17g}: {}", flag, t_reached,
                                 s.last_message.empty() ? "no message" : s.last_message);
  }
  return result;
}

void IdaIntegrator::current_state(VectorX& x) const {
  x = as_eigen(solver_->y).head(solver_->state_size);
}

void IdaIntegrator::interpolate(double t, VectorX& x) const {
  Solver& s = *solver_;
  check_flag(IDAGetDky(s.ida, t, 0, s.scratch), "IDAGetDky");
  x = as_eigen(s.scratch).head(s.state_size);
}

IntegratorStats IdaIntegrator::segment_statistics() const {
  if (!solver_) return {};
  void* ida = solver_->ida;
  IntegratorStats stats;
  long residuals = 0, linear_residuals = 0;
  check_flag(IDAGetNumSteps(ida, &stats.steps), "IDAGetNumSteps");
  check_flag(IDAGetNumResEvals(ida, &residuals), "IDAGetNumResEvals");
  check_flag(IDAGetNumLinResEvals(ida, &linear_residuals), "IDAGetNumLinResEvals");
  check_flag(IDAGetNumJacEvals(ida, &stats.jac_evals), "IDAGetNumJacEvals");
  stats.rhs_evals = residuals + linear_residuals;
  if (solver_->crossing_count > 0)
    check_flag(IDAGetNumGEvals(ida, &stats.root_evals), "IDAGetNumGEvals");
  check_flag(IDAGetNumErrTestFails(ida, &stats.error_test_fails), "IDAGetNumErrTestFails");
  check_flag(IDAGetNumNonlinSolvIters(ida, &stats.nonlinear_iters), "IDAGetNumNonlinSolvIters");
  check_flag(IDAGetNumNonlinSolvConvFails(ida, &stats.nonlinear_conv_fails),
             "IDAGetNumNonlinSolvConvFails");
  return stats;
}

}  // namespace hybridsim
