#include "core/wheel_contact.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/friction_law.hpp"

namespace hybridsim {

WheelContactState compute_wheel_contact(const Vec3& n_W, const Vec3& axis_W, const Vec3& p_WCenter,
                                        const Vec3& p_WC, const Vec3& v_center_W,
                                        const Vec3& v_slip_W, double omega) {
  WheelContactState state;
  state.n_W = n_W;
  compute_friction_directions(n_W, axis_W, state.t_lat_W, state.t_lon_W);
  // compute_friction_directions gives t2 = n x t1, the frame's t_lon = n x t_lat.
  state.v_t_lon = v_slip_W.dot(state.t_lon_W);
  state.v_t_lat = v_slip_W.dot(state.t_lat_W);
  state.v_W_lon = v_center_W.dot(state.t_lon_W);
  state.v_W_lat = v_center_W.dot(state.t_lat_W);
  state.omega = omega;
  // Distance from the axle line to C: the part of W -> C across the axis.
  const Vec3 r_W = p_WC - p_WCenter;
  state.radius = (r_W - r_W.dot(axis_W) * axis_W).norm();
  state.R_omega = state.radius * omega;
  compute_slip_ratios(state);
  return state;
}

void compute_slip_ratios(WheelContactState& state) {
  const double spin = state.R_omega;
  const double v = state.v_W_lon;
  const double numerator = spin - v;
  state.s_a = 0.0;
  state.s_b = 0.0;
  // Accelerating where |R omega| >= |v| (ties, including R omega = -v, read as accelerating),
  // braking where |R omega| < |v|; at rest neither.
  if (spin != 0.0 && std::abs(spin) >= std::abs(v)) {
    state.s_a = numerator / spin;
  } else if (v != 0.0) {
    state.s_b = numerator / v;
  }
  state.S_a = spin != 0.0 ? numerator / std::abs(spin) : 0.0;
  if (v != 0.0) {
    state.alpha = std::atan(state.v_W_lat / v);
  } else {
    state.alpha = state.v_W_lat == 0.0 ? 0.0 : std::copysign(0.5 * std::numbers::pi, state.v_W_lat);
  }
}

double wheel_slip_compliance(double unitless_compliance, double R_abs_omega, double normal_force,
                             double min_compliance) {
  if (!(normal_force > 0.0)) return min_compliance;
  return unitless_compliance * R_abs_omega / normal_force + min_compliance;
}

double slope_compliance_factor(const SlopeCompliance& slope_compliance, double slope) {
  const SlopeCompliance& c = slope_compliance;
  if (c.factor == 1.0 || slope <= c.start) return 1.0;
  if (slope >= c.end) return c.factor;
  return 1.0 + (c.factor - 1.0) * (slope - c.start) / (c.end - c.start);
}

double janosi_hanamoto_coefficient(double slip, double shear_deformation, double contact_length) {
  const double x = std::abs(slip) * contact_length / shear_deformation;
  // 1 - (1 - e^-x) / x, with its series x/2 - x^2/6 + x^3/24 near 0 (no cancellation).
  const double shear = x < 1e-4 ? x * (0.5 - x * (1.0 / 6.0 - x / 24.0)) : 1.0 + std::expm1(-x) / x;
  return std::copysign(shear, slip);
}

double traction_slip(const WheelContactState& state, double v_small) {
  const double scale = std::max({std::abs(state.R_omega), std::abs(state.v_W_lon), v_small});
  return (state.R_omega - state.v_W_lon) / scale;
}

double plowing_angle(const WheelPlowing& plowing, double speed) {
  if (speed <= plowing.deadband) return 0.0;
  if (speed >= plowing.saturation) return plowing.max_angle;
  return plowing.max_angle * (speed - plowing.deadband) / (plowing.saturation - plowing.deadband);
}

}  // namespace hybridsim
