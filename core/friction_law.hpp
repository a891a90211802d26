// Friction laws (design.md §5): the tangential force of one contact from its normal force and
// slip velocity. Cone (|f_t| <= mu f_n against the slip) or pyramid (each of two tangent
// directions t1, t2 on its own; t1 from the shape's fdir1 projected onto the tangent plane).
#pragma once

#include <string_view>

#include "core/math.hpp"

namespace hybridsim {

// none: no tangential force. regularized_coulomb: mu f_n against the slip, regularised below
// v_small. stribeck: Drake's mu(|v|) from mu_s to mu_d (stribeck_coefficient). slip_compliance:
// f = -v / c per direction (c the slip compliance), saturated at mu f_n. stick_slip: unregularised
// Coulomb, mu_k f_n against the slip, while a contact slides; a contact that sticks is held by
// constraint rows instead (core/stick_slip.hpp), with mu_s f_n its static limit.
enum class FrictionModel { none, regularized_coulomb, stribeck, slip_compliance, stick_slip };

// The friction law of a contact-material pair and its coefficients (dimensionless unless given).
struct FrictionParameters {
  FrictionModel model = FrictionModel::regularized_coulomb;
  double mu_kinetic = 0.0;  // kinetic coefficient (mu_d of stribeck); direction t1 of the pyramid
  double mu_static = 0.0;   // stribeck and stick_slip mu_s
  // Coefficient of the pyramid's direction t2, read through mu_second(): regularized_coulomb and
  // slip_compliance use it as is, stribeck scales mu_s and mu_d by mu2 / mu_kinetic. < 0: same
  // as mu_kinetic.
  double mu2 = -1.0;
  double v_small = 0.01;  // m/s, regularized Coulomb: slip speed below which mu is smoothed
  double stiction_tolerance = 1e-4;                           // m/s, stribeck v_s
  Eigen::Vector2d slip_compliance = Eigen::Vector2d::Zero();  // m/s/N along t1, t2
  bool cone = true;  // true: cone (|f_t| <= mu f_n against the slip); false: pyramid (t1, t2)
  // Gazebo's normalisation: each contact's slip compliance times the number of contact points
  // of the same pair of collision shapes, so that n points slip like one.
  bool scale_by_contact_count = false;
  // stick_slip: the spin about the normal sticks too (a constraint row, the torsional friction's
  // mu_tor r_geo f_n its limit), and slides with the unregularised torque while it turns.
  bool torsional_stick = false;
  // stick_slip: the rolling (the relative rotation about the tangents) sticks too (two rotation
  // rows, the rolling resistance's mu_r lever f_n its limit), and rolls on with the unregularised
  // torque against the rolling direction of the last event.
  bool rolling_stick = false;

  // The coefficient of the pyramid's direction t2: mu2, or mu_kinetic when mu2 < 0.
  double mu_second() const { return mu2 >= 0.0 ? mu2 : mu_kinetic; }
};

// Drake's Stribeck coefficient: with s = |v| / v_s and S(x) = x^3 (10 - 15 x + 6 x^2),
// mu_s S(s) on [0, 1), mu_s - (mu_s - mu_d) S((s - 1) / 2) on [1, 3), mu_d beyond. C1.
// slip_speed |v| and stiction_tolerance v_s in m/s; the result is dimensionless.
double stribeck_coefficient(double mu_static, double mu_dynamic, double slip_speed,
                            double stiction_tolerance);

// Tangent directions: t1 = fdir1_W projected onto the plane normal to n (world x, else world y,
// projected, when fdir1 is zero or parallel to n), t2 = n x t1.
void compute_friction_directions(const Vec3& n_W, const Vec3& fdir1_W, Vec3& t1_W, Vec3& t2_W);

// Friction force on B, N, world frame, for normal force f_n >= 0 (N; zero force for f_n <= 0) and
// slip v_slip_W (m/s, tangential part of v_B(C) - v_A(C)). n_W: unit normal from A to B;
// fdir1_W: first friction direction (zero: none), for the pyramid and anisotropic compliance.
// `contact_count`: the contact points of the same shape pair (scale_by_contact_count).
Vec3 compute_friction_force(const FrictionParameters& friction, double normal_force,
                            const Vec3& v_slip_W, const Vec3& n_W, const Vec3& fdir1_W,
                            int contact_count = 1);

// The direction a sliding stick_slip patch's friction opposes (unit): that of
// v_slip + (max(-v_slip . d, 0) + eps) d, with v_slip the patch's slip (m/s, tangential), d (unit,
// tangential) its slip direction at the last event and eps = kSlipDirectionSpeed. At zero slip
// (right after a break-away) it is d, and it never turns against d before the patch's event
// stops the slide; above 1 mm/s it differs from the slip's direction by less than 1e-6 rad.
// The force of each point is then exactly -mu_k f_n times it.
inline constexpr double kSlipDirectionSpeed = 1e-9;  // m/s
Vec3 compute_kinetic_friction_direction(const Vec3& v_slip_W, const Vec3& slip_direction_W);

// reg(v, vs) of Modia3D: v for v >= vs, else v^2/vs (1 - v/(3 vs)) + vs/3; C1 and positive.
// Inline: every contact law divides by it, and a call costs about as much as the division.
inline double regularize_speed(double speed, double small_speed) {
  if (speed >= small_speed) return speed;
  return speed * speed / small_speed * (1.0 - speed / (3.0 * small_speed)) + small_speed / 3.0;
}

// The enumerator's name as in scene files ("none", "regularized_coulomb", ...).
std::string_view to_string(FrictionModel model);

}  // namespace hybridsim
