// Closed-form references (models/closed_form.hpp), checked independently of the simulator:
//  - Jacobi elliptic functions against the inverse of a numerically integrated incomplete
//    elliptic integral u = F(phi | m) (then sn u = sin phi), and against their identities;
//  - the compound pendulum's closed form starts at the scene's initial state, satisfies the
//    equations of motion (its central difference equals MultibodySystem's derivative), returns to
//    its start after one period, and CVODE converges to it;
//  - scenes without a closed form are refused with the reason.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "core/errors.hpp"
#include "models/closed_form.hpp"
#include "test_support.hpp"

namespace hybridsim {
namespace {

// F(phi | m) by composite Simpson with 20000 intervals: the integrand is smooth (m <= 0.99),
// so the error, ~ h^4 max|f''''| / 180, is far below 1e-13.
double incomplete_elliptic_f(double phi, double m) {
  constexpr int kIntervals = 20000;
  const double h = phi / kIntervals;
  auto f = [m](double theta) {
    return 1.0 / std::sqrt(1.0 - m * std::sin(theta) * std::sin(theta));
  };
  double sum = f(0.0) + f(phi);
  for (int i = 1; i < kIntervals; ++i) sum += (i % 2 == 1 ? 4.0 : 2.0) * f(i * h);
  return sum * h / 3.0;
}

TEST_CASE("jacobi elliptic functions: sn(F(phi|m)) = sin(phi), with their identities") {
  for (double m : {0.0, 0.1, 0.5, 0.9, 0.99}) {
    CAPTURE(m);
    CHECK(complete_elliptic_k(m) ==
          doctest::Approx(incomplete_elliptic_f(std::numbers::pi / 2, m)).epsilon(1e-12));
    for (double phi : {0.1, 0.7, 1.3, 1.5}) {
      CAPTURE(phi);
      const double u = incomplete_elliptic_f(phi, m);
      const JacobiElliptic e = jacobi_elliptic(u, m);
      CHECK(e.sn == doctest::Approx(std::sin(phi)).epsilon(1e-12));
      CHECK(e.cn == doctest::Approx(std::cos(phi)).epsilon(1e-12));
      CHECK(e.dn ==
            doctest::Approx(std::sqrt(1.0 - m * std::sin(phi) * std::sin(phi))).epsilon(1e-12));
      // Periodicity 4K, reduced before the Landen descent: 25 periods on, the same values.
      const JacobiElliptic later = jacobi_elliptic(u + 100.0 * complete_elliptic_k(m), m);
      CHECK(later.sn == doctest::Approx(e.sn).epsilon(1e-11));
      CHECK(later.cn == doctest::Approx(e.cn).epsilon(1e-11));
    }
  }
  CHECK_THROWS_AS(jacobi_elliptic(1.0, 1.0), InputError);
}

TEST_CASE("closed form: the compound pendulum solves the pendulum scene's equations") {
  Model model = load_scene_file("pendulum");
  const ClosedForm form = find_closed_form(model);
  CHECK(form.name == "compound_pendulum");
  // The scene's own reference: T = 4 sqrt(L_eq / g) K(sin(85 deg)) = 4.8962 s with
  // L_eq = L + (2/5) r^2 / L = 1.001 m (models/scenes/pendulum.yaml).
  const double k = std::sin(85.0 * std::numbers::pi / 180.0);
  CHECK(form.period ==
        doctest::Approx(4.0 * std::sqrt(1.001 / 9.81) * complete_elliptic_k(k * k)).epsilon(1e-12));

  MultibodySystem system(model);
  const int n = system.state_size();
  VectorX x0(n), x(n), x_plus(n), x_minus(n), xdot(n);
  system.initial_state(x0);
  form.state(0.0, x);
  CHECK((x - x0).lpNorm<Eigen::Infinity>() < 1e-14);

  // x' = f(x) along the solution: central differences with h = 1e-5 s have truncation error
  // h^2 |x'''| / 6 < 1e-9 (|x'''| < 100 for these speeds) and round-off 1e-16 / 1e-5; 1e-7 is
  // far above both and far below a wrong frequency or sign (errors of order 1).
  constexpr double h = 1e-5;
  for (double t : {0.3, 1.1, 2.45, 3.7}) {
    CAPTURE(t);
    form.state(t, x);
    form.state(t + h, x_plus);
    form.state(t - h, x_minus);
    system.compute_derivatives(t, x, xdot);
    CHECK(((x_plus - x_minus) / (2 * h) - xdot).lpNorm<Eigen::Infinity>() < 1e-7);
  }
  // One period later, the start again.
  form.state(form.period, x);
  CHECK((x - x0).lpNorm<Eigen::Infinity>() < 1e-12);

  // CVODE converges to it: over two periods (9.8 s) the error falls with the tolerance, by more
  // than two decades per three decades of rtol (the global error of a 170-degree swing is far
  // above rtol: its period is very sensitive to the energy near the top; measured 4e-6 at rtol
  // 1e-10 and below 1e-8 at 1e-13).
  model.simulation.stop_time = 2.0 * form.period;
  form.state(model.simulation.stop_time, x);
  double previous_error = kInfinity;
  for (double rtol : {1e-7, 1e-10, 1e-13}) {
    CAPTURE(rtol);
    model.simulation.rtol = rtol;
    model.simulation.atol = 1e-2 * rtol;
    const auto run = testing::run_scene(model);
    REQUIRE(run->result.status == SimulationStatus::ok);
    const double error = (run->final_state - x).lpNorm<Eigen::Infinity>();
    MESSAGE("rtol ", rtol, ": final error ", error);
    CHECK(error < 1e-2 * previous_error);
    previous_error = error;
  }
  CHECK(previous_error < 1e-7);
}

TEST_CASE("closed form: scenes without one are refused with the reason") {
  auto reason = [](const std::string& scene, const std::vector<std::string>& overrides = {}) {
    try {
      find_closed_form(load_scene_file(scene, overrides));
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  CHECK(reason("bouncing_sphere")
            .find("scene 'bouncing_sphere' has no closed form: the closed "
                  "forms need one free body") != std::string::npos);
  CHECK(reason("double_pendulum").find("one free body on one joint") != std::string::npos);
  CHECK(reason("pendulum", {"joints.hinge.initial.velocity=1.0"}).find("released from rest") !=
        std::string::npos);
}

}  // namespace
}  // namespace hybridsim
