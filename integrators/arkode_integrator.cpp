#include "integrators/arkode_integrator.hpp"

#include <arkode/arkode_arkstep.h>
#include <arkode/arkode_butcher_erk.h>
#include <arkode/arkode_erkstep.h>
#include <fmt/format.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_config.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/errors.hpp"
#include "integrators/sundials_support.hpp"

namespace hybridsim {
using sundials::as_eigen;
using sundials::check_flag;
using sundials::check_pointer;
using sundials::new_dense_matrix;

namespace {

// Our names of ARKODE's built-in tables; the first of each list is the default. ARKODE's own
// names say stages, embedded order and order (ARKODE_VERNER_8_5_6: 8 stages, a 6(5) pair).
struct ErkTable {
  const char* name;
  ARKODE_ERKTableID id;
};
constexpr ErkTable kErkTables[] = {
    {"dormand-prince", ARKODE_DORMAND_PRINCE_7_4_5},      // 5(4), 7 stages, FSAL
    {"heun-euler", ARKODE_HEUN_EULER_2_1_2},              // 2(1)
    {"bogacki-shampine", ARKODE_BOGACKI_SHAMPINE_4_2_3},  // 3(2), FSAL
    {"zonneveld", ARKODE_ZONNEVELD_5_3_4},                // 4(3)
    {"cash-karp", ARKODE_CASH_KARP_6_4_5},                // 5(4)
    {"fehlberg-4-5", ARKODE_FEHLBERG_6_4_5},              // 5(4)
    {"verner-6-5", ARKODE_VERNER_8_5_6},                  // 6(5)
    {"fehlberg-7-8", ARKODE_FEHLBERG_13_7_8},             // 8(7)
};

struct DirkTable {
  const char* name;
  ARKODE_DIRKTableID id;
};
constexpr DirkTable kDirkTables[] = {
    {"esdirk-4-3", ARKODE_ESDIRK436L2SA_6_3_4},    // ESDIRK 4(3), L-stable, stiffly accurate
    {"sdirk-2-1", ARKODE_SDIRK_2_1_2},             // SDIRK 2(1)
    {"trbdf2", ARKODE_TRBDF2_3_3_2},               // ESDIRK 3(2), TR-BDF2
    {"billington", ARKODE_BILLINGTON_3_3_2},       // SDIRK 3(2)
    {"kvaerno-4-2-3", ARKODE_KVAERNO_4_2_3},       // ESDIRK 3(2)
    {"esdirk-3-2", ARKODE_ESDIRK324L2SA_4_2_3},    // ESDIRK 3(2), L-stable
    {"cash-5-3-4", ARKODE_CASH_5_3_4},             // SDIRK 4(3)
    {"sdirk-5-3-4", ARKODE_SDIRK_5_3_4},           // SDIRK 4(3)
    {"kvaerno-5-3-4", ARKODE_KVAERNO_5_3_4},       // ESDIRK 4(3)
    {"esdirk-4-3-7", ARKODE_ESDIRK437L2SA_7_3_4},  // ESDIRK 4(3), 7 stages
    {"kvaerno-7-4-5", ARKODE_KVAERNO_7_4_5},       // ESDIRK 5(4)
    {"esdirk-5-4", ARKODE_ESDIRK547L2SA_7_4_5},    // ESDIRK 5(4), L-stable
};

// ERKStep of SUNDIALS 6.4.1 to 6.6.2 takes every table whose last node is c_s = 1 as first same
// as last (the last stage's f reused as the next step's first) even when its last row is not b
// (SUNDIALS issue #311, fixed in 6.7.0). The next step then starts from f at the last stage
// instead of f(y_{n+1}): verner-6-5 converged at order 3 instead of 6, fehlberg-7-8 at 7. Such
// tables run under ARKStep's explicit mode, which evaluates f(y_{n+1}); the rest keep ERKStep's
// genuine FSAL saving (dormand-prince, bogacki-shampine).
bool erkstep_would_reuse_wrongly(ARKODE_ERKTableID id) {
#if SUNDIALS_VERSION_MAJOR > 6 || (SUNDIALS_VERSION_MAJOR == 6 && SUNDIALS_VERSION_MINOR >= 7)
  (void)id;
  return false;
#else
  ARKodeButcherTable table = ARKodeButcherTable_LoadERK(id);
  if (table == nullptr) return false;
  const int s = table->stages;
  bool wrong = table->c[s - 1] == 1.0;
  bool last_row_is_b = true;
  for (int j = 0; j < s; ++j) last_row_is_b = last_row_is_b && table->A[s - 1][j] == table->b[j];
  wrong = wrong && !last_row_is_b;
  ARKodeButcherTable_Free(table);
  return wrong;
#endif
}

template <typename Table, std::size_t N>
auto find_table(const Table (&tables)[N], const std::string& name) {
  const std::string wanted = name.empty() ? tables[0].name : name;
  for (const Table& table : tables) {
    if (wanted == table.name) return table.id;
  }
  throw InputError(fmt::format("unknown table '{}'", name));
}

}  // namespace

struct ArkodeIntegrator::Solver {
  Method method = Method::erk;
  bool use_erkstep = true;  // an explicit table under ERKStep; false: ARKStep
  HybridSystem* system = nullptr;
  SUNContext context = nullptr;
  void* arkode = nullptr;
  N_Vector y = nullptr;
  N_Vector scratch = nullptr;
  N_Vector y_step_start = nullptr;  // the state where the current internal step began
  double t_step_start = 0.0;        // s
  double t_current = 0.0;           // s, where the integrator stands (the root after a root)
  bool fixed_step = false;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver linear_solver = nullptr;
  int crossing_count = 0;
  std::vector<int> crossing_directions;
  std::exception_ptr callback_exception;
  std::string last_message;

  ~Solver() {
    if (arkode != nullptr) {
      if (use_erkstep) {
        ERKStepFree(&arkode);
      } else {
        ARKStepFree(&arkode);
      }
    }
    if (linear_solver != nullptr) SUNLinSolFree(linear_solver);
    if (matrix != nullptr) SUNMatDestroy(matrix);
    if (scratch != nullptr) N_VDestroy(scratch);
    if (y_step_start != nullptr) N_VDestroy(y_step_start);
    if (y != nullptr) N_VDestroy(y);
    if (context != nullptr) SUNContext_Free(&context);
  }

  bool explicit_method() const { return use_erkstep; }

  // The calls whose signatures ERKStep and ARKStep share, dispatched by method.
  int set_stop_time(double t) {
    return explicit_method() ? ERKStepSetStopTime(arkode, t) : ARKStepSetStopTime(arkode, t);
  }
  int set_max_step(double h) {
    return explicit_method() ? ERKStepSetMaxStep(arkode, h) : ARKStepSetMaxStep(arkode, h);
  }
  int evolve(double t_stop, realtype* t_reached) {
    return explicit_method() ? ERKStepEvolve(arkode, t_stop, y, t_reached, ARK_ONE_STEP)
                             : ARKStepEvolve(arkode, t_stop, y, t_reached, ARK_ONE_STEP);
  }
  int get_dky(double t, N_Vector out) {
    return explicit_method() ? ERKStepGetDky(arkode, t, 0, out) : ARKStepGetDky(arkode, t, 0, out);
  }
  int get_root_info(int* roots_found) {
    return explicit_method() ? ERKStepGetRootInfo(arkode, roots_found)
                             : ARKStepGetRootInfo(arkode, roots_found);
  }
  int reset(double t, N_Vector state) {
    return explicit_method() ? ERKStepReset(arkode, t, state) : ARKStepReset(arkode, t, state);
  }
  int set_init_step(double h) {
    return explicit_method() ? ERKStepSetInitStep(arkode, h) : ARKStepSetInitStep(arkode, h);
  }
  // ARKODE gives the state at a root from its interpolant (Hermite, of degree 5 at most) over
  // the step that found it, whose error over a high-order method's long steps far exceeds the
  // method's own: on an oscillator at rtol 1e-8, verner-6-5 ended 1.3e-6 off after two roots
  // against 2.3e-10 without them, fehlberg-7-8 1.9e-6 against 2.2e-9. So the step is taken again
  // from its start, ending just past the root (by kRootMargin of the way there): the root is then
  // located near that step's end, where the interpolant, which matches the state and its
  // derivative there, is more accurate by about kRootMargin squared. Its crossing function is on
  // its new side by construction (the restart finds no second root). If the accurate step shows
  // no root, the first was the interpolant's: the step ends there and the next one finds it.
  // Returns the flag of the last evolve and sets t_reached.
  int retake_step_to_root(double t_root, double t_stop, realtype* t_reached) {
    constexpr double kRootMargin = 1e-3;
    constexpr double kUnitRoundoff = std::numeric_limits<double>::epsilon();
    const double length = t_root - t_step_start;
    // A root at the step's very start: the interpolant there is the step's start state.
    if (length <= 16.0 * kUnitRoundoff * std::max(1.0, std::abs(t_root))) return ARK_ROOT_RETURN;
    const double t_end = std::min(t_stop, t_root + kRootMargin * length);
    // A fixed-step method keeps its step (the stop time shortens the last one).
    if (!fixed_step) check_flag(set_init_step(t_end - t_step_start), "SetInitStep");
    check_flag(reset(t_step_start, y_step_start), "Reset");
    check_flag(set_stop_time(t_end), "SetStopTime");
    int flag = ARK_SUCCESS;
    while (flag == ARK_SUCCESS) flag = evolve(t_end, t_reached);
    if (!fixed_step) check_flag(set_init_step(0.0), "SetInitStep");  // estimated after restarts
    return flag;
  }

  // Root finding on the system's crossing functions, in their directions.
  void enable_roots() {
    if (explicit_method()) {
      check_flag(ERKStepRootInit(arkode, crossing_count, &sundials::ode_roots<Solver>),
                 "ERKStepRootInit");
      check_flag(ERKStepSetRootDirection(arkode, crossing_directions.data()),
                 "ERKStepSetRootDirection");
      check_flag(ERKStepSetNoInactiveRootWarn(arkode), "ERKStepSetNoInactiveRootWarn");
    } else {
      check_flag(ARKStepRootInit(arkode, crossing_count, &sundials::ode_roots<Solver>),
                 "ARKStepRootInit");
      check_flag(ARKStepSetRootDirection(arkode, crossing_directions.data()),
                 "ARKStepSetRootDirection");
      check_flag(ARKStepSetNoInactiveRootWarn(arkode), "ARKStepSetNoInactiveRootWarn");
    }
  }
};

ArkodeIntegrator::ArkodeIntegrator(Method method) : method_(method) {}
ArkodeIntegrator::~ArkodeIntegrator() = default;

std::vector<std::string> ArkodeIntegrator::table_names(Method method) {
  std::vector<std::string> names;
  if (method == Method::erk) {
    for (const ErkTable& table : kErkTables) names.emplace_back(table.name);
  } else {
    for (const DirkTable& table : kDirkTables) names.emplace_back(table.name);
  }
  return names;
}

std::string ArkodeIntegrator::name() const {
  return method_ == Method::erk ? "arkode-erk" : "arkode-dirk";
}

void ArkodeIntegrator::initialize(HybridSystem& system, double t0, const VectorX& x0,
                                  const IntegratorSettings& settings) {
  check_integrator_settings(name(), settings);
  solver_ = std::make_unique<Solver>();
  Solver& s = *solver_;
  s.method = method_;
  s.system = &system;
  const auto n = static_cast<sunindextype>(system.state_size());
  check_flag(SUNContext_Create(nullptr, &s.context), "SUNContext_Create");
  s.y = sundials::new_state_vector(n, s.context);
  s.scratch = check_pointer(N_VNew_Serial(n, s.context), "N_VNew_Serial");
  s.y_step_start = check_pointer(N_VNew_Serial(n, s.context), "N_VNew_Serial");
  as_eigen(s.y) = x0;
  s.t_current = t0;

  const bool fixed_step = settings.step_size > 0.0;
  s.use_erkstep = method_ == Method::erk &&
                  !erkstep_would_reuse_wrongly(find_table(kErkTables, settings.table));
  if (s.use_erkstep) {
    s.arkode = check_pointer(ERKStepCreate(&sundials::ode_rhs<Solver>, t0, s.y, s.context),
                             "ERKStepCreate");
    check_flag(ERKStepSetErrHandlerFn(s.arkode, &sundials::record_error_message<Solver>, &s),
               "ERKStepSetErrHandlerFn");
    check_flag(ERKStepSetUserData(s.arkode, &s), "ERKStepSetUserData");
    check_flag(ERKStepSetTableNum(s.arkode, find_table(kErkTables, settings.table)),
               "ERKStepSetTableNum");
    check_flag(ERKStepSStolerances(s.arkode, settings.rtol, settings.atol), "ERKStepSStolerances");
    check_flag(ERKStepSetMaxNumSteps(s.arkode, 1000000), "ERKStepSetMaxNumSteps");
    if (settings.min_step > 0.0) {
      check_flag(ERKStepSetMinStep(s.arkode, settings.min_step), "ERKStepSetMinStep");
    }
    if (fixed_step) check_flag(ERKStepSetFixedStep(s.arkode, settings.step_size), "SetFixedStep");
  } else if (method_ == Method::erk) {
    // An explicit table under ARKStep (see erkstep_would_reuse_wrongly): fi = null.
    s.arkode = check_pointer(ARKStepCreate(&sundials::ode_rhs<Solver>, nullptr, t0, s.y, s.context),
                             "ARKStepCreate");
    check_flag(ARKStepSetErrHandlerFn(s.arkode, &sundials::record_error_message<Solver>, &s),
               "ARKStepSetErrHandlerFn");
    check_flag(ARKStepSetUserData(s.arkode, &s), "ARKStepSetUserData");
    check_flag(
        ARKStepSetTableNum(s.arkode, ARKODE_DIRK_NONE, find_table(kErkTables, settings.table)),
        "ARKStepSetTableNum");
    check_flag(ARKStepSStolerances(s.arkode, settings.rtol, settings.atol), "ARKStepSStolerances");
    check_flag(ARKStepSetMaxNumSteps(s.arkode, 1000000), "ARKStepSetMaxNumSteps");
    if (settings.min_step > 0.0) {
      check_flag(ARKStepSetMinStep(s.arkode, settings.min_step), "ARKStepSetMinStep");
    }
  } else {
    // The whole right-hand side is treated implicitly (fe = null): a DIRK method with Newton
    // iteration and a difference-quotient Jacobian.
    s.arkode = check_pointer(ARKStepCreate(nullptr, &sundials::ode_rhs<Solver>, t0, s.y, s.context),
                             "ARKStepCreate");
    check_flag(ARKStepSetErrHandlerFn(s.arkode, &sundials::record_error_message<Solver>, &s),
               "ARKStepSetErrHandlerFn");
    check_flag(ARKStepSetUserData(s.arkode, &s), "ARKStepSetUserData");
    check_flag(
        ARKStepSetTableNum(s.arkode, find_table(kDirkTables, settings.table), ARKODE_ERK_NONE),
        "ARKStepSetTableNum");
    check_flag(ARKStepSStolerances(s.arkode, settings.rtol, settings.atol), "ARKStepSStolerances");
    check_flag(ARKStepSetMaxNumSteps(s.arkode, 1000000), "ARKStepSetMaxNumSteps");
    // The Newton matrix I - gamma J is re-formed (with the current gamma; J itself is kept) at
    // every step. With ARKODE's default reuse over up to 20 steps, stage solutions with a stale
    // gamma pass the convergence test inaccurately: on an undamped oscillator the global error
    // stalled near 1e-4 from rtol 1e-6 to 1e-10; re-formed each step it falls with the tolerance.
    check_flag(ARKStepSetLSetupFrequency(s.arkode, 1), "ARKStepSetLSetupFrequency");
    if (settings.linear_solver == "gmres") {
      s.linear_solver =
          check_pointer(SUNLinSol_SPGMR(s.y, SUN_PREC_NONE, 0, s.context), "SUNLinSol_SPGMR");
      check_flag(ARKStepSetLinearSolver(s.arkode, s.linear_solver, nullptr),
                 "ARKStepSetLinearSolver");
    } else {
      s.matrix = new_dense_matrix(n, s.context, "set simulation.linear_solver to gmres");
      s.linear_solver = check_pointer(SUNLinSol_Dense(s.y, s.matrix, s.context), "SUNLinSol_Dense");
      check_flag(ARKStepSetLinearSolver(s.arkode, s.linear_solver, s.matrix),
                 "ARKStepSetLinearSolver");
    }
    if (settings.min_step > 0.0) {
      check_flag(ARKStepSetMinStep(s.arkode, settings.min_step), "ARKStepSetMinStep");
    }
  }
  if (fixed_step && !s.use_erkstep) {
    check_flag(ARKStepSetFixedStep(s.arkode, settings.step_size), "SetFixedStep");
  }
  s.fixed_step = fixed_step;

  s.crossing_count = system.crossing_count();
  if (s.crossing_count > 0) {
    s.crossing_directions = system.crossing_directions();
    s.enable_roots();
  }
  set_max_step(settings.max_step);
}

void ArkodeIntegrator::reinitialize(double t, const VectorX& x) {
  Solver& s = *solver_;
  as_eigen(s.y) = x;
  s.t_current = t;
  if (s.use_erkstep) {
    check_flag(ERKStepReInit(s.arkode, &sundials::ode_rhs<Solver>, t, s.y), "ERKStepReInit");
  } else if (method_ == Method::erk) {
    check_flag(ARKStepReInit(s.arkode, &sundials::ode_rhs<Solver>, nullptr, t, s.y),
               "ARKStepReInit");
  } else {
    check_flag(ARKStepReInit(s.arkode, nullptr, &sundials::ode_rhs<Solver>, t, s.y),
               "ARKStepReInit");
  }
}

void ArkodeIntegrator::set_max_step(double max_step) {
  // ARKODE takes 0 for "no bound".
  check_flag(solver_->set_max_step(std::isfinite(max_step) ? max_step : 0.0), "SetMaxStep");
}

StepResult ArkodeIntegrator::step(double t_stop) {
  Solver& s = *solver_;
  StepResult result;
  check_flag(s.set_stop_time(t_stop), "SetStopTime");
  realtype t_reached = 0.0;
  s.last_message.clear();
  N_VScale(1.0, s.y, s.y_step_start);
  s.t_step_start = s.t_current;
  int flag = s.evolve(t_stop, &t_reached);
  sundials::rethrow_callback_exception(s);
  if (flag == ARK_ROOT_RETURN) {
    flag = s.retake_step_to_root(t_reached, t_stop, &t_reached);
    sundials::rethrow_callback_exception(s);
  }
  if (flag == ARK_ROOT_RETURN) {
    result.roots_found.assign(s.crossing_count, 0);
    check_flag(s.get_root_info(result.roots_found.data()), "GetRootInfo");
  }
  result.t = t_reached;
  if (flag >= 0) s.t_current = t_reached;
  if (flag == ARK_ROOT_RETURN) {
    result.status = StepResult::Status::root_found;
  } else if (flag == ARK_TSTOP_RETURN && t_reached == t_stop) {
    result.status = StepResult::Status::stop_time_reached;
  } else if (flag >= 0) {
    result.status = StepResult::Status::step_taken;
  } else {
    result.status = StepResult::Status::failure;
    result.message = fmt::format("{} returned flag {} at t = {:.17g}: {}",
                                 s.use_erkstep ? "ERKStepEvolve" : "ARKStepEvolve", flag, t_reached,
                                 s.last_message.empty() ? "no message" : s.last_message);
  }
  return result;
}

void ArkodeIntegrator::current_state(VectorX& x) const {
  x = as_eigen(solver_->y);
}

void ArkodeIntegrator::interpolate(double t, VectorX& x) const {
  Solver& s = *solver_;
  check_flag(s.get_dky(t, s.scratch), "GetDky");
  x = as_eigen(s.scratch);
}

IntegratorStats ArkodeIntegrator::segment_statistics() const {
  if (!solver_) return {};
  void* arkode = solver_->arkode;
  IntegratorStats stats;
  if (solver_->use_erkstep) {
    check_flag(ERKStepGetNumSteps(arkode, &stats.steps), "ERKStepGetNumSteps");
    check_flag(ERKStepGetNumRhsEvals(arkode, &stats.rhs_evals), "ERKStepGetNumRhsEvals");
    check_flag(ERKStepGetNumErrTestFails(arkode, &stats.error_test_fails),
               "ERKStepGetNumErrTestFails");
    if (solver_->crossing_count > 0) {
      check_flag(ERKStepGetNumGEvals(arkode, &stats.root_evals), "ERKStepGetNumGEvals");
    }
    return stats;
  }
  long fe = 0, fi = 0, fi_ls = 0;
  check_flag(ARKStepGetNumSteps(arkode, &stats.steps), "ARKStepGetNumSteps");
  check_flag(ARKStepGetNumRhsEvals(arkode, &fe, &fi), "ARKStepGetNumRhsEvals");
  if (method_ == Method::erk) {  // explicit under ARKStep: no Newton iteration
    stats.rhs_evals = fe;
    check_flag(ARKStepGetNumErrTestFails(arkode, &stats.error_test_fails),
               "ARKStepGetNumErrTestFails");
    if (solver_->crossing_count > 0) {
      check_flag(ARKStepGetNumGEvals(arkode, &stats.root_evals), "ARKStepGetNumGEvals");
    }
    return stats;
  }
  check_flag(ARKStepGetNumLinRhsEvals(arkode, &fi_ls), "ARKStepGetNumLinRhsEvals");
  stats.rhs_evals = fe + fi + fi_ls;
  check_flag(ARKStepGetNumJacEvals(arkode, &stats.jac_evals), "ARKStepGetNumJacEvals");
  check_flag(ARKStepGetNumErrTestFails(arkode, &stats.error_test_fails),
             "ARKStepGetNumErrTestFails");
  check_flag(ARKStepGetNumNonlinSolvIters(arkode, &stats.nonlinear_iters),
             "ARKStepGetNumNonlinSolvIters");
  check_flag(ARKStepGetNumNonlinSolvConvFails(arkode, &stats.nonlinear_conv_fails),
             "ARKStepGetNumNonlinSolvConvFails");
  if (solver_->crossing_count > 0) {
    check_flag(ARKStepGetNumGEvals(arkode, &stats.root_evals), "ARKStepGetNumGEvals");
  }
  return stats;
}

}  // namespace hybridsim
