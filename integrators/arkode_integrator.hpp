// SUNDIALS ARKODE behind the Integrator interface: explicit Runge-Kutta pairs through ERKStep
// (arkode-erk) and diagonally implicit ones through ARKStep with the whole right-hand side
// implicit (arkode-dirk), each with a named Butcher table. The only file that includes ARKODE
// headers; owns the SUNDIALS objects with RAII and keeps exceptions from crossing the callbacks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "integrators/integrator.hpp"

namespace hybridsim {

class ArkodeIntegrator final : public Integrator {
 public:
  enum class Method { erk, dirk };

  explicit ArkodeIntegrator(Method method);
  ~ArkodeIntegrator() override;
  ArkodeIntegrator(const ArkodeIntegrator&) = delete;
  ArkodeIntegrator& operator=(const ArkodeIntegrator&) = delete;

  // The table names of a method, the default first.
  static std::vector<std::string> table_names(Method method);

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
  struct Solver;  // the SUNDIALS objects
  Method method_;
  std::unique_ptr<Solver> solver_;
};

}  // namespace hybridsim
