// Contact force laws (design.md §5). A law maps the kinematics of one contact (penetration,
// penetration rate, slip, relative angular velocity, stored pre-impact velocity) to the force on
// shape B at the contact point C and a pure torque on B; A receives the opposite.
//
// Normal laws and damping models are selected per contact-material pair by enums, so that further
// laws slot in as one more enumerator and one more leaf function (issue 4 adds hunt_crossley and
// linear normal laws, stribeck and slip-compliance friction).
#pragma once

#include <string_view>

#include "core/math.hpp"

namespace hybridsim {

enum class NormalLaw { elastic };
enum class DampingModel { exact, flores, hunt_crossley, lankarani_nikravesh, gonthier };
enum class FrictionModel { none, regularized_coulomb };

struct FrictionParameters {
  FrictionModel model = FrictionModel::regularized_coulomb;
  double mu_kinetic = 0.0;  // kinetic friction coefficient
  double v_small = 0.01;    // m/s, regularization speed of regularized Coulomb friction
};

// Everything the force law needs for one contact, resolved when the contact starts.
struct ContactLawParameters {
  NormalLaw normal_law = NormalLaw::elastic;
  DampingModel damping_model = DampingModel::exact;
  double exact_alpha = 0.0;     // exact_damping_alpha(restitution), for the exact damping model
  double c_res = 0.0;           // N/m^2, combined stiffness k_red * c1 c2 / (c1 + c2)
  double c_geo = 0.0;           // m^0.5, (4/3) sqrt(r_geo)
  double n_geo = 1.5;           // penetration exponent
  double r_geo = 0.0;           // m, combined contact sphere radius
  double restitution = 1.0;     // coefficient of restitution e
  double v_small = 0.01;        // m/s, below this pre-impact speed e becomes 0
  double max_damping = 2000.0;  // s/m, d_max
  bool clamp = true;            // f_n >= 0
  FrictionParameters friction;
  double rolling_resistance = 0.0;     // mu_r, dimensionless (torque = mu_r * r_geo * f_n)
  double torsional_friction = 0.0;     // mu_tor, dimensionless (torque = mu_tor * r_geo * f_n)
  double w_small = 0.01;               // rad/s, regularization of the rolling and spin torques
  bool merged_rolling_torque = false;  // Modia3D: one torque opposing the whole relative rotation
};

// Kinematics of one contact, all in world frame.
struct ContactKinematics {
  double penetration = 0.0;       // delta = -distance, m (positive penetrating)
  double penetration_rate = 0.0;  // delta_dot = -v_rel . n, m/s (positive approaching)
  Vec3 n_AB_W = Vec3::UnitZ();    // unit normal from A to B
  Vec3 v_slip_W = Vec3::Zero();   // tangential part of v_B(C) - v_A(C)
  Vec3 w_rel_W = Vec3::Zero();    // w_B - w_A
};

struct ContactForce {
  Vec3 f_B_W = Vec3::Zero();    // force on B at C (A receives -f_B_W)
  Vec3 tau_B_W = Vec3::Zero();  // pure torque on B (A receives -tau_B_W)
  double normal_force = 0.0;    // N
};

// Positive root alpha* of (1 + e) alpha = ln((1 + alpha) / (1 - e alpha)) on (0, 1/e): with
// d = alpha*/v the elastic law gives restitution e exactly. 0 for e >= 1, +inf for e <= 0.
double exact_damping_alpha(double restitution);

// The achieved restitution of an impact with the elastic law and damping d at pre-impact speed v:
// the root e_a of (1 + e_a) alpha = ln((1 + alpha) / (1 - e_a alpha)), alpha = d v. Independent of
// the stiffness and the exponent (see docs/physics.md); used by tests and to report laws.
double achieved_restitution(double alpha);

// The damping coefficient d (s/m) of design.md §5 for pre-impact speed v = |v-|: uses e_cur = 0
// below v_small, and is capped at d_max.
double compute_damping_coefficient(const ContactLawParameters& law, double pre_impact_speed);

// reg(v, vs) of Modia3D: v for v >= vs, else v^2/vs (1 - v/(3 vs)) + vs/3; C1 and positive.
double regularize_speed(double speed, double small_speed);

// Elastic potential energy stored by the undamped part of the normal law at penetration delta.
double compute_elastic_energy(const ContactLawParameters& law, double penetration);

// The force and torque of one contact. `damping` is d_res, fixed at contact start.
ContactForce compute_contact_force(const ContactLawParameters& law, double damping,
                                   const ContactKinematics& kinematics);

std::string_view to_string(DampingModel model);
std::string_view to_string(FrictionModel model);

}  // namespace hybridsim
