// Helpers shared by the SUNDIALS backends: checked calls and Eigen views of N_Vectors.
#pragma once

#include <fmt/format.h>
#include <nvector/nvector_serial.h>

#include <string>

#include <Eigen/Core>

#include "core/errors.hpp"

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

// The serial N_Vector's data as an Eigen vector, without a copy.
inline Eigen::Map<Eigen::VectorXd> as_eigen(N_Vector v) {
  return {N_VGetArrayPointer(v), static_cast<Eigen::Index>(N_VGetLength(v))};
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

}  // namespace hybridsim::sundials
