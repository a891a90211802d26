#include "core/contact_law.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace hybridsim {
namespace {

// Bisection on a sign change of f over (lo, hi): robust, and 200 halvings reach the last bit.
template <typename Function>
double bisect(Function f, double lo, double hi) {
  const bool f_lo_positive = f(lo) > 0.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if ((f(mid) > 0.0) == f_lo_positive) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

// g(alpha, e) = (1 + e) alpha - ln((1 + alpha) / (1 - e alpha)): positive near alpha = 0+ (it
// behaves as (1 - e^2) alpha^2 / 2) and tends to -inf as alpha -> 1/e, so one root lies between.
double restitution_relation(double alpha, double e) {
  return (1.0 + e) * alpha - std::log1p(alpha) + std::log1p(-e * alpha);
}

}  // namespace

double exact_damping_alpha(double restitution) {
  if (restitution >= 1.0) return 0.0;
  if (restitution <= 0.0) return kInfinity;
  const double e = restitution;
  // Start just above 0 where g > 0: g ~ (1 - e^2) alpha^2 / 2 dominates the rounding of the logs.
  const double lo = 1e-6 * (1.0 - e);
  const double hi = 1.0 / e;
  return bisect([e](double alpha) { return restitution_relation(alpha, e); }, lo, hi);
}

double achieved_restitution(double alpha) {
  if (alpha <= 0.0) return 1.0;
  // As a function of e_a, h(e_a) = (1 + e_a) alpha - ln(1 + alpha) + ln(1 - e_a alpha) is
  // positive at e_a = 0 and falls to -inf at e_a = 1/alpha, so a root lies in (0, min(1, 1/alpha)).
  const double hi = std::min(1.0, 1.0 / alpha);
  if (restitution_relation(alpha, hi * (1.0 - 1e-15)) > 0.0) return hi;
  return bisect([alpha](double e) { return restitution_relation(alpha, e); }, 0.0, hi);
}

double compute_damping_coefficient(const ContactLawParameters& law, double pre_impact_speed) {
  const double v = std::abs(pre_impact_speed);
  const double e = v > law.v_small ? law.restitution : 0.0;
  double d = kInfinity;
  switch (law.damping_model) {
    case DampingModel::exact:
      d = (e == law.restitution ? law.exact_alpha : exact_damping_alpha(e)) / v;
      break;
    case DampingModel::flores:
      d = 8.0 * (1.0 - e) / (5.0 * e * v);
      break;
    case DampingModel::hunt_crossley:
      d = 3.0 * (1.0 - e) / (2.0 * v);
      break;
    case DampingModel::lankarani_nikravesh:
      d = 3.0 * (1.0 - e * e) / (4.0 * v);
      break;
    case DampingModel::gonthier:
      d = (1.0 - e * e) / (e * v);
      break;
  }
  // e = 0 or v = 0 make d infinite (or NaN for 0/0): the cap d_max takes over.
  if (!(d < law.max_damping)) d = law.max_damping;
  return d;
}

double compute_contact_damping(const ContactLawParameters& law, double pre_impact_speed) {
  switch (law.normal_law) {
    case NormalLaw::elastic:
      return compute_damping_coefficient(law, pre_impact_speed);
    case NormalLaw::hunt_crossley:
      return law.dissipation;
    case NormalLaw::linear:
      return law.kd;
  }
  return 0.0;
}

double compute_normal_force(const ContactLawParameters& law, double damping, double penetration,
                            double penetration_rate) {
  const double delta = std::max(penetration, 0.0);
  double f_n = 0.0;
  if (law.normal_law == NormalLaw::linear) {
    f_n = law.kp * std::max(delta - law.min_depth, 0.0) + damping * penetration_rate;
    // ODE's max_vel: the force that would drive the surfaces apart faster than max_vel is cut to
    // the damper that lets them separate at max_vel (an unloaded pair then leaves at that speed).
    if (law.max_vel < kInfinity) {
      f_n = std::min(f_n, law.max_vel_damping * (law.max_vel + penetration_rate));
    }
    if (delta == 0.0) f_n = 0.0;  // no contact force without penetration
  } else {
    // delta^1.5 as delta sqrt(delta): the Hertz exponent, several times cheaper than pow.
    const double delta_n = law.n_geo == 1.5   ? delta * std::sqrt(delta)
                           : law.n_geo == 1.0 ? delta
                                              : std::pow(delta, law.n_geo);
    f_n = law.stiffness * delta_n * (1.0 + damping * penetration_rate);
  }
  return law.clamp ? std::max(f_n, 0.0) : f_n;
}

double compute_elastic_energy(const ContactLawParameters& law, double penetration) {
  if (penetration <= 0.0) return 0.0;
  if (law.normal_law == NormalLaw::linear) {
    // The spring's energy (under max_vel the cap, which depends on the rate, can hold it back).
    const double spring = std::max(penetration - law.min_depth, 0.0);
    return 0.5 * law.kp * spring * spring;
  }
  const double n = law.n_geo;
  return law.stiffness * std::pow(penetration, n + 1.0) / (n + 1.0);
}

double compute_spin_lever(const ContactLawParameters& law, double penetration) {
  constexpr double kPatchLever = 3.0 * std::numbers::pi / 16.0;
  if (law.torsional_patch_radius > 0.0) return kPatchLever * law.torsional_patch_radius;
  if (law.torsional_surface_radius > 0.0) {
    return kPatchLever * std::sqrt(law.torsional_surface_radius * std::max(penetration, 0.0));
  }
  return law.r_geo;
}

ContactForce compute_contact_force(const ContactLawParameters& law, double damping,
                                   const ContactKinematics& kinematics) {
  ContactForce result;
  if (law.observer) return result;
  const Vec3& n = kinematics.n_AB_W;
  const double f_n =
      compute_normal_force(law, damping, kinematics.penetration, kinematics.penetration_rate);
  result.normal_force = f_n;

  // Friction and resistance torques scale with the compressive part of the normal force only.
  const double f_press = std::max(f_n, 0.0);
  if (law.friction.model == FrictionModel::stick_slip && !kinematics.slip_direction_W.isZero()) {
    result.friction_W =
        kinematics.sticking
            ? Vec3::Zero()
            : Vec3(-law.friction.mu_kinetic * f_press * kinematics.slip_direction_W);
  } else if (!(law.friction.model == FrictionModel::stick_slip && kinematics.sticking)) {
    result.friction_W = compute_friction_force(law.friction, f_press, kinematics.v_slip_W, n,
                                               kinematics.fdir1_W, kinematics.contact_count);
  }
  result.f_B_W = f_n * n + result.friction_W;

  // Rolling resistance opposes the tangential part of the relative rotation, torsional friction
  // the normal part; Modia3D's merged form opposes the whole relative rotation with mu_r.
  if (f_press > 0.0 && (law.rolling_resistance > 0.0 || law.torsional_friction > 0.0)) {
    const Vec3& w_rel = kinematics.w_rel_W;
    const double lever = compute_rolling_lever(law) * f_press;
    if (law.merged_rolling_torque) {
      result.tau_B_W -=
          law.rolling_resistance * lever * w_rel / regularize_speed(w_rel.norm(), law.w_small);
    } else {
      const double spin = w_rel.dot(n);
      if (law.rolling_resistance > 0.0 && !kinematics.rolling_direction_W.isZero()) {
        // Rolling stick, rolling on: unregularised against the rolling direction.
        result.tau_B_W -= law.rolling_resistance * lever * kinematics.rolling_direction_W;
      } else if (law.rolling_resistance > 0.0 && !kinematics.rolling_sticking) {
        const Vec3 w_tangent = w_rel - spin * n;
        result.tau_B_W -= law.rolling_resistance * lever /
                          regularize_speed(w_tangent.norm(), law.w_small) * w_tangent;
      }
      const double spin_lever = compute_spin_lever(law, kinematics.penetration) * f_press;
      if (law.torsional_friction > 0.0 && kinematics.spin_direction != 0.0) {
        // Torsional stick, turning: unregularised against the sense of the last event.
        result.tau_B_W -= law.torsional_friction * spin_lever * kinematics.spin_direction * n;
      } else if (law.torsional_friction > 0.0 && !kinematics.spin_sticking) {
        result.tau_B_W -= law.torsional_friction * spin_lever * spin /
                          regularize_speed(std::abs(spin), law.w_small) * n;
      }
    }
  }
  return result;
}

std::string_view to_string(NormalLaw law) {
  switch (law) {
    case NormalLaw::elastic:
      return "elastic";
    case NormalLaw::hunt_crossley:
      return "hunt_crossley";
    case NormalLaw::linear:
      return "linear";
  }
  return "?";
}

std::string_view to_string(DampingModel model) {
  switch (model) {
    case DampingModel::exact:
      return "exact";
    case DampingModel::flores:
      return "flores";
    case DampingModel::hunt_crossley:
      return "hunt_crossley";
    case DampingModel::lankarani_nikravesh:
      return "lankarani_nikravesh";
    case DampingModel::gonthier:
      return "gonthier";
  }
  return "?";
}

}  // namespace hybridsim
