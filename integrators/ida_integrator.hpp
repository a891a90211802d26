// SUNDIALS IDA behind the Integrator interface: variable-order BDF on the DAE form
// F(t, y, y') = 0 of the system (HybridSystem::compute_residual), y = (x, algebraic variables),
// with Newton iteration and a dense linear solver. Algebraic variables are excluded from the
// local error test; consistent initial conditions come from IDACalcIC at the start and after
// every restart. The only file that includes IDA headers.
#pragma once

#include <memory>
#include <string>

#include "integrators/integrator.hpp"

namespace hybridsim {

class IdaIntegrator final : public Integrator {
 public:
  IdaIntegrator();
  ~IdaIntegrator() override;
  IdaIntegrator(const IdaIntegrator&) = delete;
  IdaIntegrator& operator=(const IdaIntegrator&) = delete;

  std::string name() const override { return "ida"; }
  void initialize(HybridSystem& system, double t0, const VectorX& x0,
                  const IntegratorSettings& settings) override;
  void reinitialize(double t, const VectorX& x) override;
  void set_max_step(double max_step) override;
  StepResult step(double t_stop) override;
  void current_state(VectorX& x) const override;
  void interpolate(double t, VectorX& x) const override;
  IntegratorStats segment_statistics() const override;

 private:
  struct Solver;  // the SUNDIALS objects
  std::unique_ptr<Solver> solver_;
};

}  // namespace hybridsim
