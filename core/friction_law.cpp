#include "core/friction_law.hpp"

#include <algorithm>
#include <cmath>

namespace hybridsim {
namespace {

double smoothstep(double x) {
  return x * x * x * (10.0 - 15.0 * x + 6.0 * x * x);
}

// mu(|v|) / |v| for the Stribeck law, finite at v = 0 (it behaves as 10 mu_s v^2 / v_s^3).
double stribeck_coefficient_over_speed(double mu_s, double mu_d, double speed, double v_s) {
  const double s = speed / v_s;
  if (s < 1.0) return mu_s * s * s * (10.0 - 15.0 * s + 6.0 * s * s) / v_s;
  return stribeck_coefficient(mu_s, mu_d, speed, v_s) / speed;
}

// The friction force of one direction (or of the cone, with speed = |v_t|) as a factor on the
// velocity component: f = -factor * v. Inlined into its callers: out of line, the call cost the
// cone law without torques 0.5 of its 9.0 ns (hybridsim_bench_laws).
[[gnu::always_inline]] inline double velocity_factor(const FrictionParameters& f, double mu,
                                                     double normal_force, double speed) {
  switch (f.model) {
    case FrictionModel::regularized_coulomb:
      return mu * normal_force / regularize_speed(speed, f.v_small);
    case FrictionModel::stribeck: {
      // mu scales mu_s and mu_d alike (mu / mu_kinetic is 1 but for the pyramid's t2).
      const double scale = f.mu_kinetic > 0.0 ? mu / f.mu_kinetic : 1.0;
      return scale * normal_force *
             stribeck_coefficient_over_speed(f.mu_static, f.mu_kinetic, speed,
                                             f.stiction_tolerance);
    }
    case FrictionModel::stick_slip:
      // Outside a friction patch (compute_kinetic_friction_force has the patch's direction):
      // Coulomb against the slip, zero at zero slip.
      return speed > 0.0 ? mu * normal_force / speed : 0.0;
    case FrictionModel::none:
    case FrictionModel::slip_compliance:
      return 0.0;
  }
  return 0.0;
}

}  // namespace

double stribeck_coefficient(double mu_static, double mu_dynamic, double slip_speed,
                            double stiction_tolerance) {
  const double s = slip_speed / stiction_tolerance;
  if (s < 1.0) return mu_static * smoothstep(s);
  if (s < 3.0) return mu_static - (mu_static - mu_dynamic) * smoothstep(0.5 * (s - 1.0));
  return mu_dynamic;
}

void compute_friction_directions(const Vec3& n_W, const Vec3& fdir1_W, Vec3& t1_W, Vec3& t2_W) {
  // fdir1, else world x, else world y, projected onto the tangent plane; a projection shorter
  // than 1e-6 of the candidate counts as parallel to n and passes to the next candidate.
  const auto try_candidate = [&](const Vec3& candidate) {
    const Vec3 projected = candidate - candidate.dot(n_W) * n_W;
    const double length_squared = projected.squaredNorm();
    if (!(length_squared > 1e-12 * candidate.squaredNorm()) || length_squared == 0.0) {
      return false;
    }
    t1_W = projected / std::sqrt(length_squared);
    t2_W = n_W.cross(t1_W);
    return true;
  };
  if (try_candidate(fdir1_W) || try_candidate(Vec3::UnitX())) return;
  try_candidate(Vec3::UnitY());
}

Vec3 compute_friction_force(const FrictionParameters& friction, double normal_force,
                            const Vec3& v_slip_W, const Vec3& n_W, const Vec3& fdir1_W,
                            int contact_count) {
  if (friction.model == FrictionModel::none || !(normal_force > 0.0)) return Vec3::Zero();

  // Slip compliance: a saturated linear law, per direction (pyramid) or in magnitude (cone).
  if (friction.model == FrictionModel::slip_compliance) {
    const Eigen::Vector2d compliance =
        friction.scale_by_contact_count ? Eigen::Vector2d(friction.slip_compliance * contact_count)
                                        : friction.slip_compliance;
    // Isotropic cone: no directions needed.
    if (friction.cone && compliance[0] == compliance[1]) {
      Vec3 force = -v_slip_W / compliance[0];
      const double limit = friction.mu_kinetic * normal_force;
      const double magnitude_squared = force.squaredNorm();
      if (magnitude_squared > limit * limit) force *= limit / std::sqrt(magnitude_squared);
      return force;
    }
    Vec3 t1, t2;
    compute_friction_directions(n_W, fdir1_W, t1, t2);
    const double f1 = -v_slip_W.dot(t1) / compliance[0];
    const double f2 = -v_slip_W.dot(t2) / compliance[1];
    if (friction.cone) {
      Vec3 force = f1 * t1 + f2 * t2;
      const double limit = friction.mu_kinetic * normal_force;
      const double magnitude = force.norm();
      if (magnitude > limit) force *= limit / magnitude;
      return force;
    }
    const double limit1 = friction.mu_kinetic * normal_force;
    const double limit2 = friction.mu_second() * normal_force;
    return std::clamp(f1, -limit1, limit1) * t1 + std::clamp(f2, -limit2, limit2) * t2;
  }

  if (friction.cone) {
    return -velocity_factor(friction, friction.mu_kinetic, normal_force, v_slip_W.norm()) *
           v_slip_W;
  }
  Vec3 t1, t2;
  compute_friction_directions(n_W, fdir1_W, t1, t2);
  const double v1 = v_slip_W.dot(t1);
  const double v2 = v_slip_W.dot(t2);
  return -velocity_factor(friction, friction.mu_kinetic, normal_force, std::abs(v1)) * v1 * t1 -
         velocity_factor(friction, friction.mu_second(), normal_force, std::abs(v2)) * v2 * t2;
}

Vec3 compute_kinetic_friction_direction(const Vec3& v_slip_W, const Vec3& slip_direction_W) {
  // Along d the slip counts from zero up only: the patch's crossing function stops the slide where
  // v . d reaches zero, and a slip slightly past it (inside a step, or a difference quotient's
  // perturbation) must not turn the force around.
  const double along = v_slip_W.dot(slip_direction_W);
  const Vec3 direction =
      v_slip_W + (std::max(-along, 0.0) + kSlipDirectionSpeed) * slip_direction_W;
  const double speed = direction.norm();
  return speed > 0.0 ? Vec3(direction / speed) : Vec3::Zero();
}

std::string_view to_string(FrictionModel model) {
  switch (model) {
    case FrictionModel::none:
      return "none";
    case FrictionModel::regularized_coulomb:
      return "regularized_coulomb";
    case FrictionModel::stribeck:
      return "stribeck";
    case FrictionModel::slip_compliance:
      return "slip_compliance";
    case FrictionModel::stick_slip:
      return "stick_slip";
  }
  return "?";
}

}  // namespace hybridsim
