// What the plain CVODE reference programs (reference_demo.cpp, reference_cradle.cpp) share, as a
// user writing them would factor it: a failed call ends the program naming the call, and one
// CVODE BDF solver with a dense Newton solver and the two crossing functions z1 (rising) and z2
// (falling), freed when it goes out of scope.
#pragma once

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cstdio>
#include <cstdlib>

namespace hybridsim::bench {

inline void check(int flag, const char* call) {
  if (flag < 0) {
    std::fprintf(stderr, "%s failed: %d\n", call, flag);
    std::exit(1);
  }
}

class PlainCvode {
 public:
  // n states, all zero until the caller writes the initial state and calls start.
  explicit PlainCvode(int n) {
    check(SUNContext_Create(nullptr, &context_), "SUNContext_Create");
    y_ = N_VNew_Serial(n, context_);
    dky_ = N_VNew_Serial(n, context_);
    if (y_ == nullptr || dky_ == nullptr) check(-1, "N_VNew_Serial");
    N_VConst(0.0, y_);
    matrix_ = SUNDenseMatrix(n, n, context_);
    solver_ = SUNLinSol_Dense(y_, matrix_, context_);
    cvode_ = CVodeCreate(CV_BDF, context_);
    if (matrix_ == nullptr || solver_ == nullptr || cvode_ == nullptr) check(-1, "CVODE setup");
  }
  PlainCvode(const PlainCvode&) = delete;
  PlainCvode& operator=(const PlainCvode&) = delete;
  ~PlainCvode() {
    CVodeFree(&cvode_);
    SUNLinSolFree(solver_);
    SUNMatDestroy(matrix_);
    N_VDestroy(dky_);
    N_VDestroy(y_);
    SUNContext_Free(&context_);
  }

  // Starts at t = 0 from the state written into state().
  void start(CVRhsFn rhs, CVRootFn roots, void* user_data, double rtol, double atol) {
    check(CVodeInit(cvode_, rhs, 0.0, y_), "CVodeInit");
    check(CVodeSetUserData(cvode_, user_data), "CVodeSetUserData");
    check(CVodeSStolerances(cvode_, rtol, atol), "CVodeSStolerances");
    check(CVodeSetMaxNumSteps(cvode_, 1000000), "CVodeSetMaxNumSteps");
    check(CVodeSetLinearSolver(cvode_, solver_, matrix_), "CVodeSetLinearSolver");
    check(CVodeRootInit(cvode_, 2, roots), "CVodeRootInit");
    int directions[2] = {+1, -1};
    check(CVodeSetRootDirection(cvode_, directions), "CVodeSetRootDirection");
  }

  void* cvode() const { return cvode_; }
  N_Vector y() const { return y_; }
  double* state() const { return N_VGetArrayPointer(y_); }
  // The state at t_out inside the last step, by CVODE's dense output.
  const double* interpolate(double t_out) const {
    check(CVodeGetDky(cvode_, t_out, 0, dky_), "CVodeGetDky");
    return N_VGetArrayPointer(dky_);
  }
  long steps() const {
    long steps = 0;
    check(CVodeGetNumSteps(cvode_, &steps), "CVodeGetNumSteps");
    return steps;
  }

 private:
  SUNContext context_ = nullptr;
  N_Vector y_ = nullptr;
  N_Vector dky_ = nullptr;
  SUNMatrix matrix_ = nullptr;
  SUNLinearSolver solver_ = nullptr;
  void* cvode_ = nullptr;
};

}  // namespace hybridsim::bench
