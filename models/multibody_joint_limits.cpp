// MultibodySystem's joint limits (core/joint.hpp: JointLimit): a one-sided spring-damper per
// finite bound, switched on and off by the two crossing functions that follow the contacts' and
// the friction patches' (multibody_system.hpp: crossing_count).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/joint_constraints.hpp"
#include "models/multibody_system.hpp"

namespace hybridsim {

std::vector<MultibodySystem::LimitSide> MultibodySystem::find_limit_sides(const Model& model) {
  std::vector<LimitSide> sides;
  for (std::size_t j = 0; j < model.joints.size(); ++j) {
    const JointLimit& limit = model.joints[j].limit;
    if (!limit.enabled) continue;
    if (std::isfinite(limit.lower)) sides.push_back({static_cast<int>(j), -1, limit.lower});
    if (std::isfinite(limit.upper)) sides.push_back({static_cast<int>(j), +1, limit.upper});
  }
  return sides;
}

JointCoordinate MultibodySystem::limit_penetration(const LimitSide& side,
                                                   const JointCoordinate& q) {
  return {side.sign * (q.position - side.bound), side.sign * q.velocity};
}

JointCoordinate MultibodySystem::joint_coordinate(int joint) const {
  const Joint& j = model_.joints[joint];
  return compute_joint_coordinate(j, kinematics_[j.parent], kinematics_[j.child]);
}

void MultibodySystem::compute_limit_crossings(double& z_start, double& z_end) const {
  // Constant and of the sign that never triggers when no side is of that kind.
  z_start = 1.0;
  z_end = -1.0;
  for (std::size_t s = 0; s < limit_sides_.size(); ++s) {
    const double penetration =
        limit_penetration(limit_sides_[s], joint_coordinate(limit_sides_[s].joint)).position;
    if (limit_pushing_[s] != 0) {
      z_end = std::max(z_end, -penetration - kJointLimitHysteresis);
    } else {
      z_start = std::min(z_start, -penetration);
    }
  }
}

void MultibodySystem::update_joint_limits(double t, std::vector<EventRecord>& records) {
  if (limit_sides_.empty()) return;
  std::fill(joint_limited_.begin(), joint_limited_.end(), 0);
  for (std::size_t s = 0; s < limit_sides_.size(); ++s) {
    const LimitSide& side = limit_sides_[s];
    const JointCoordinate q = joint_coordinate(side.joint);
    const JointCoordinate p = limit_penetration(side, q);
    const bool was_pushing = limit_pushing_[s] != 0;
    // A side starts where the penetration crosses 0 moving in (at z_start's root it is 0 to the
    // root finder's precision, either sign) and stops below the hysteresis (z_end's root). At
    // p = 0 exactly it starts unless moving out: a joint at rest on its bound has z_start = 0,
    // which the root finder never reports, so a load pressing it in would go unresisted.
    const bool pushing = was_pushing
                             ? p.position >= -0.5 * kJointLimitHysteresis
                             : p.position > 0.0 || (p.position == 0.0 && p.velocity >= 0.0) ||
                                   (p.position > -0.5 * kJointLimitHysteresis && p.velocity > 0.0);
    limit_pushing_[s] = pushing ? 1 : 0;
    if (pushing) joint_limited_[side.joint] = 1;
    if (pushing == was_pushing) continue;
    EventRecord record;
    record.t = t;
    record.kind = pushing ? EventRecord::Kind::limit_on : EventRecord::Kind::limit_off;
    record.joint = model_.joints[side.joint].name;
    record.limit_side = side.sign > 0 ? "upper" : "lower";
    record.distance = side.bound;
    record.pre_impact_velocity = q.velocity;
    record.description =
        fmt::format("joint {}: its {} limit {} {} (rate {:.6g})", record.joint, record.limit_side,
                    side.bound, pushing ? "starts to push" : "lets go", q.velocity);
    records.push_back(std::move(record));
  }
}

double MultibodySystem::joint_limit_effort(int joint, const JointCoordinate& q) const {
  const JointLimit& limit = model_.joints[joint].limit;
  double effort = 0.0;
  for (std::size_t s = 0; s < limit_sides_.size(); ++s) {
    const LimitSide& side = limit_sides_[s];
    if (side.joint != joint || limit_pushing_[s] == 0) continue;
    const JointCoordinate p = limit_penetration(side, q);
    // Zero inside the hysteresis band, and never pulling: the spring-damper lets go where its
    // damping would pull the joint back into the limit.
    if (p.position <= 0.0) continue;
    effort -= side.sign * std::max(0.0, limit.stiffness * p.position + limit.damping * p.velocity);
  }
  return effort;
}

double MultibodySystem::joint_limit_energy(int joint, const JointCoordinate& q) const {
  double energy = 0.0;
  for (std::size_t s = 0; s < limit_sides_.size(); ++s) {
    const LimitSide& side = limit_sides_[s];
    if (side.joint != joint || limit_pushing_[s] == 0) continue;
    const double p = std::max(0.0, limit_penetration(side, q).position);
    energy += 0.5 * model_.joints[joint].limit.stiffness * p * p;
  }
  return energy;
}

}  // namespace hybridsim
