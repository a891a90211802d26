// The contact law's leaf formulas (design.md §5) against their definitions.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>

#include "core/contact_law.hpp"

namespace hybridsim {
namespace {

ContactLawParameters steel_law() {
  ContactLawParameters law;
  law.c_res = 1.1e11;
  law.r_geo = 0.1;
  law.c_geo = 4.0 / 3.0 * std::sqrt(0.1);
  law.stiffness = law.c_res * law.c_geo;
  law.restitution = 0.7;
  law.exact_alpha = exact_damping_alpha(0.7);
  law.v_small = 0.01;
  law.max_damping = 2000.0;
  law.friction.mu_kinetic = 0.5;
  law.friction.v_small = 0.01;
  return law;
}

TEST_CASE("regularized speed: equals v above vs, C1 and positive below") {
  const double vs = 0.01;
  CHECK(regularize_speed(0.02, vs) == 0.02);
  CHECK(regularize_speed(vs, vs) == testing::relative(vs, 1e-15));
  CHECK(regularize_speed(0.0, vs) == testing::relative(vs / 3.0, 1e-12));
  // Slope at vs from below: d/dv [v^2/vs (1 - v/(3vs))] = 2v/vs - v^2/vs^2 = 1 at v = vs.
  const double h = 1e-7;
  const double slope_below = (regularize_speed(vs, vs) - regularize_speed(vs - h, vs)) / h;
  CHECK(slope_below == testing::relative(1.0, 1e-4));
}

TEST_CASE("damping coefficient: each model's formula, e = 0 below v_small, capped at d_max") {
  ContactLawParameters law = steel_law();
  const double v = 2.0, e = 0.7;
  law.damping_model = DampingModel::exact;
  CHECK(compute_damping_coefficient(law, v) ==
        testing::relative(exact_damping_alpha(e) / v, 1e-12));
  law.damping_model = DampingModel::flores;
  CHECK(compute_damping_coefficient(law, v) ==
        testing::relative(8.0 * (1 - e) / (5 * e * v), 1e-12));
  law.damping_model = DampingModel::hunt_crossley;
  CHECK(compute_damping_coefficient(law, v) == testing::relative(3.0 * (1 - e) / (2 * v), 1e-12));
  law.damping_model = DampingModel::lankarani_nikravesh;
  CHECK(compute_damping_coefficient(law, v) ==
        testing::relative(3.0 * (1 - e * e) / (4 * v), 1e-12));
  law.damping_model = DampingModel::gonthier;
  CHECK(compute_damping_coefficient(law, v) == testing::relative((1 - e * e) / (e * v), 1e-12));
  // Below v_small the restitution is 0: infinite damping for exact and flores, so d_max.
  for (DampingModel model : {DampingModel::exact, DampingModel::flores}) {
    law.damping_model = model;
    CHECK(compute_damping_coefficient(law, 0.005) == 2000.0);
    CHECK(compute_damping_coefficient(law, 0.0) == 2000.0);
  }
}

TEST_CASE("elastic law: Hertz force, damping factor, clamp") {
  ContactLawParameters law = steel_law();
  ContactKinematics contact;
  contact.penetration = 1e-5;
  contact.penetration_rate = 0.0;
  const double hertz = law.c_res * law.c_geo * std::pow(1e-5, 1.5);
  CHECK(compute_contact_force(law, 0.1, contact).normal_force == testing::relative(hertz, 1e-12));
  contact.penetration_rate = 2.0;
  CHECK(compute_contact_force(law, 0.1, contact).normal_force ==
        testing::relative(hertz * (1 + 0.1 * 2.0), 1e-12));
  // Separating fast: 1 + d delta_dot < 0 would pull; the clamp keeps f_n >= 0.
  contact.penetration_rate = -20.0;
  CHECK(compute_contact_force(law, 0.1, contact).normal_force == 0.0);
  law.clamp = false;
  CHECK(compute_contact_force(law, 0.1, contact).normal_force ==
        testing::relative(hertz * (1 - 0.1 * 20.0), 1e-12));
  // No penetration, no force.
  contact.penetration = -1e-9;
  CHECK(compute_contact_force(law, 0.1, contact).normal_force == 0.0);
}

TEST_CASE("regularized Coulomb friction: mu f_n against the slip above v_small") {
  ContactLawParameters law = steel_law();
  ContactKinematics contact;
  contact.penetration = 1e-5;
  contact.v_slip_W = Vec3(0.3, -0.4, 0.0);  // |v_t| = 0.5 > v_small
  const ContactForce force = compute_contact_force(law, 0.0, contact);
  const Vec3 tangential = force.f_B_W - force.normal_force * contact.n_AB_W;
  CHECK(tangential.norm() == testing::relative(0.5 * force.normal_force, 1e-12));
  CHECK(tangential.normalized().dot(-contact.v_slip_W.normalized()) ==
        testing::relative(1.0, 1e-14));
}

TEST_CASE("rolling resistance and torsional friction: torques against the relative rotation") {
  ContactLawParameters law = steel_law();
  law.rolling_resistance = 0.01;
  law.torsional_friction = 0.02;
  ContactKinematics contact;
  contact.penetration = 1e-5;
  contact.w_rel_W = Vec3(3.0, 0.0, 5.0);  // rolling about x, spinning about the normal z
  const ContactForce force = compute_contact_force(law, 0.0, contact);
  const double lever = law.r_geo * force.normal_force;
  CHECK(force.tau_B_W.x() == testing::relative(-0.01 * lever, 1e-12));
  CHECK(force.tau_B_W.z() == testing::relative(-0.02 * lever, 1e-12));
  law.merged_rolling_torque = true;
  const ContactForce merged = compute_contact_force(law, 0.0, contact);
  CHECK(merged.tau_B_W.norm() == testing::relative(0.01 * lever, 1e-12));
  CHECK(merged.tau_B_W.normalized().dot(-contact.w_rel_W.normalized()) ==
        testing::relative(1.0, 1e-12));
}

}  // namespace
}  // namespace hybridsim
