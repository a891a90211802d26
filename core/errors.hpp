// Errors at the API edge (design.md §8): bad input is an exception whose message names, where
// they apply, the file, the key and the value. Numerical outcomes are statuses, not exceptions
// (see integrators/).
#pragma once

#include <stdexcept>
#include <string>

namespace hybridsim {

// Invalid user input: a scene, an option, an unknown name. The CLI exits with status 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A feature the input asks for that this build does not have yet.
class NotSupportedError : public InputError {
 public:
  using InputError::InputError;
};

// A failure inside a numerical library call that is not an expected numerical outcome.
class SolverError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hybridsim
