// SUNDIALS CVODE behind the Integrator interface: the only file that includes CVODE headers.
// Owns every SUNDIALS object with RAII, checks every return value, and keeps exceptions from
// crossing the C callbacks (they are captured and rethrown after CVODE returns).
#pragma once

#include <exception>
#include <memory>
#include <string>

#include "integrators/integrator.hpp"

namespace hybridsim {

class CvodeIntegrator final : public Integrator {
 public:
  enum class Method { bdf, adams };

  explicit CvodeIntegrator(Method method);
  ~CvodeIntegrator() override;
  CvodeIntegrator(const CvodeIntegrator&) = delete;
  CvodeIntegrator& operator=(const CvodeIntegrator&) = delete;

  std::string name() const override;
  void initialize(HybridSystem& system, double t0, const VectorX& x0,
                  const IntegratorSettings& settings) override;
  void reinitialize(double t, const VectorX& x) override;
  void set_max_step(double max_step) override;
  StepResult step(double t_stop) override;
  void current_state(VectorX& x) const override;
  void interpolate(double t, VectorX& x) const override;
  IntegratorStats segment_statistics() const override;

  struct Solver;  // the SUNDIALS objects (public for the Jacobian callback)

 private:
  // linear_solver "klu": the system's coupling groups now, and the matrix and KLU for them.
  void update_sparsity();

  Method method_;
  std::unique_ptr<Solver> solver_;
};

}  // namespace hybridsim
