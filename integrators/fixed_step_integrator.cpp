#include "integrators/fixed_step_integrator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <Eigen/LU>

#include "core/errors.hpp"

namespace hybridsim {
namespace {

constexpr double kUnitRoundoff = std::numeric_limits<double>::epsilon();
// A remaining interval up to this fraction above one step is taken as that step, so that no
// sliver step of rounding size follows.
constexpr double kStepSlack = 1e-8;
// Implicit Euler: the Newton iteration has converged when the weighted RMS norm of its update
// (weights 1 / (rtol |x| + atol)) is below this, a hundredth of the tolerances; it is abandoned
// after kMaxNewtonIterations, or when an update is not smaller than kDivergenceRatio times the one
// before, and retried as a full Newton iteration of up to kMaxFullNewtonIterations.
constexpr double kNewtonTolerance = 0.01;
constexpr int kMaxNewtonIterations = 8;
constexpr int kMaxFullNewtonIterations = 30;
constexpr double kRoundoffUpdate = 1e3 * kUnitRoundoff;
// The Newton weights use rtol and atol, but no tighter than this (and a hundredth of it): a
// first-order method's error is far larger, and near a stiff Hertz contact the iteration stalls
// at the level of the difference-quotient Jacobian's error, about 1e-11 relative.
constexpr double kMinNewtonTolerance = 1e-10;
constexpr double kDivergenceRatio = 0.9;
constexpr int kMaxRootIterations = 200;

// Whether a crossing function that went from z_from to z_to crossed zero in its triggering
// direction (+1 rising, -1 falling, 0 both). A function that starts at exactly zero has not.
bool crosses(double z_from, double z_to, int direction) {
  if (z_from < 0.0 && z_to >= 0.0) return direction >= 0;
  if (z_from > 0.0 && z_to <= 0.0) return direction <= 0;
  return false;
}

}  // namespace

struct FixedStepIntegrator::Work {
  HybridSystem* system = nullptr;
  IntegratorSettings settings;
  double max_step = kInfinity;
  IntegratorStats stats;
  std::vector<int> directions;
  std::vector<bool> is_velocity;  // semi-implicit Euler: the system's velocity states

  // The current point and what is known there.
  double t = 0.0;
  VectorX x;
  VectorX f;  // f(t, x) when f_valid
  bool f_valid = false;
  VectorX z;  // crossing functions at (t, x)

  // The last step, [t0, t1]: states and derivatives at both ends for the Hermite dense output.
  double t0 = 0.0;
  double t1 = 0.0;
  VectorX x0, f0, x1, f1;
  bool have_step = false;

  // Scratch, sized at initialisation.
  VectorX k2, k3, k4, stage, delta;
  VectorX z_lo, z_hi, z_mid, x_mid;
  Eigen::MatrixXd jacobian;                     // implicit Euler: df/dx by differences
  Eigen::PartialPivLU<Eigen::MatrixXd> newton;  // of I - h J
  bool jacobian_current = false;                // J was formed in this segment, still trusted
  double newton_step = 0.0;                     // the h of the factorisation; 0: none

  int crossing_count() const { return static_cast<int>(directions.size()); }
};

FixedStepIntegrator::FixedStepIntegrator(Method method) : method_(method) {}
FixedStepIntegrator::~FixedStepIntegrator() = default;

std::string FixedStepIntegrator::name() const {
  switch (method_) {
    case Method::euler:
      return "euler";
    case Method::semi_implicit_euler:
      return "semi-implicit-euler";
    case Method::rk4:
      return "rk4";
    case Method::implicit_euler:
      return "implicit-euler";
  }
  return "?";
}

void FixedStepIntegrator::initialize(HybridSystem& system, double t0, const VectorX& x0,
                                     const IntegratorSettings& settings) {
  check_integrator_settings(name(), settings);
  work_ = std::make_unique<Work>();
  Work& w = *work_;
  w.system = &system;
  w.settings = settings;
  w.directions = system.crossing_directions();
  const Eigen::Index n = system.state_size();
  if (method_ == Method::semi_implicit_euler) {
    w.is_velocity = system.velocity_mask();
    if (static_cast<Eigen::Index>(w.is_velocity.size()) != n) {
      throw InputError(
          "semi-implicit-euler needs a system that marks its velocity states (velocity_mask)");
    }
  }
  for (VectorX* v : {&w.x, &w.f, &w.x0, &w.f0, &w.x1, &w.f1, &w.k2, &w.k3, &w.k4, &w.stage,
                     &w.delta, &w.x_mid}) {
    v->resize(n);
  }
  for (VectorX* v : {&w.z, &w.z_lo, &w.z_hi, &w.z_mid}) v->resize(w.crossing_count());
  if (method_ == Method::implicit_euler) w.jacobian.resize(n, n);
  set_max_step(settings.max_step);
  reinitialize(t0, x0);
}

void FixedStepIntegrator::reinitialize(double t, const VectorX& x) {
  Work& w = *work_;
  w.stats = {};
  w.t = t;
  w.x = x;
  w.f_valid = false;
  w.have_step = false;
  w.jacobian_current = false;
  w.newton_step = 0.0;
  if (w.crossing_count() > 0) evaluate_crossings(t, x, w.z);
}

void FixedStepIntegrator::set_max_step(double max_step) {
  work_->max_step = max_step;
}

void FixedStepIntegrator::evaluate(double t, const VectorX& x, VectorX& xdot) {
  work_->system->compute_derivatives(t, x, xdot);
  ++work_->stats.rhs_evals;
}

void FixedStepIntegrator::evaluate_crossings(double t, const VectorX& x, VectorX& z) {
  work_->system->compute_crossings(t, x, z);
  ++work_->stats.root_evals;
}

void FixedStepIntegrator::advance_explicit(double h) {
  Work& w = *work_;
  if (method_ == Method::euler) {
    w.x1 = w.x0 + h * w.f0;
  } else {
    // Classical Runge-Kutta 4; k1 is f0, which the step before computed as its f1.
    w.stage = w.x0 + (0.5 * h) * w.f0;
    evaluate(w.t0 + 0.5 * h, w.stage, w.k2);
    w.stage = w.x0 + (0.5 * h) * w.k2;
    evaluate(w.t0 + 0.5 * h, w.stage, w.k3);
    w.stage = w.x0 + h * w.k3;
    evaluate(w.t1, w.stage, w.k4);
    w.x1 = w.x0 + (h / 6.0) * (w.f0 + 2.0 * w.k2 + 2.0 * w.k3 + w.k4);
  }
}

void FixedStepIntegrator::advance_semi_implicit(double h) {
  // Velocities first, from the accelerations at the start; then the positions with the
  // derivatives of the positions evaluated at the new velocities (they depend on positions and
  // velocities only: p' = v, q' = q (x) w / 2).
  Work& w = *work_;
  w.stage = w.x0;
  for (Eigen::Index i = 0; i < w.x0.size(); ++i) {
    if (w.is_velocity[i]) w.stage[i] += h * w.f0[i];
  }
  evaluate(w.t0, w.stage, w.k2);
  w.x1 = w.stage;
  for (Eigen::Index i = 0; i < w.x0.size(); ++i) {
    if (!w.is_velocity[i]) w.x1[i] += h * w.k2[i];
  }
}

void FixedStepIntegrator::form_newton_matrix(double h) {
  // J = df/dx at (t1, x1) by forward differences, then the LU of I - h J.
  Work& w = *work_;
  const Eigen::Index n = w.x1.size();
  const double sqrt_u = std::sqrt(kUnitRoundoff);
  evaluate(w.t1, w.x1, w.k3);
  for (Eigen::Index j = 0; j < n; ++j) {
    const double saved = w.x1[j];
    const double increment = sqrt_u * std::max(std::abs(saved), 1.0);
    w.x1[j] = saved + increment;
    evaluate(w.t1, w.x1, w.k4);
    w.x1[j] = saved;
    w.jacobian.col(j) = (w.k4 - w.k3) / increment;
  }
  ++w.stats.jac_evals;
  w.jacobian_current = true;
  w.newton.compute(Eigen::MatrixXd::Identity(n, n) - h * w.jacobian);
  w.newton_step = h;
}

bool FixedStepIntegrator::advance_implicit(double h, std::string& message) {
  // x1 = x0 + h f(t1, x1) by Newton's method on r(y) = y - x0 - h f(t1, y). First a modified
  // Newton iteration from the explicit Euler predictor, keeping J from step to step while it
  // converges fast; if that fails, a full Newton iteration (J at every iterate) from x0.
  Work& w = *work_;
  const double newton_rtol = std::max(w.settings.rtol, kMinNewtonTolerance);
  const double newton_atol = std::max(w.settings.atol, kMinNewtonTolerance * 1e-2);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool full_newton = attempt > 0;
    w.x1 = full_newton ? w.x0 : VectorX(w.x0 + h * w.f0);
    if (!w.jacobian_current) {
      form_newton_matrix(h);
    } else if (w.newton_step != h) {
      w.newton.compute(Eigen::MatrixXd::Identity(w.x1.size(), w.x1.size()) - h * w.jacobian);
      w.newton_step = h;
    }
    const int max_iterations = full_newton ? kMaxFullNewtonIterations : kMaxNewtonIterations;
    double previous_norm = kInfinity;
    for (int iteration = 0; iteration < max_iterations; ++iteration) {
      if (full_newton && iteration > 0) form_newton_matrix(h);
      evaluate(w.t1, w.x1, w.k2);
      w.stage = w.x1 - w.x0 - h * w.k2;  // residual
      w.delta = -w.newton.solve(w.stage);
      w.x1 += w.delta;
      ++w.stats.nonlinear_iters;
      const double norm = std::sqrt(
          (w.delta.array() / (newton_rtol * w.x1.array().abs() + newton_atol)).square().mean());
      if (!std::isfinite(norm)) break;
      // Converged: below the tolerances, or at round-off (tolerances near 1e-14 cannot be met).
      const bool at_roundoff =
          (w.delta.array().abs() <= kRoundoffUpdate * (w.x1.array().abs() + w.settings.atol)).all();
      if (norm <= kNewtonTolerance || at_roundoff) {
        // Slow convergence: form a new Jacobian for the next step.
        if (full_newton || iteration > 2) w.jacobian_current = false;
        return true;
      }
      if (!full_newton && iteration > 0 && norm > kDivergenceRatio * previous_norm) break;
      previous_norm = norm;
    }
    ++w.stats.nonlinear_conv_fails;
    w.jacobian_current = false;
  }
  message = fmt::format(
      "implicit Euler: the Newton iteration did not converge at t = {:.17g} s with h = {:g} s "
      "(also not as a full Newton iteration)",
      w.t1, h);
  return false;
}

StepResult FixedStepIntegrator::step(double t_stop) {
  Work& w = *work_;
  StepResult result;
  result.t = w.t;
  const double remaining = t_stop - w.t;
  if (!(remaining > 0.0)) {
    result.status = StepResult::Status::stop_time_reached;
    return result;
  }
  double h = std::min(w.settings.step_size, w.max_step);
  const bool reaches_stop = remaining <= h * (1.0 + kStepSlack);
  if (!w.f_valid) {
    evaluate(w.t, w.x, w.f);
    w.f_valid = true;
  }
  w.t0 = w.t;
  w.x0 = w.x;
  w.f0 = w.f;
  w.t1 = reaches_stop ? t_stop : w.t + h;
  h = w.t1 - w.t0;

  std::string message;
  bool ok = true;
  switch (method_) {
    case Method::euler:
    case Method::rk4:
      advance_explicit(h);
      break;
    case Method::semi_implicit_euler:
      advance_semi_implicit(h);
      break;
    case Method::implicit_euler:
      ok = advance_implicit(h, message);
      break;
  }
  if (ok) {
    evaluate(w.t1, w.x1, w.f1);
    if (!w.x1.allFinite() || !w.f1.allFinite()) {
      ok = false;
      message = fmt::format("{}: non-finite state or derivative at t = {:.17g} s (h = {:g} s)",
                            name(), w.t1, h);
    }
  }
  if (!ok) {
    result.status = StepResult::Status::failure;
    result.message = message;
    return result;
  }
  ++w.stats.steps;
  w.have_step = true;
  w.t = w.t1;
  w.x = w.x1;
  w.f = w.f1;
  if (w.crossing_count() > 0) {
    w.z_lo = w.z;
    evaluate_crossings(w.t1, w.x1, w.z_hi);
    if (locate_root(result)) return result;
    w.z = w.z_hi;
  }
  result.t = w.t;
  result.status =
      reaches_stop ? StepResult::Status::stop_time_reached : StepResult::Status::step_taken;
  return result;
}

bool FixedStepIntegrator::locate_root(StepResult& result) {
  Work& w = *work_;
  const int count = w.crossing_count();
  auto any_crossing = [&](const VectorX& from, const VectorX& to) {
    for (int i = 0; i < count; ++i) {
      if (crosses(from[i], to[i], w.directions[i])) return true;
    }
    return false;
  };
  if (!any_crossing(w.z_lo, w.z_hi)) return false;

  // Illinois: a bracket end kept twice in a row has its values halved in the secant estimate.
  const double tolerance = 100.0 * kUnitRoundoff * (std::abs(w.t1) + std::abs(w.t1 - w.t0));
  double t_lo = w.t0;
  double t_hi = w.t1;
  double scale_lo = 1.0;
  double scale_hi = 1.0;
  enum class Moved { none, lo, hi } last_moved = Moved::none;
  for (int iteration = 0; iteration < kMaxRootIterations && t_hi - t_lo > tolerance; ++iteration) {
    double t_mid = t_hi;
    for (int i = 0; i < count; ++i) {
      if (!crosses(w.z_lo[i], w.z_hi[i], w.directions[i])) continue;
      const double a = scale_lo * w.z_lo[i];
      const double b = scale_hi * w.z_hi[i];
      t_mid = std::min(t_mid, t_hi - (t_hi - t_lo) * b / (b - a));
    }
    t_mid = std::clamp(t_mid, t_lo + 0.5 * tolerance, t_hi - 0.5 * tolerance);
    interpolate(t_mid, w.x_mid);
    evaluate_crossings(t_mid, w.x_mid, w.z_mid);
    if (any_crossing(w.z_lo, w.z_mid)) {
      t_hi = t_mid;
      w.z_hi = w.z_mid;
      scale_hi = 1.0;
      if (last_moved == Moved::hi) scale_lo *= 0.5;
      last_moved = Moved::hi;
    } else {
      t_lo = t_mid;
      w.z_lo = w.z_mid;
      scale_lo = 1.0;
      if (last_moved == Moved::lo) scale_hi *= 0.5;
      last_moved = Moved::lo;
    }
  }
  result.status = StepResult::Status::root_found;
  result.t = t_hi;
  result.roots_found.assign(count, 0);
  for (int i = 0; i < count; ++i) {
    if (crosses(w.z_lo[i], w.z_hi[i], w.directions[i])) {
      result.roots_found[i] = w.z_lo[i] < 0.0 ? 1 : -1;
    }
  }
  // The integrator stands at the root; its step's dense output stays valid up to there.
  if (t_hi != w.t1) {
    interpolate(t_hi, w.x);
    w.t = t_hi;
    w.f_valid = false;
  }
  w.z = w.z_hi;
  return true;
}

void FixedStepIntegrator::current_state(VectorX& x) const {
  x = work_->x;
}

void FixedStepIntegrator::interpolate(double t, VectorX& x) const {
  const Work& w = *work_;
  if (!w.have_step || t == w.t1) {
    x = w.have_step ? w.x1 : w.x;
    return;
  }
  if (t == w.t0) {
    x = w.x0;
    return;
  }
  // Cubic Hermite on [t0, t1] in s = (t - t0) / h.
  const double h = w.t1 - w.t0;
  const double s = (t - w.t0) / h;
  const double s2 = s * s;
  const double s3 = s2 * s;
  const double h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
  const double h10 = s3 - 2.0 * s2 + s;
  const double h01 = -2.0 * s3 + 3.0 * s2;
  const double h11 = s3 - s2;
  x = h00 * w.x0 + (h10 * h) * w.f0 + h01 * w.x1 + (h11 * h) * w.f1;
}

IntegratorStats FixedStepIntegrator::segment_statistics() const {
  return work_ ? work_->stats : IntegratorStats{};
}

}  // namespace hybridsim
