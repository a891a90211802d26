// Fixed-step methods behind the Integrator interface: explicit Euler, semi-implicit (symplectic)
// Euler, classical Runge-Kutta 4 and implicit Euler with a Newton solve. They have no error
// control; they take IntegratorSettings::step_size, shortened only to end at a stop time or to
// respect max_step (the bound that keeps contacts from being stepped over).
//
// Events use the same semantics as the SUNDIALS root finder: after every step the crossing
// functions are evaluated at its end; a component that changed sign in its triggering direction
// (from a nonzero value) brackets a root, which is located on the step's dense output (the cubic
// Hermite interpolant of the states and derivatives at both ends, accurate to the order of every
// method here) by the Illinois variant of the secant method, to SUNDIALS's time tolerance
// 100 u (|t| + |h|). The root returned is the bracket's right end, where the sign has changed,
// and every component that changed sign in the final bracket is reported.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "integrators/integrator.hpp"

namespace hybridsim {

class FixedStepIntegrator final : public Integrator {
 public:
  enum class Method { euler, semi_implicit_euler, rk4, implicit_euler };

  explicit FixedStepIntegrator(Method method);
  ~FixedStepIntegrator() override;
  FixedStepIntegrator(const FixedStepIntegrator&) = delete;
  FixedStepIntegrator& operator=(const FixedStepIntegrator&) = delete;

  std::string name() const override;
  void initialize(HybridSystem& system, double t0, const VectorX& x0,
                  const IntegratorSettings& settings) override;
  void reinitialize(double t, const VectorX& x) override;
  void set_max_step(double max_step) override;
  StepResult step(double t_stop) override;
  void current_state(VectorX& x) const override;
  void interpolate(double t, VectorX& x) const override;
  IntegratorStats segment_statistics() const override;

 private:
  struct Work;  // state, step data and scratch vectors
  void evaluate(double t, const VectorX& x, VectorX& xdot);
  void evaluate_crossings(double t, const VectorX& x, VectorX& z);
  void advance_explicit(double h);
  void advance_semi_implicit(double h);
  bool advance_implicit(double h, std::string& message);
  void form_newton_matrix(double h);
  bool locate_root(StepResult& result);

  Method method_;
  std::unique_ptr<Work> work_;
};

}  // namespace hybridsim
