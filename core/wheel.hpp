// Wheels (design.md §4b): a view on the contacts of a body's shapes. A wheel names the body, its
// spin axis and radius; per contact it defines the wheel contact frame (n, t_lat, t_lon), the slip
// ratios, and feeds the friction law its wheel-slip compliance, the normal its plowing tilt and the
// wheel a rolling-resistance torque. core/wheel_contact.hpp evaluates it.
#pragma once

#include <string>
#include <vector>

#include "core/math.hpp"

namespace hybridsim {

// Plowing of deformable terrain (shapes flagged plowable): the normal force on the wheel tilts
// backward, about t_lat, by theta(|v_W,lon|): 0 up to the deadband speed, linear up to max_angle
// at the saturation speed, max_angle beyond. With `lateral`, the same law of |v_W,lat| tilts it
// about t_lon against the lateral motion.
struct WheelPlowing {
  double max_angle = 0.0;   // rad, in [0, pi/2)
  double deadband = 0.0;    // m/s
  double saturation = 0.0;  // m/s, > deadband
  bool lateral = false;
};

// Slope-dependent slip compliance: the unitless compliances times a factor that rises linearly
// from 1 at slope angle `start` to `factor` at `end` and stays there (the slope angle is that of
// the contact normal from the vertical, -gravity). factor 1: off.
struct SlopeCompliance {
  double start = 0.0;   // rad
  double end = 0.0;     // rad, > start
  double factor = 1.0;  // dimensionless, > 0
};

// A nonlinear traction law in the slip ratio s (s_a accelerating, s_b braking) for the
// longitudinal force, replacing the saturated-linear compliance in that direction:
//   janosi_hanamoto  T = mu N (1 - K / (|s| L) (1 - exp(-|s| L / K))) sgn(s): Janosi and
//                    Hanamoto's shear law integrated over a contact patch of length L under
//                    uniform pressure (Wong, Theory of Ground Vehicles; Yoshida and Hamano 2002
//                    use the shear law for rover wheels in soil).
// The slip's denominator is max(|R omega|, |v_W,lon|, v_small), so that the law is finite and
// linear in the slip velocity at standstill.
struct TractionLaw {
  enum class Model { none, janosi_hanamoto };
  Model model = Model::none;
  double shear_deformation = 0.0;  // K, m
  double contact_length = 0.0;     // L, m
  double v_small = 1e-3;           // m/s
};

struct Wheel {
  std::string name;                 // unique among Model::wheels
  int body = -1;                    // index into Model::bodies (not fixed)
  Vec3 axis_B = Vec3::UnitY();      // unit spin axis w, body frame
  Vec3 p_BCenter_B = Vec3::Zero();  // the wheel centre W on the axle, body frame, m
  double radius = 0.0;              // nominal radius, m (rolling resistance's lever)
  std::vector<int> shapes;          // Model::shapes indices of the shapes that touch the ground
  // Wheel-slip compliance (Gazebo's WheelSlipPlugin): per direction c = c_unitless R |omega| /
  // N_est + min_slip_compliance (m/s/N), a pyramid with the lateral direction first. Without it
  // (slip_compliance false) the contact material's friction law applies, with fdir1 the axle.
  bool slip_compliance = false;
  double lateral_compliance = 0.0;       // unitless
  double longitudinal_compliance = 0.0;  // unitless
  // N_est, N; actual_normal_force: the contact's own normal force instead.
  double normal_force_estimate = 1.0;
  bool actual_normal_force = false;
  // m/s/N: keeps the law finite at omega = 0 (a braked wheel); 1e-8 m/s/N creeps 1e-8 m/s per N
  // of tangential load.
  double min_slip_compliance = 1e-8;
  // Friction coefficients (lateral, longitudinal); < 0: those of the contact material.
  double mu_lateral = -1.0;
  double mu_longitudinal = -1.0;
  SlopeCompliance slope_compliance;
  TractionLaw traction;
  WheelPlowing plowing;
  double rolling_resistance = 0.0;  // C_rr, dimensionless: torque C_rr N R against the spin
};

}  // namespace hybridsim
