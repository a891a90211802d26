#include "events/contact_handler.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace hybridsim {
namespace {

// c_i = E_i / (1 - nu_i^2) of a material.
double plane_strain_modulus(const Material& material) {
  return material.youngs_modulus / (1.0 - material.poisson_ratio * material.poisson_ratio);
}

// r_geo: the curved shape's radius against a flat one, else r1 r2 / (r1 + r2) (an infinite
// radius, the half-space's, leaves the other).
double combine_contact_radii(const Shape& a, const Shape& b) {
  const double ra = a.contact_sphere_radius;
  const double rb = b.contact_sphere_radius;
  if (a.flat != b.flat) return a.flat ? rb : ra;
  if (std::isinf(ra)) return rb;
  if (std::isinf(rb)) return ra;
  return ra * rb / (ra + rb);
}

// A shape's Hunt-Crossley stiffness (or dissipation): its own, else its contact material's.
double hunt_crossley_value(const Model& model, int shape, bool stiffness) {
  const Shape& s = model.shapes[shape];
  const Material& m = model.materials[s.contact_material];
  const double own = stiffness ? s.hunt_crossley_stiffness : s.hunt_crossley_dissipation;
  return std::isnan(own) ? (stiffness ? m.hunt_crossley_stiffness : m.hunt_crossley_dissipation)
                         : own;
}

EventRecord make_contact_record(const Model& model, double t, std::string_view crossing,
                                const ContactPair& pair, EventRecord::Kind kind, double eps) {
  EventRecord record;
  record.t = t;
  record.kind = kind;
  record.crossing = std::string(crossing);
  record.pair_a = model.shape_label(pair.shape_a);
  record.pair_b = model.shape_label(pair.shape_b);
  record.distance = pair.geometry.distance;
  record.crossing_distance = pair.geometry.distance + eps;
  record.normal_W = pair.geometry.n_AB_W;
  record.point_W = pair.geometry.contact_point_W();
  if (kind == EventRecord::Kind::contact_start) {
    record.pre_impact_velocity = pair.pre_impact_normal_velocity;
    // The stiffness the law uses: c_res (elastic), K (Hunt-Crossley), kp (linear).
    record.c_res = pair.law.normal_law == NormalLaw::elastic         ? pair.law.c_res
                   : pair.law.normal_law == NormalLaw::hunt_crossley ? pair.law.stiffness
                                                                     : pair.law.kp;
    record.d_res = pair.damping;
  }
  return record;
}

}  // namespace

ContactLawParameters resolve_contact_law(const Model& model, int shape_a, int shape_b) {
  const Shape& a = model.shapes[shape_a];
  const Shape& b = model.shapes[shape_b];
  const int index = model.find_contact_material(a.contact_material, b.contact_material);
  const ContactMaterial& cm = model.contact_materials.at(index);

  ContactLawParameters law;
  law.normal_law = cm.normal_law;
  law.damping_model = cm.damping_model;
  law.exact_alpha = cm.exact_alpha;
  const double c1 = plane_strain_modulus(model.materials[a.contact_material]);
  const double c2 = plane_strain_modulus(model.materials[b.contact_material]);
  law.c_res = model.contact.stiffness_reduction * c1 * c2 / (c1 + c2);
  law.r_geo = combine_contact_radii(a, b);
  law.c_geo = 4.0 / 3.0 * std::sqrt(law.r_geo);
  law.n_geo = 1.5;
  law.stiffness = law.c_res * law.c_geo;
  law.observer = cm.observer;
  if (cm.normal_law == NormalLaw::hunt_crossley) {
    // Drake's combination: springs in series, dissipation weighted by the other's stiffness.
    const double k1 = hunt_crossley_value(model, shape_a, true);
    const double k2 = hunt_crossley_value(model, shape_b, true);
    const double d1 = hunt_crossley_value(model, shape_a, false);
    const double d2 = hunt_crossley_value(model, shape_b, false);
    law.stiffness = k1 * k2 / (k1 + k2);
    law.dissipation = (k2 * d1 + k1 * d2) / (k1 + k2);
    law.n_geo = cm.exponent;
  } else if (cm.normal_law == NormalLaw::linear) {
    law.kp = cm.kp;
    law.kd = cm.kd;
    law.n_geo = 1.0;
  }
  law.restitution = cm.restitution;
  law.v_small = cm.v_small;
  law.max_damping = model.contact.max_damping;
  law.clamp = cm.clamp;
  law.friction = cm.friction;
  law.rolling_resistance = cm.rolling_resistance;
  law.torsional_friction = cm.torsional_friction;
  law.w_small = cm.w_small;
  law.merged_rolling_torque = cm.merged_rolling_torque;
  return law;
}

double compute_penetration_rate(const SignedDistance& geometry, const BodyKinematics& body_a,
                                const BodyKinematics& body_b) {
  const Vec3 p_WC = geometry.contact_point_W();
  const Vec3 v_rel_W = velocity_of_point(body_b, p_WC) - velocity_of_point(body_a, p_WC);
  return -v_rel_W.dot(geometry.n_AB_W);
}

ContactHandler::ContactHandler(const Model& model)
    : model_(model), contact_eps_(model.contact.contact_eps), broadphase_(model) {}

void ContactHandler::compute_crossings(std::span<const Pose> X_WS, double& z1, double& z2) {
  const double eps = contact_eps_;
  broadphase_.update(X_WS);

  // z1: the pairs in contact, always through the narrowphase.
  z1 = kEmptyContactSetZ1;
  bool any_contact = false;
  for (const auto& [a, b] : contact_shapes_) {
    const double distance_org =
        compute_signed_distance(model_.shapes[a], X_WS[a], model_.shapes[b], X_WS[b]).distance;
    z1 = any_contact ? std::max(z1, distance_org + eps) : distance_org + eps;
    any_contact = true;
  }

  // z2: candidate pairs (AABBs overlapping) not in contact, through the narrowphase; pairs whose
  // AABBs are apart contribute the broadphase's lower bound of their AABB distance.
  double min_distance = broadphase_.separated_pairs_lower_bound();
  broadphase_.for_each_candidate_pair([&](int a, int b) {
    if (contact_set_.contains(a, b)) return;
    const double distance_org =
        compute_signed_distance(model_.shapes[a], X_WS[a], model_.shapes[b], X_WS[b]).distance;
    min_distance = std::min(min_distance, distance_org);
  });
  z2 = std::isinf(min_distance) ? kEmptyCandidateSetZ2 : min_distance + 3.0 * eps;
}

std::vector<EventRecord> ContactHandler::rebuild_contacts(double t, std::string_view crossing,
                                                          std::span<const Pose> X_WS,
                                                          std::span<const BodyKinematics> bodies) {
  const double eps = contact_eps_;
  broadphase_.update(X_WS);
  std::vector<EventRecord> records;

  // New contactDict: every pair penetrating deeper than 2 eps.
  contact_dict_.clear();
  broadphase_.for_each_candidate_pair([&](int a, int b) {
    const SignedDistance geometry =
        compute_signed_distance(model_.shapes[a], X_WS[a], model_.shapes[b], X_WS[b]);
    if (!(geometry.distance < -2.0 * eps)) return;
    const PairId id = make_pair_id(a, b);
    ContactPair pair;
    if (const auto previous = last_contact_dict_.find(id); previous != last_contact_dict_.end()) {
      pair = previous->second;  // keeps v-, d_res and the law
    } else {
      pair.shape_a = a;
      pair.shape_b = b;
      pair.law = resolve_contact_law(model_, a, b);
      const int body_a = model_.shapes[a].body;
      const int body_b = model_.shapes[b].body;
      pair.pre_impact_normal_velocity =
          compute_penetration_rate(geometry, bodies[body_a], bodies[body_b]);
      pair.damping = compute_contact_damping(pair.law, pair.pre_impact_normal_velocity);
    }
    pair.geometry = geometry;
    contact_dict_.emplace(id, pair);
  });

  count_body_pair_contacts();

  // Ends, then starts, each in pair-id order.
  for (auto& [id, pair] : last_contact_dict_) {
    if (contact_dict_.contains(id)) continue;
    pair.geometry = compute_signed_distance(model_.shapes[pair.shape_a], X_WS[pair.shape_a],
                                            model_.shapes[pair.shape_b], X_WS[pair.shape_b]);
    records.push_back(
        make_contact_record(model_, t, crossing, pair, EventRecord::Kind::contact_end, eps));
  }
  for (const auto& [id, pair] : contact_dict_) {
    if (last_contact_dict_.contains(id)) continue;
    records.push_back(
        make_contact_record(model_, t, crossing, pair, EventRecord::Kind::contact_start, eps));
  }
  last_contact_dict_ = contact_dict_;
  index_contacts();
  return records;
}

void ContactHandler::count_body_pair_contacts() {
  // Contact points between the same two bodies (for laws that normalise by it).
  std::map<std::pair<int, int>, int> contacts_per_body_pair;
  const auto body_pair = [this](const ContactPair& pair) {
    const int a = model_.shapes[pair.shape_a].body, b = model_.shapes[pair.shape_b].body;
    return std::pair{std::min(a, b), std::max(a, b)};
  };
  for (const auto& [id, pair] : contact_dict_) ++contacts_per_body_pair[body_pair(pair)];
  for (auto& [id, pair] : contact_dict_) {
    pair.body_pair_contacts = contacts_per_body_pair[body_pair(pair)];
  }
}

std::vector<double> ContactHandler::stored_pairs() const {
  std::vector<double> stored;
  stored.reserve(4 * contact_dict_.size());
  for (const auto& [id, pair] : contact_dict_) {
    stored.insert(stored.end(),
                  {static_cast<double>(pair.shape_a), static_cast<double>(pair.shape_b),
                   pair.pre_impact_normal_velocity, pair.damping});
  }
  return stored;
}

void ContactHandler::restore(std::span<const double> stored, std::span<const Pose> X_WS) {
  if (stored.size() % 4 != 0) {
    throw InputError(
        fmt::format("key 'contact_pairs' has {} numbers, not 4 per pair", stored.size()));
  }
  const auto shape_count = static_cast<double>(model_.shapes.size());
  contact_dict_.clear();
  for (std::size_t i = 0; i < stored.size(); i += 4) {
    const double a = stored[i], b = stored[i + 1];
    const auto valid = [shape_count](double shape) {
      return shape >= 0.0 && shape < shape_count && shape == std::floor(shape);
    };
    if (!valid(a) || !valid(b) || !(a < b)) {
      throw InputError(
          fmt::format("key 'contact_pairs': pair {} has shapes {} and {} (the scene has {} shapes)",
                      i / 4, a, b, model_.shapes.size()));
    }
    ContactPair pair;
    pair.shape_a = static_cast<int>(a);
    pair.shape_b = static_cast<int>(b);
    pair.law = resolve_contact_law(model_, pair.shape_a, pair.shape_b);
    pair.pre_impact_normal_velocity = stored[i + 2];
    pair.damping = stored[i + 3];
    pair.geometry = compute_signed_distance(model_.shapes[pair.shape_a], X_WS[pair.shape_a],
                                            model_.shapes[pair.shape_b], X_WS[pair.shape_b]);
    contact_dict_.emplace(make_pair_id(pair.shape_a, pair.shape_b), pair);
  }
  count_body_pair_contacts();
  broadphase_.update(X_WS);
  last_contact_dict_ = contact_dict_;
  index_contacts();
}

void ContactHandler::reset() {
  contact_dict_.clear();
  last_contact_dict_.clear();
  index_contacts();
}

void ContactHandler::index_contacts() {
  contact_shapes_.clear();
  contact_set_.clear();
  for (const auto& [id, pair] : contact_dict_) {
    const int a = std::min(pair.shape_a, pair.shape_b), b = std::max(pair.shape_a, pair.shape_b);
    contact_shapes_.emplace_back(a, b);
    contact_set_.insert(a, b);
  }
}

}  // namespace hybridsim
