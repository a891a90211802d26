// Helpers shared by the SUNDIALS backends: checked calls and Eigen views of N_Vectors.
#pragma once

#include <fmt/format.h>
#include <nvector/nvector_serial.h>

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

}  // namespace hybridsim::sundials
