// Helpers shared by the SUNDIALS backends: checked calls and Eigen views of N_Vectors.
#pragma once

#include <fmt/format.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <exception>
#include <string>
#include <utility>

#include <Eigen/Core>

#include "core/errors.hpp"
#include "core/hybrid_system.hpp"
#include "integrators/serial_vector_ops.hpp"

namespace hybridsim::sundials {

// Every SUNDIALS call goes through this check: a negative flag is a SolverError naming the call.
inline void check_flag(int flag, const char* call) {
  if (flag < 0) throw SolverError(fmt::format("{} failed with flag {}", call, flag));
}

template <typename T>
T* check_pointer(T* pointer, const char* call) {
  if (pointer == nullptr) throw SolverError(fmt::format("{} returned null", call));
  return pointer;
}

// A dense n x n Jacobian, refused with the way out above 2 GiB (16,384 states, some 1,260 free
// bodies): SUNDIALS would only return null, or the machine swap. `instead` names what the
// integrator offers for large systems.
inline SUNMatrix new_dense_matrix(sunindextype n, SUNContext context, const char* instead) {
  constexpr sunindextype kLargestDense = 16384;
  if (n > kLargestDense) {
    throw SolverError(fmt::format(
        "a dense Jacobian of {} states would take {:.1f} GB (at most {} states): {}", n,
        8.0 * static_cast<double>(n) * static_cast<double>(n) / 1e9, kLargestDense, instead));
  }
  return check_pointer(SUNDenseMatrix(n, n, context), "SUNDenseMatrix");
}

// The serial N_Vector's data as an Eigen vector, without a copy.
inline Eigen::Map<Eigen::VectorXd> as_eigen(N_Vector v) {
  return {N_VGetArrayPointer(v), static_cast<Eigen::Index>(N_VGetLength(v))};
}

// A serial N_Vector of length n with the faster operations of serial_vector_ops.hpp; the vectors
// a solver clones from it share them.
inline N_Vector new_state_vector(sunindextype n, SUNContext context) {
  N_Vector v = check_pointer(N_VNew_Serial(n, context), "N_VNew_Serial");
  install_fast_serial_operations(v);
  return v;
}

// A SUNDIALS error handler (CVODE's and IDA's have the same signature) that keeps the solver's
// message in Solver::last_message, for the failure status; user_data is the Solver.
template <typename Solver>
void record_error_message(int /*error_code*/, const char* module, const char* function,
                          char* message, void* user_data) noexcept {
  try {
    static_cast<Solver*>(user_data)->last_message =
        fmt::format("{} {}: {}", module, function, message);
  } catch (...) {
    // The flag the solver returns reports the failure anyway.
  }
}

// The callbacks of the ODE solvers (CVODE, ARKODE) for a Solver with members `system`,
// `crossing_count` and `callback_exception`, passed as user_data. Exceptions never cross into the
// C library: they are kept in callback_exception and rethrown by rethrow_callback_exception.

// x' = f(t, x): 0 on success, +1 (recoverable: the solver retries a smaller step) on a non-finite
// derivative, -1 after an exception.
template <typename Solver>
int ode_rhs(realtype t, N_Vector y, N_Vector ydot, void* user_data) noexcept {
  auto* self = static_cast<Solver*>(user_data);
  try {
    auto xdot = as_eigen(ydot);
    self->system->compute_derivatives(t, as_eigen(y), xdot);
    return xdot.allFinite() ? 0 : 1;
  } catch (...) {
    self->callback_exception = std::current_exception();
    return -1;
  }
}

// The crossing functions z(t, x): 0 on success, -1 when not finite or after an exception.
template <typename Solver>
int ode_roots(realtype t, N_Vector y, realtype* gout, void* user_data) noexcept {
  auto* self = static_cast<Solver*>(user_data);
  try {
    Eigen::Map<Eigen::VectorXd> z(gout, self->crossing_count);
    self->system->compute_crossings(t, as_eigen(y), z);
    return z.allFinite() ? 0 : -1;
  } catch (...) {
    self->callback_exception = std::current_exception();
    return -1;
  }
}

// After the solver returns: rethrows an exception a callback kept.
template <typename Solver>
void rethrow_callback_exception(Solver& solver) {
  if (solver.callback_exception) {
    std::exception_ptr captured = std::exchange(solver.callback_exception, nullptr);
    std::rethrow_exception(captured);
  }
}

}  // namespace hybridsim::sundials
