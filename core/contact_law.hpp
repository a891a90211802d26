// Contact force laws (design.md §5). A law maps the kinematics of one contact (penetration,
// penetration rate, slip, relative angular velocity, stored pre-impact velocity) to the force on
// shape B at the contact point C and a pure torque on B; A receives the opposite.
//
// Normal laws, damping models and friction models are selected per contact-material pair by
// enums; each family has its own leaf functions (normal laws here, friction in friction_law.hpp).
//
// Normal laws (delta penetration, delta_dot its rate, positive approaching):
//   elastic        f_n = K delta^n (1 + d delta_dot), K = c_res c_geo, n = 1.5, d from v- and e
//   hunt_crossley  f_n = K delta^n (1 + d delta_dot), K and d combined from the two shapes
//   linear         f_n = kp (delta - min_depth)+ + kd delta_dot, at most D (max_vel + delta_dot)
// each clamped at f_n >= 0 unless the clamp is off.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "core/friction_law.hpp"
#include "core/math.hpp"
#include "core/wheel_contact.hpp"

namespace hybridsim {

// The normal force law of a contact (see above): elastic (Hertz with c_res, c_geo and a damping
// d from the pre-impact speed), hunt_crossley (K and d from the two shapes), linear (kp, kd).
enum class NormalLaw { elastic, hunt_crossley, linear };
// How the elastic law's damping d (s/m) follows from e and v = |v-| (compute_damping_coefficient):
//   exact               alpha*(e) / v, gives restitution e exactly (exact_damping_alpha)
//   flores              8 (1 - e) / (5 e v)
//   hunt_crossley       3 (1 - e) / (2 v)
//   lankarani_nikravesh 3 (1 - e^2) / (4 v)
//   gonthier            (1 - e^2) / (e v)
// each capped at d_max.
enum class DampingModel { exact, flores, hunt_crossley, lankarani_nikravesh, gonthier };

// Everything the force law needs for one contact, resolved when the contact starts.
struct ContactLawParameters {
  NormalLaw normal_law = NormalLaw::elastic;         // which normal force law applies
  DampingModel damping_model = DampingModel::exact;  // how the elastic law's d is found
  double exact_alpha = 0.0;  // exact_damping_alpha(restitution), for the exact damping model
  // N/m^2 (Pa), combined stiffness k_red * c1 c2 / (c1 + c2), with c_i = E_i / (1 - nu_i^2) of
  // the contact materials of the two shapes (Young's modulus E_i, Poisson ratio nu_i).
  double c_res = 0.0;
  double c_geo = 0.0;               // m^0.5, (4/3) sqrt(r_geo)
  double n_geo = 1.5;               // penetration exponent n (elastic: 1.5)
  double stiffness = 0.0;           // K of the elastic (c_res c_geo) and Hunt-Crossley laws, N/m^n
  double dissipation = 0.0;         // Hunt-Crossley d, s/m (combined from the shapes)
  double kp = 0.0;                  // linear law stiffness, N/m
  double kd = 0.0;                  // linear law damping, N s/m
  double min_depth = 0.0;           // linear law: depth the spring leaves uncorrected, m (ODE's)
  double max_vel = kInfinity;       // linear law: largest separation speed it drives, m/s (ODE's)
  double max_vel_damping = 0.0;     // D of that cap, N s/m: kd + max_vel_step kp
  bool observer = false;            // detect contact, apply no force
  double r_geo = 0.0;               // m, combined contact sphere radius
  double restitution = 1.0;         // coefficient of restitution e
  double v_small = 0.01;            // m/s, below this pre-impact speed e becomes 0
  double max_damping = 2000.0;      // s/m, d_max
  bool clamp = true;                // f_n >= 0
  FrictionParameters friction;      // tangential friction law and its coefficients
  double rolling_resistance = 0.0;  // mu_r, dimensionless (torque = mu_r * r_geo * f_n)
  double rolling_lever = 0.0;       // m: the rolling torque's lever instead of r_geo (0: r_geo)
  double torsional_friction = 0.0;  // mu_tor, dimensionless (torque = mu_tor * r_geo * f_n)
  double torsional_patch_radius = 0.0;    // m, a: spin lever (3 pi / 16) a instead of r_geo
  double torsional_surface_radius = 0.0;  // m, R: a = sqrt(R delta) (when no patch radius)
  double w_small = 0.01;                  // rad/s, regularization of the rolling and spin torques
  bool merged_rolling_torque = false;  // Modia3D: one torque opposing the whole relative rotation
};

// Kinematics of one contact, all in world frame.
struct ContactKinematics {
  double penetration = 0.0;       // delta = -distance, m (positive penetrating)
  double penetration_rate = 0.0;  // delta_dot = -v_rel . n, m/s (positive approaching)
  Vec3 n_AB_W = Vec3::UnitZ();    // unit normal from A to B
  Vec3 v_slip_W = Vec3::Zero();   // tangential part of v_B(C) - v_A(C), m/s
  Vec3 w_rel_W = Vec3::Zero();    // w_B - w_A, angular velocity of B's body minus A's, rad/s
  Vec3 fdir1_W = Vec3::Zero();    // unit first friction direction of the pair, zero for none
  int contact_count = 1;          // contact points of the same shape pair (Gazebo counts so)
  // stick_slip friction (models/multibody_stick_slip.cpp): whether the contact's friction patch
  // sticks (the law then gives no friction: constraint rows hold the patch), and else the unit
  // direction its friction opposes, common to the patch's points (compute_kinetic_friction_
  // direction; zero outside a patch: Coulomb against the point's own slip).
  bool sticking = false;
  Vec3 slip_direction_W = Vec3::Zero();
  // With torsional_stick: whether the patch's spin sticks (no torsional torque from the law), and
  // else the sense (+1 or -1) of the relative spin w_rel . n at the last event, which the
  // torsional friction opposes unregularised (0: the law's own regularised torque).
  bool spin_sticking = false;
  double spin_direction = 0.0;
  // With rolling_stick: whether the patch's rolling sticks (no rolling torque from the law), and
  // else the unit direction of the relative rotation's tangential part that the rolling
  // resistance opposes unregularised (compute_kinetic_friction_direction; zero: the law's own).
  bool rolling_sticking = false;
  Vec3 rolling_direction_W = Vec3::Zero();
};

// The contact law's output for one contact, world frame; zero for an observer pair.
struct ContactForce {
  Vec3 f_B_W = Vec3::Zero();       // force on B at C, N (A receives -f_B_W)
  Vec3 tau_B_W = Vec3::Zero();     // pure torque on B, N m (A receives -tau_B_W)
  double normal_force = 0.0;       // N, f_n along n_AB_W (negative only when unclamped)
  Vec3 friction_W = Vec3::Zero();  // tangential part of f_B_W, N
};

// Per-pair results of the contact law at one instant (Modia3D's ContactResult), world frame.
struct ContactResult {
  // Key of the shape pair: shape_a (the smaller index) in the high 32 bits, shape_b in the low.
  std::uint64_t pair = 0;
  int slot = 0;      // the point's slot in its pair (one point per pair: 0), stable while it lasts
  int shape_a = -1;  // Model::shapes index of A (A < B)
  int shape_b = -1;  // Model::shapes index of B
  // What makes the point on A and on B (collision/contact_manifold.hpp's FeatureKind, index,
  // index2; kind 0, "shape", for one point per pair).
  std::array<int, 3> feature_a{0, 0, 0};
  std::array<int, 3> feature_b{0, 0, 0};
  double penetration = 0.0;              // delta, m
  double penetration_rate = 0.0;         // delta_dot, m/s, positive approaching
  Vec3 slip_velocity_W = Vec3::Zero();   // tangential v_B(C) - v_A(C), m/s
  double normal_force = 0.0;             // N
  Vec3 friction_force_W = Vec3::Zero();  // tangential force on B, N
  Vec3 point_W = Vec3::Zero();           // contact point C, world frame, m
  Vec3 normal_W = Vec3::Zero();          // unit normal from A to B
  Vec3 force_on_B_W = Vec3::Zero();      // total force on B at C, N (A receives the opposite)
  Vec3 torque_on_B_W = Vec3::Zero();     // pure torque on B, N m (rolling and spin resistance)
  Vec3 witness_A_W = Vec3::Zero();       // witness point on A's surface (seed 000's Aw), m
  Vec3 witness_B_W = Vec3::Zero();       // witness point on B's surface (Bw), m
  // A wheel's contact: its index into Model::wheels (-1: none) and its wheel contact frame and
  // slip at the geometric contact point (point_W and normal_W are those of the law, tilted by
  // plowing).
  int wheel = -1;
  WheelContactState wheel_state;
};

// Positive root alpha* of (1 + e) alpha = ln((1 + alpha) / (1 - e alpha)) on (0, 1/e): with
// d = alpha*/v the elastic law gives restitution e exactly. 0 for e >= 1, +inf for e <= 0.
double exact_damping_alpha(double restitution);

// The achieved restitution of an impact with the elastic law and damping d at pre-impact speed v:
// the root e_a of (1 + e_a) alpha = ln((1 + alpha) / (1 - e_a alpha)), alpha = d v. Independent of
// the stiffness and the exponent (see docs/physics.md); used by tests and to report laws.
double achieved_restitution(double alpha);

// The elastic law's damping coefficient d (s/m) of design.md §5 for pre-impact speed v = |v-|:
// uses e_cur = 0 below v_small, and is capped at d_max.
double compute_damping_coefficient(const ContactLawParameters& law, double pre_impact_speed);

// The damping coefficient a contact keeps from its start (d_res): the elastic law's d from v-
// (s/m), the Hunt-Crossley dissipation d (s/m), the linear law's kd (N s/m).
double compute_contact_damping(const ContactLawParameters& law, double pre_impact_speed);

// The normal force f_n in N at penetration delta (m) and rate delta_dot (m/s, positive
// approaching), clamped at f_n >= 0 when law.clamp. `damping` is d_res
// (compute_contact_damping; s/m, or N s/m for the linear law). Zero without penetration.
double compute_normal_force(const ContactLawParameters& law, double damping, double penetration,
                            double penetration_rate);

// Potential energy in J stored by the undamped part of the normal law at penetration delta (m);
// 0 for delta <= 0.
double compute_elastic_energy(const ContactLawParameters& law, double penetration);

// The lever of the spin torque, which is torsional_friction * lever * f_n: r_geo, or Gazebo's
// (3 pi / 16) a over a pressure patch of radius a (the mean lever of a Hertzian pressure
// distribution, Gazebo's torsional friction) with a given or a = sqrt(R delta).
double compute_spin_lever(const ContactLawParameters& law, double penetration);

// The lever of the rolling torque, which is rolling_resistance * lever * f_n: r_geo, or the
// contact material's rolling_lever.
inline double compute_rolling_lever(const ContactLawParameters& law) {
  return law.rolling_lever > 0.0 ? law.rolling_lever : law.r_geo;
}

// The force and torque of one contact. `damping` is d_res, fixed at contact start.
ContactForce compute_contact_force(const ContactLawParameters& law, double damping,
                                   const ContactKinematics& kinematics);

// The enumerator's name as in scene files ("elastic", "lankarani_nikravesh", ...).
std::string_view to_string(NormalLaw law);
std::string_view to_string(DampingModel model);

}  // namespace hybridsim
