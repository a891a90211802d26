#include "integrators/cvode_integrator.hpp"

#include <cvode/cvode.h>
#include <fmt/format.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>

#include "core/errors.hpp"
#include "integrators/block_jacobian.hpp"
#include "integrators/reduced_klu_solver.hpp"
#include "integrators/sundials_support.hpp"

namespace hybridsim {
using sundials::as_eigen;
using sundials::check_flag;
using sundials::check_pointer;
using sundials::new_dense_matrix;

struct CvodeIntegrator::Solver {
  HybridSystem* system = nullptr;
  SUNContext context = nullptr;
  void* cvode = nullptr;
  N_Vector y = nullptr;
  N_Vector scratch = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver linear_solver = nullptr;
  SUNNonlinearSolver nonlinear_solver = nullptr;
  int crossing_count = 0;
  double rtol = 0.0, atol = 0.0;
  std::exception_ptr callback_exception;
  std::string last_message;

  // linear_solver "klu": the sparsity of the system's blocks and their couplings, the Jacobian's
  // values in that pattern (empty until evaluated), whether the matrix holds the pattern yet, the
  // error weights for the difference quotients, and the right-hand sides those took in this
  // segment.
  bool sparse = false;
  bool dense_jacobian = false;  // the dense solver's Jacobian by dense_jacobian() below
  BlockJacobian jacobian;
  std::vector<double> jacobian_values;
  bool pattern_written = false;
  std::vector<int> block_of_state;
  std::vector<std::pair<int, int>> coupled_blocks;
  std::vector<char> local_states;
  N_Vector error_weights = nullptr;
  long jacobian_rhs_evals = 0;

  ~Solver() {
    if (cvode != nullptr) CVodeFree(&cvode);
    if (nonlinear_solver != nullptr) SUNNonlinSolFree(nonlinear_solver);
    if (linear_solver != nullptr) SUNLinSolFree(linear_solver);
    if (matrix != nullptr) SUNMatDestroy(matrix);
    if (scratch != nullptr) N_VDestroy(scratch);
    if (error_weights != nullptr) N_VDestroy(error_weights);
    if (y != nullptr) N_VDestroy(y);
    if (context != nullptr) SUNContext_Free(&context);
  }
};

namespace {

// Per state, the smallest difference-quotient increment (BlockJacobian::set_increment_floor):
// sqrt(u) times the system's scale of the state (HybridSystem::state_scales), 0 without one.
std::vector<double> increment_floor(const HybridSystem& system, long n) {
  std::vector<double> floor(static_cast<std::size_t>(n), 0.0);
  const std::vector<double> scales = system.state_scales();
  const double sqrt_roundoff = std::sqrt(0x1p-52);
  for (std::size_t i = 0; i < scales.size() && i < floor.size(); ++i) {
    floor[i] = sqrt_roundoff * scales[i];
  }
  return floor;
}

// CVLsJacFn of the dense solver: CVODE's difference quotient (one right-hand side per column,
// its increments), with the increment floor of the system's state scales (one block of all
// states in BlockJacobian, whose values in column order are the dense matrix's).
int dense_jacobian(realtype t, N_Vector y, N_Vector fy, SUNMatrix J, void* user_data,
                   N_Vector f_perturbed, N_Vector /*tmp2*/, N_Vector /*tmp3*/) noexcept {
  auto* self = static_cast<CvodeIntegrator::Solver*>(user_data);
  try {
    realtype h = 0.0;
    check_flag(CVodeGetCurrentStep(self->cvode, &h), "CVodeGetCurrentStep");
    check_flag(CVodeGetErrWeights(self->cvode, self->error_weights), "CVodeGetErrWeights");
    const int n = self->jacobian.state_count();
    auto rhs = [self, n](double time, double* state, double* derivative, std::span<const int>) {
      ++self->jacobian_rhs_evals;
      self->system->compute_derivatives(time, Eigen::Map<const Eigen::VectorXd>(state, n),
                                        Eigen::Map<Eigen::VectorXd>(derivative, n));
      return 0;
    };
    return self->jacobian.compute(t, h, N_VGetArrayPointer(y), N_VGetArrayPointer(fy),
                                  N_VGetArrayPointer(self->error_weights),
                                  N_VGetArrayPointer(f_perturbed), SM_DATA_D(J), rhs);
  } catch (...) {
    self->callback_exception = std::current_exception();
    return -1;
  }
}

// CVLsLinSysFn for linear_solver "klu": the Newton matrix A = I - gamma J written directly in
// the block pattern. J is the block-sparse difference-quotient Jacobian (one right-hand side per
// colour, integrators/block_jacobian.hpp), kept here between evaluations; CVODE's own path would
// zero and copy the whole CSC matrix, pattern included, and scale-add the identity at every
// setup (a fifth of a large pile's run time), where this writes each value once.
int sparse_linear_system(realtype t, N_Vector y, N_Vector fy, SUNMatrix A, booleantype jacobian_ok,
                         booleantype* jacobian_current, realtype gamma, void* user_data,
                         N_Vector f_perturbed, N_Vector /*tmp2*/, N_Vector /*tmp3*/) noexcept {
  auto* self = static_cast<CvodeIntegrator::Solver*>(user_data);
  try {
    BlockJacobian& jacobian = self->jacobian;
    const auto nonzeros = static_cast<std::size_t>(jacobian.nonzero_count());
    if (!self->pattern_written) {
      jacobian.write_pattern(SM_INDEXPTRS_S(A), SM_INDEXVALS_S(A));
      self->pattern_written = true;
    }
    *jacobian_current = SUNFALSE;
    if (!jacobian_ok || self->jacobian_values.size() != nonzeros) {
      // The step CVODE reports as current; it only scales the smallest increment (as h does in
      // CVODE's own dense difference quotient), so a step just cut after a failure changes little.
      realtype h = 0.0;
      check_flag(CVodeGetCurrentStep(self->cvode, &h), "CVodeGetCurrentStep");
      check_flag(CVodeGetErrWeights(self->cvode, self->error_weights), "CVodeGetErrWeights");
      self->jacobian_values.resize(nonzeros);
      const int n = jacobian.state_count();
      // A system that evaluates only the perturbed bodies and their neighbours needs the base
      // point first (one evaluation); the quotients' finiteness is checked by compute.
      const bool partial = self->system->prepare_partial_derivatives(
          t, Eigen::Map<const Eigen::VectorXd>(N_VGetArrayPointer(y), n));
      if (partial) ++self->jacobian_rhs_evals;
      auto rhs = [self, n, partial](double time, double* state, double* derivative,
                                    std::span<const int> perturbed) {
        ++self->jacobian_rhs_evals;
        Eigen::Map<Eigen::VectorXd> xdot(derivative, n);
        const Eigen::Map<const Eigen::VectorXd> x(state, n);
        if (partial) {
          self->system->compute_partial_derivatives(time, x, perturbed, xdot);
        } else {
          self->system->compute_derivatives(time, x, xdot);
        }
        return 0;
      };
      const int flag =
          jacobian.compute(t, h, N_VGetArrayPointer(y), N_VGetArrayPointer(fy),
                           N_VGetArrayPointer(self->error_weights), N_VGetArrayPointer(f_perturbed),
                           self->jacobian_values.data(), rhs);
      if (flag != 0) {
        self->jacobian_values.clear();  // partly overwritten: never reused
        return flag;
      }
      *jacobian_current = SUNTRUE;  // CVODE counts the evaluation
    }
    double* a = SM_DATA_S(A);
    const double* j = self->jacobian_values.data();
    for (std::size_t k = 0; k < nonzeros; ++k) a[k] = -gamma * j[k];
    for (const std::int64_t diagonal : jacobian.diagonal_positions()) a[diagonal] += 1.0;
    return 0;
  } catch (...) {
    self->jacobian_values.clear();
    self->callback_exception = std::current_exception();
    return -1;
  }
}

// CVEwtFn: the error weights 1 / (rtol |y_i| + atol) in one pass over the state, where CVODE's
// own scalar-tolerance weights take five (absolute value, scale, add, a minimum test, inverse).
// Same numbers, bit for bit; pile_1000 over 0.14 s takes 0.964 of the time (BENCHMARKS.md).
int error_weights(N_Vector y, N_Vector weights, void* user_data) noexcept {
  const auto* self = static_cast<const CvodeIntegrator::Solver*>(user_data);
  const realtype* state = N_VGetArrayPointer(y);
  realtype* weight = N_VGetArrayPointer(weights);
  const sunindextype n = N_VGetLength(y);
  for (sunindextype i = 0; i < n; ++i) {
    const double tolerance = self->rtol * std::abs(state[i]) + self->atol;
    if (!(tolerance > 0.0)) return -1;  // CVODE reports the failure (atol is positive, so only NaN)
    weight[i] = 1.0 / tolerance;
  }
  return 0;
}

}  // namespace

CvodeIntegrator::CvodeIntegrator(Method method) : method_(method) {}
CvodeIntegrator::~CvodeIntegrator() = default;

std::string CvodeIntegrator::name() const {
  return method_ == Method::bdf ? "cvode-bdf" : "cvode-adams";
}

void CvodeIntegrator::initialize(HybridSystem& system, double t0, const VectorX& x0,
                                 const IntegratorSettings& settings) {
  check_integrator_settings(name(), settings);
  solver_ = std::make_unique<Solver>();
  Solver& s = *solver_;
  s.system = &system;
  const auto n = static_cast<sunindextype>(system.state_size());
  check_flag(SUNContext_Create(nullptr, &s.context), "SUNContext_Create");
  s.y = sundials::new_state_vector(n, s.context);
  s.scratch = check_pointer(N_VNew_Serial(n, s.context), "N_VNew_Serial");
  as_eigen(s.y) = x0;

  s.cvode = check_pointer(CVodeCreate(method_ == Method::bdf ? CV_BDF : CV_ADAMS, s.context),
                          "CVodeCreate");
  check_flag(CVodeSetErrHandlerFn(s.cvode, &sundials::record_error_message<Solver>, &s),
             "CVodeSetErrHandlerFn");
  check_flag(CVodeInit(s.cvode, &sundials::ode_rhs<Solver>, t0, s.y), "CVodeInit");
  check_flag(CVodeSetUserData(s.cvode, &s), "CVodeSetUserData");
  s.rtol = settings.rtol;
  s.atol = settings.atol;
  check_flag(CVodeWFtolerances(s.cvode, &error_weights), "CVodeWFtolerances");
  check_flag(CVodeSetMaxNumSteps(s.cvode, 1000000), "CVodeSetMaxNumSteps");
  check_flag(CVodeSetMaxHnilWarns(s.cvode, -1), "CVodeSetMaxHnilWarns");

  if (method_ == Method::bdf) {
    // A contact-rich scene restarts every few steps (a 1,000-sphere pile: every 7.5 steps), so
    // the restart's first steps are much of the run. CVODE lets the second and third step grow
    // tenfold; just after an impact's onset that nearly always fails the error test (1,005
    // failures in 1,087 restarts of the pile at t = 0.29 s, each a wasted Newton solve and a
    // refactorisation); three times leaves 49 (BENCHMARKS.md). Not also CVODE's 30% bound on the
    // change of gamma between setups: doubled, it saved another 8% of the pile but cost the
    // thermostat example's switch times a factor of 8 in accuracy (stale-gamma Newton steps).
    check_flag(CVodeSetNumStepsEtaMaxEarlyStep(s.cvode, 3), "CVodeSetNumStepsEtaMaxEarlyStep");
    check_flag(CVodeSetEtaMaxEarlyStep(s.cvode, 3.0), "CVodeSetEtaMaxEarlyStep");
  }
  if (method_ == Method::bdf &&
      (settings.linear_solver == "klu" || settings.linear_solver == "klu-plain")) {
    // Newton iteration with the KLU sparse direct solver on the block pattern of the system's
    // blocks and their couplings, rebuilt at every restart (the contact set may have changed).
    s.sparse = true;
    s.error_weights = check_pointer(N_VNew_Serial(n, s.context), "N_VNew_Serial");
    s.block_of_state.assign(static_cast<std::size_t>(n), 0);
    s.local_states.assign(static_cast<std::size_t>(n), 0);
    system.local_states(s.local_states);
    system.state_blocks(s.block_of_state, s.coupled_blocks);
    s.jacobian.assign_blocks(s.block_of_state, s.coupled_blocks, s.local_states);
    s.jacobian.set_increment_floor(increment_floor(system, n));
    s.matrix = check_pointer(SUNSparseMatrix(n, n, s.jacobian.nonzero_count(), CSC_MAT, s.context),
                             "SUNSparseMatrix");
    // KLU on the Schur complement of the blocks' local states (integrators/reduced_klu_solver.hpp):
    // in a resting pile, where the factorisations are most of the run, it factorises 6 of each
    // body's 13 states.
    s.linear_solver = new_reduced_klu_solver(s.jacobian, s.local_states,
                                             settings.linear_solver == "klu", s.context);
    check_flag(CVodeSetLinearSolver(s.cvode, s.linear_solver, s.matrix), "CVodeSetLinearSolver");
    check_flag(CVodeSetLinSysFn(s.cvode, &sparse_linear_system), "CVodeSetLinSysFn");
  } else if (method_ == Method::bdf && settings.linear_solver == "gmres") {
    // Newton iteration with matrix-free GMRES: Jacobian-vector products by difference quotients,
    // no preconditioner.
    s.linear_solver =
        check_pointer(SUNLinSol_SPGMR(s.y, SUN_PREC_NONE, 0, s.context), "SUNLinSol_SPGMR");
    check_flag(CVodeSetLinearSolver(s.cvode, s.linear_solver, nullptr), "CVodeSetLinearSolver");
  } else if (method_ == Method::bdf) {
    // Newton iteration (CVODE's default nonlinear solver) with a dense direct linear solver and
    // a difference-quotient Jacobian.
    s.matrix = new_dense_matrix(n, s.context, "set simulation.linear_solver to klu or gmres");
    s.linear_solver = check_pointer(SUNLinSol_Dense(s.y, s.matrix, s.context), "SUNLinSol_Dense");
    check_flag(CVodeSetLinearSolver(s.cvode, s.linear_solver, s.matrix), "CVodeSetLinearSolver");
    // A system with state scales gets its own quotient, with their increment floor.
    std::vector<double> floor = increment_floor(system, n);
    if (std::any_of(floor.begin(), floor.end(), [](double f) { return f > 0.0; })) {
      s.dense_jacobian = true;
      s.error_weights = check_pointer(N_VNew_Serial(n, s.context), "N_VNew_Serial");
      s.jacobian.assign_blocks(std::vector<int>(static_cast<std::size_t>(n), 0), {}, {});
      s.jacobian.set_increment_floor(floor);
      check_flag(CVodeSetJacFn(s.cvode, &dense_jacobian), "CVodeSetJacFn");
    }
  } else {
    s.nonlinear_solver =
        check_pointer(SUNNonlinSol_FixedPoint(s.y, 0, s.context), "SUNNonlinSol_FixedPoint");
    check_flag(CVodeSetNonlinearSolver(s.cvode, s.nonlinear_solver), "CVodeSetNonlinearSolver");
  }

  s.crossing_count = system.crossing_count();
  if (s.crossing_count > 0) {
    check_flag(CVodeRootInit(s.cvode, s.crossing_count, &sundials::ode_roots<Solver>),
               "CVodeRootInit");
    std::vector<int> directions = system.crossing_directions();
    check_flag(CVodeSetRootDirection(s.cvode, directions.data()), "CVodeSetRootDirection");
    check_flag(CVodeSetNoInactiveRootWarn(s.cvode), "CVodeSetNoInactiveRootWarn");
  }
  if (settings.min_step > 0.0)
    check_flag(CVodeSetMinStep(s.cvode, settings.min_step), "CVodeSetMinStep");
  set_max_step(settings.max_step);
}

void CvodeIntegrator::reinitialize(double t, const VectorX& x) {
  Solver& s = *solver_;
  as_eigen(s.y) = x;
  check_flag(CVodeReInit(s.cvode, t, s.y), "CVodeReInit");
  s.jacobian_rhs_evals = 0;
  if (s.sparse) update_sparsity();
}

void CvodeIntegrator::update_sparsity() {
  // A new pattern needs room for its nonzeros and a new symbolic analysis by KLU; the same
  // pattern keeps both (KLU refactors with the analysis it has).
  Solver& s = *solver_;
  s.system->state_blocks(s.block_of_state, s.coupled_blocks);
  if (!s.jacobian.assign_blocks(s.block_of_state, s.coupled_blocks, s.local_states)) return;
  reduced_klu_new_pattern(s.linear_solver);  // at once: its plan is the old pattern's
  s.pattern_written = false;
  s.jacobian_values.clear();  // evaluated again in the new pattern
  const auto nonzeros = static_cast<sunindextype>(s.jacobian.nonzero_count());
  if (SM_NNZ_S(s.matrix) < nonzeros) {
    check_flag(SUNSparseMatrix_Reallocate(s.matrix, nonzeros), "SUNSparseMatrix_Reallocate");
  }
}

void CvodeIntegrator::set_max_step(double max_step) {
  // CVODE takes 0 for "no bound".
  check_flag(CVodeSetMaxStep(solver_->cvode, std::isfinite(max_step) ? max_step : 0.0),
             "CVodeSetMaxStep");
}

StepResult CvodeIntegrator::step(double t_stop) {
  Solver& s = *solver_;
  StepResult result;
  check_flag(CVodeSetStopTime(s.cvode, t_stop), "CVodeSetStopTime");
  realtype t_reached = 0.0;
  s.last_message.clear();
  const int flag = CVode(s.cvode, t_stop, s.y, &t_reached, CV_ONE_STEP);
  sundials::rethrow_callback_exception(s);
  result.t = t_reached;
  if (flag == CV_ROOT_RETURN) {
    result.status = StepResult::Status::root_found;
    result.roots_found.assign(s.crossing_count, 0);
    check_flag(CVodeGetRootInfo(s.cvode, result.roots_found.data()), "CVodeGetRootInfo");
  } else if (flag == CV_TSTOP_RETURN) {
    result.status = StepResult::Status::stop_time_reached;
  } else if (flag >= 0) {
    result.status = StepResult::Status::step_taken;
  } else {
    result.status = StepResult::Status::failure;
    result.message = fmt::format("CVode returned flag {} at t = {:.17g}: {}", flag, t_reached,
                                 s.last_message.empty() ? "no message" : s.last_message);
  }
  return result;
}

void CvodeIntegrator::current_state(VectorX& x) const {
  x = as_eigen(solver_->y);
}

void CvodeIntegrator::interpolate(double t, VectorX& x) const {
  Solver& s = *solver_;
  check_flag(CVodeGetDky(s.cvode, t, 0, s.scratch), "CVodeGetDky");
  x = as_eigen(s.scratch);
}

IntegratorStats CvodeIntegrator::segment_statistics() const {
  if (!solver_) return {};
  void* cvode = solver_->cvode;
  IntegratorStats stats;
  long fe = 0, fe_ls = 0;
  check_flag(CVodeGetNumSteps(cvode, &stats.steps), "CVodeGetNumSteps");
  check_flag(CVodeGetNumRhsEvals(cvode, &fe), "CVodeGetNumRhsEvals");
  if (method_ == Method::bdf) {
    check_flag(CVodeGetNumLinRhsEvals(cvode, &fe_ls), "CVodeGetNumLinRhsEvals");
    check_flag(CVodeGetNumJacEvals(cvode, &stats.jac_evals), "CVodeGetNumJacEvals");
  }
  stats.rhs_evals = fe + fe_ls + solver_->jacobian_rhs_evals;
  if (solver_->crossing_count > 0) {
    check_flag(CVodeGetNumGEvals(cvode, &stats.root_evals), "CVodeGetNumGEvals");
  }
  check_flag(CVodeGetNumErrTestFails(cvode, &stats.error_test_fails), "CVodeGetNumErrTestFails");
  check_flag(CVodeGetNumNonlinSolvIters(cvode, &stats.nonlinear_iters),
             "CVodeGetNumNonlinSolvIters");
  check_flag(CVodeGetNumNonlinSolvConvFails(cvode, &stats.nonlinear_conv_fails),
             "CVodeGetNumNonlinSolvConvFails");
  return stats;
}

}  // namespace hybridsim
