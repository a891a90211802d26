// The wheel contact frame, slip ratios, wheel-slip compliance and plowing angle of one wheel
// contact (Gazebo's "Simulating wheel-terrain contact" tutorial; Yoshida and Hamano 2002 for the
// slip ratios). Pure functions of the contact's kinematics, so that the friction law stays a
// function of the state and contact events stay exact.
#pragma once

#include "core/math.hpp"
#include "core/wheel.hpp"

namespace hybridsim {

// The wheel contact frame and the wheel's motion in it, at contact point C.
struct WheelContactState {
  Vec3 n_W = -Vec3::UnitZ();     // unit normal from the wheel into the ground
  Vec3 t_lat_W = Vec3::UnitY();  // the spin axis projected onto the tangent plane, unit
  Vec3 t_lon_W = Vec3::UnitX();  // n x t_lat: forward for a positive spin
  double v_t_lon = 0.0;          // slip velocity of the wheel at C, relative to the ground, m/s
  double v_t_lat = 0.0;
  double v_W_lon = 0.0;  // velocity of the centre W relative to the ground's point at C, m/s
  double v_W_lat = 0.0;
  double omega = 0.0;    // spin rate about the axis, rad/s
  double radius = 0.0;   // R: distance from the axle to C, m
  double R_omega = 0.0;  // R omega, m/s
  // Slip ratios. s_a = (R omega - v_W,lon) / (R omega) when |R omega| >= |v_W,lon| and
  // R omega != 0 (else 0); s_b = (R omega - v_W,lon) / v_W,lon when |R omega| < |v_W,lon| (else 0);
  // both 0 at rest. S_a = (R omega - v_W,lon) / (R |omega|), 0 when omega = 0. alpha = atan(v_W,lat
  // / v_W,lon),
  // +-pi/2 when v_W,lon = 0 and v_W,lat != 0, 0 when both are 0. Never NaN for finite input.
  double s_a = 0.0;
  double s_b = 0.0;
  double S_a = 0.0;
  double alpha = 0.0;  // rad, in [-pi/2, pi/2]
};

// The frame and slip of a wheel contact. n_W: unit normal from the wheel into the ground; axis_W:
// the unit spin axis; p_WCenter, p_WC: the wheel centre and the contact point (m); v_center_W:
// the centre's velocity minus the ground's material velocity at C; v_slip_W: the wheel's material
// velocity at C minus the ground's (m/s); omega: spin rate about axis_W (rad/s). When the axis is
// along n, t_lat is world x (else y) projected, as for friction directions.
WheelContactState compute_wheel_contact(const Vec3& n_W, const Vec3& axis_W, const Vec3& p_WCenter,
                                        const Vec3& p_WC, const Vec3& v_center_W,
                                        const Vec3& v_slip_W, double omega);

// The slip ratios of the state's R_omega, v_W,lon and v_W,lat into s_a, s_b, S_a and alpha.
void compute_slip_ratios(WheelContactState& state);

// Wheel-slip compliance of one direction, m/s/N: c_unitless R |omega| / N + c_min (N > 0; c_min
// alone otherwise).
double wheel_slip_compliance(double unitless_compliance, double R_abs_omega, double normal_force,
                             double min_compliance);

// The slope factor on the unitless compliances at slope angle `slope` (rad).
double slope_compliance_factor(const SlopeCompliance& slope_compliance, double slope);

// The janosi_hanamoto traction coefficient T / (mu N) at slip ratio s (dimensionless, odd in s,
// in (-1, 1)); K and L in m.
double janosi_hanamoto_coefficient(double slip, double shear_deformation, double contact_length);

// The slip ratio the traction law uses: (R omega - v_W,lon) / max(|R omega|, |v_W,lon|, v_small).
double traction_slip(const WheelContactState& state, double v_small);

// The plowing tilt, rad, at speed |v| (m/s): 0 up to the deadband, linear up to max_angle at the
// saturation speed, max_angle beyond.
double plowing_angle(const WheelPlowing& plowing, double speed);

}  // namespace hybridsim
