#include "events/contact_handler.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "collision/polytope.hpp"
#include "collision/shape_geometry.hpp"
#include "collision/terrain_contact.hpp"
#include "collision/terrain_side.hpp"
#include "core/errors.hpp"

namespace hybridsim {
namespace {

// Calls `action` when the scope is left by an exception: unless `done` was set on the way out.
template <class Action>
struct OnUnwind {
  Action action;
  bool done = false;
  ~OnUnwind() {
    if (!done) action();
  }
};
template <class Action>
OnUnwind(Action) -> OnUnwind<Action>;

// c_i = E_i / (1 - nu_i^2) of a material.
double plane_strain_modulus(const Material& material) {
  return material.youngs_modulus / (1.0 - material.poisson_ratio * material.poisson_ratio);
}

// A shape's contact sphere radius against a partner: its own, but a mesh on a free body meets a
// half-space with its hull, and other terrain with its vertices (its hull's corners where it
// rests flat), whose radius is a hull's (half its smallest width) unless given.
double contact_radius_against(const Shape& shape, const Shape& partner) {
  if (is_free_mesh(shape) && (partner.type == ShapeType::halfspace || is_terrain(partner)) &&
      std::isinf(shape.contact_sphere_radius)) {
    return 0.5 * shape.hull->thickness;
  }
  return shape.contact_sphere_radius;
}

// r_geo: the curved shape's radius against a flat one, else r1 r2 / (r1 + r2) (an infinite
// radius, the half-space's, leaves the other).
double combine_contact_radii(const Shape& a, const Shape& b) {
  const double ra = contact_radius_against(a, b);
  const double rb = contact_radius_against(b, a);
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

// A point that changed its features at an event continues the point of the last dictionary that
// lies this close (relative to the smaller shape's bounding radius): the event is found to far
// better than this, and two points of one pair are never this close (clipping merges them).
constexpr double kSamePointDistance = 1e-6;

// The size of a terrain pair's partner (the shape whose points meet the other's surface): its
// bounding radius.
double terrain_partner_size(const Model& model, int a, int b) {
  const bool partner_is_a = is_terrain_partner_a(model.shapes[a], model.shapes[b]);
  return compute_bounding_radius(model.shapes[partner_is_a ? a : b]);
}

EventRecord make_contact_record(const Model& model, double t, std::string_view crossing,
                                const ContactPair& pair, EventRecord::Kind kind, double eps) {
  EventRecord record;
  record.t = t;
  record.kind = kind;
  record.crossing = std::string(crossing);
  record.pair_a = model.shape_label(pair.shape_a);
  record.pair_b = model.shape_label(pair.shape_b);
  record.contact_id = fmt::format("{}-{}#{}", pair.shape_a, pair.shape_b, pair.slot);
  record.feature_a = format_feature(pair.feature_a);
  record.feature_b = format_feature(pair.feature_b);
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
    law.min_depth = cm.min_depth;
    law.max_vel = cm.max_vel;
    law.max_vel_damping = cm.kd + cm.max_vel_step * cm.kp;
    law.n_geo = 1.0;
  }
  law.restitution = cm.restitution;
  law.v_small = cm.v_small;
  law.max_damping = model.contact.max_damping;
  law.clamp = cm.clamp;
  law.friction = cm.friction;
  law.rolling_resistance = cm.rolling_resistance;
  law.rolling_lever = cm.rolling_lever;
  law.torsional_friction = cm.torsional_friction;
  law.torsional_patch_radius = cm.torsional_patch_radius;
  law.torsional_surface_radius = cm.torsional_surface_radius;
  law.w_small = cm.w_small;
  law.merged_rolling_torque = cm.merged_rolling_torque;
  return law;
}

SignedDistance compute_point_geometry(const Model& model, const ContactPair& point,
                                      std::span<const Pose> X_WS) {
  const Shape& a = model.shapes[point.shape_a];
  const Shape& b = model.shapes[point.shape_b];
  const Pose& X_WA = X_WS[point.shape_a];
  const Pose& X_WB = X_WS[point.shape_b];
  if (point.reference.kind == ManifoldKind::single)
    return compute_signed_distance(a, X_WA, b, X_WB);
  if (point.reference.kind == ManifoldKind::terrain) {
    return evaluate_terrain_point(a, X_WA, b, X_WB, point.feature_a, point.feature_b).geometry;
  }
  return evaluate_manifold_point(a, X_WA, b, X_WB, point.reference, point.feature_a,
                                 point.feature_b, PointEvaluation::geometry)
      .geometry;
}

double compute_penetration_rate(const SignedDistance& geometry, const BodyKinematics& body_a,
                                const BodyKinematics& body_b) {
  const Vec3 p_WC = geometry.contact_point_W();
  const Vec3 v_rel_W = velocity_of_point(body_b, p_WC) - velocity_of_point(body_a, p_WC);
  return -v_rel_W.dot(geometry.n_AB_W);
}

ContactHandler::ContactHandler(const Model& model)
    : model_(model), contact_eps_(model.contact.contact_eps), broadphase_(model) {
  manifold_geometry_.resize(model.shapes.size(), 0);
  // A wheel's law applies the wheel's normal-force estimate at each of its points (Gazebo's
  // WheelSlip): a cylinder tyre keeps one point, where its two rims would double or halve the slip
  // force as the wheel tilts by a hair.
  std::vector<char> wheel_shape(model.shapes.size(), 0);
  for (const Wheel& wheel : model.wheels) {
    for (const int shape : wheel.shapes) wheel_shape[static_cast<std::size_t>(shape)] = 1;
  }
  for (std::size_t i = 0; i < model.shapes.size(); ++i) {
    if (is_terrain(model.shapes[i])) {
      manifold_geometry_[i] = kTerrain;
    } else if (model.contact.points == ContactPoints::manifold) {
      const bool round = has_round_flats(model.shapes[i]) && wheel_shape[i] == 0;
      manifold_geometry_[i] = has_manifold_geometry(model.shapes[i]) ? 1 : round ? kRoundFlats : 0;
    }
  }
}

void ContactHandler::compute_crossings(std::span<const Pose> X_WS, double& z1, double& z2) {
  const double eps = contact_eps_;
  broadphase_.update(X_WS);

  // z1: the points in contact, always through the narrowphase (a manifold point by its
  // features, with its validity).
  z1 = kEmptyContactSetZ1;
  bool any_contact = false;
  for (std::size_t k = 0; k < contact_points_.size(); ++k) {
    IndexedPoint& point = contact_points_[k];
    const int a = point.shape_a, b = point.shape_b;
    double term;
    if (point.reference.kind == ManifoldKind::terrain) {
      // Followed over the surface from where it was; two points of a pair that reach the same
      // feature are one: an event merges them.
      const ManifoldPoint p = evaluate_terrain_point(model_.shapes[a], X_WS[a], model_.shapes[b],
                                                     X_WS[b], point.feature_a, point.feature_b);
      point.walked_a = p.feature_a;
      point.walked_b = p.feature_b;
      point.p_WC = p.geometry.contact_point_W();
      term = std::max(p.geometry.distance + eps, p.validity);
      for (std::size_t j = k;
           j-- > 0 && contact_points_[j].shape_a == a && contact_points_[j].shape_b == b;) {
        if (contact_points_[j].walked_a == point.walked_a &&
            contact_points_[j].walked_b == point.walked_b) {
          term = std::max(term, 1.0);
        }
      }
    } else if (point.reference.kind == ManifoldKind::single) {
      term =
          compute_signed_distance(model_.shapes[a], X_WS[a], model_.shapes[b], X_WS[b]).distance +
          eps;
    } else {
      const ManifoldPoint p =
          evaluate_manifold_point(model_.shapes[a], X_WS[a], model_.shapes[b], X_WS[b],
                                  point.reference, point.feature_a, point.feature_b);
      term = std::max(p.geometry.distance + eps, p.validity - point.validity_offset);
    }
    z1 = any_contact ? std::max(z1, term) : term;
    any_contact = true;
  }

  // z2: candidate pairs (AABBs overlapping), through the narrowphase: the points not in contact;
  // pairs whose AABBs are apart contribute the broadphase's lower bound of their AABB distance.
  double min_distance = broadphase_.separated_pairs_lower_bound();
  broadphase_.for_each_candidate_pair([&](int a, int b) {
    if (is_manifold_pair(a, b)) {
      min_distance = std::min(min_distance, smallest_free_candidate_distance(a, b, X_WS));
      return;
    }
    if (contact_set_.contains(a, b)) return;
    const double distance_org =
        compute_signed_distance(model_.shapes[a], X_WS[a], model_.shapes[b], X_WS[b]).distance;
    min_distance = std::min(min_distance, distance_org);
  });
  z2 = std::isinf(min_distance) ? kEmptyCandidateSetZ2 : min_distance + 3.0 * eps;
}

double ContactHandler::smallest_free_candidate_distance(int a, int b, std::span<const Pose> X_WS) {
  // A pair in contact keeps its reference between events; its points in contact are skipped.
  const auto in_contact = manifold_pairs_.find(make_pair_id(a, b));
  const PointRange range =
      in_contact != manifold_pairs_.end() ? in_contact->second : PointRange{0, 0};
  const ManifoldReference* kept =
      range.count > 0 ? &contact_points_[static_cast<std::size_t>(range.first)].reference : nullptr;
  // A ball in contact with flat terrain: its one candidate is its point.
  if (range.count == 1 && is_terrain_pair(model_.shapes[a], model_.shapes[b])) {
    const IndexedPoint& point = contact_points_[static_cast<std::size_t>(range.first)];
    if (const auto bound = compute_flat_terrain_bound(model_.shapes[a], X_WS[a], model_.shapes[b],
                                                      X_WS[b], point.walked_a, point.walked_b)) {
      return *bound;
    }
  }
  ContactManifold& manifold = scratch_manifold_;
  compute_contact_manifold(model_.shapes[a], X_WS[a], model_.shapes[b], X_WS[b], kept,
                           ReferenceUse::keep, manifold);
  const bool terrain = manifold.reference.kind == ManifoldKind::terrain;
  const double same_point_distance =
      terrain ? kSamePointDistance * terrain_partner_size(model_, a, b) : 0.0;
  double smallest = manifold.unseen_distance;
  for (int k = 0; k < manifold.count; ++k) {
    const ManifoldPoint& candidate = manifold.points[static_cast<std::size_t>(k)];
    bool touching = false;
    for (int j = range.first; j < range.first + range.count && !touching; ++j) {
      const IndexedPoint& point = contact_points_[static_cast<std::size_t>(j)];
      touching =
          terrain
              ? point.walked_a == candidate.feature_a && point.walked_b == candidate.feature_b
              : point.feature_a == candidate.feature_a && point.feature_b == candidate.feature_b;
      // A terrain point held at a tie by another feature is the same point.
      touching =
          touching || (terrain && (point.p_WC - candidate.geometry.contact_point_W()).norm() <=
                                      same_point_distance);
    }
    if (!touching) smallest = std::min(smallest, candidate.geometry.distance);
  }
  return smallest;
}

std::vector<EventRecord> ContactHandler::rebuild_contacts(double t, std::string_view crossing,
                                                          std::span<const Pose> X_WS,
                                                          std::span<const BodyKinematics> bodies) {
  const double eps = contact_eps_;
  broadphase_.update(X_WS);
  std::vector<EventRecord> records;

  // New contactDict: every point penetrating deeper than 2 eps.
  // A rebuild that throws part-way (a narrowphase failure) leaves contactDict and the views of
  // it empty and consistent, not half-filled.
  OnUnwind unwind{[this] {
    contact_dict_.clear();
    index_contacts();
  }};
  contact_dict_.clear();
  broadphase_.for_each_candidate_pair([&](int a, int b) {
    if (is_manifold_pair(a, b)) {
      add_manifold_contacts(a, b, X_WS, bodies);
      return;
    }
    const SignedDistance geometry =
        compute_signed_distance(model_.shapes[a], X_WS[a], model_.shapes[b], X_WS[b]);
    if (!(geometry.distance < -2.0 * eps)) return;
    const ContactId id{make_pair_id(a, b), 0};
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

  count_shape_pair_points();

  // Ends, then starts, each in contact id order.
  for (auto& [id, pair] : last_contact_dict_) {
    if (contact_dict_.contains(id)) continue;
    if (pair.reference.kind == ManifoldKind::terrain) {  // where the point ended
      const ManifoldPoint now = evaluate_terrain_point(
          model_.shapes[pair.shape_a], X_WS[pair.shape_a], model_.shapes[pair.shape_b],
          X_WS[pair.shape_b], pair.feature_a, pair.feature_b);
      pair.feature_a = now.feature_a;
      pair.feature_b = now.feature_b;
    }
    pair.geometry = compute_point_geometry(model_, pair, X_WS);
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
  unwind.done = true;
  return records;
}

void ContactHandler::add_manifold_contacts(int a, int b, std::span<const Pose> X_WS,
                                           std::span<const BodyKinematics> bodies) {
  if (is_terrain_pair(model_.shapes[a], model_.shapes[b])) {
    add_terrain_contacts(a, b, X_WS, bodies);
    return;
  }
  const double eps = contact_eps_;
  const PairId pair_id = make_pair_id(a, b);
  const Shape& shape_a = model_.shapes[a];
  const Shape& shape_b = model_.shapes[b];

  // lastContactDict's points of this pair (consecutive: the dictionary orders by pair).
  const auto previous_begin = last_contact_dict_.lower_bound(ContactId{pair_id, 0});
  auto previous_end = previous_begin;
  while (previous_end != last_contact_dict_.end() && previous_end->first.pair == pair_id) {
    ++previous_end;
  }
  const ManifoldReference* kept =
      previous_begin != previous_end ? &previous_begin->second.reference : nullptr;

  // The candidates, the pair's reference kept while its face still lies along the normal.
  ContactManifold manifold;
  compute_contact_manifold(shape_a, X_WS[a], shape_b, X_WS[b], kept, ReferenceUse::reassess,
                           manifold);
  std::array<char, kMaxManifoldPoints> touching{};
  std::array<const ContactPair*, kMaxManifoldPoints> continues{};
  const auto mark_touching = [&] {
    bool any = false;
    for (int k = 0; k < manifold.count; ++k) {
      const bool in_contact =
          manifold.points[static_cast<std::size_t>(k)].geometry.distance < -2.0 * eps;
      touching[static_cast<std::size_t>(k)] = in_contact ? 1 : 0;
      any = any || in_contact;
    }
    return any;
  };
  // A pair that leaves contact is judged as the crossing functions judge a free pair: with a
  // reference chosen afresh, which may differ from the one kept while it touched.
  if (!mark_touching() && kept != nullptr) {
    compute_contact_manifold(shape_a, X_WS[a], shape_b, X_WS[b], nullptr, ReferenceUse::reassess,
                             manifold);
    mark_touching();
  }

  // A point continues a previous one with the same features; failing that, one that ended
  // within kSamePointDistance of it (the features changed under a point that moved on).
  std::vector<const ContactPair*> unmatched;
  for (auto it = previous_begin; it != previous_end; ++it) unmatched.push_back(&it->second);
  const auto take = [&unmatched](auto&& matches) -> const ContactPair* {
    for (auto it = unmatched.begin(); it != unmatched.end(); ++it) {
      if (matches(**it)) {
        const ContactPair* found = *it;
        unmatched.erase(it);
        return found;
      }
    }
    return nullptr;
  };
  for (int k = 0; k < manifold.count; ++k) {
    if (touching[static_cast<std::size_t>(k)] == 0) continue;
    const ManifoldPoint& point = manifold.points[static_cast<std::size_t>(k)];
    continues[static_cast<std::size_t>(k)] = take([&](const ContactPair& previous) {
      return previous.reference == manifold.reference && previous.feature_a == point.feature_a &&
             previous.feature_b == point.feature_b;
    });
  }
  const double same_point_distance =
      kSamePointDistance *
      std::min(shape_a.type == ShapeType::halfspace ? kInfinity : compute_bounding_radius(shape_a),
               shape_b.type == ShapeType::halfspace ? kInfinity : compute_bounding_radius(shape_b));
  for (int k = 0; k < manifold.count; ++k) {
    if (touching[static_cast<std::size_t>(k)] == 0 || continues[static_cast<std::size_t>(k)]) {
      continue;
    }
    const Vec3 p_WC = manifold.points[static_cast<std::size_t>(k)].geometry.contact_point_W();
    continues[static_cast<std::size_t>(k)] = take([&](const ContactPair& previous) {
      const ManifoldPoint now =
          evaluate_manifold_point(shape_a, X_WS[a], shape_b, X_WS[b], previous.reference,
                                  previous.feature_a, previous.feature_b);
      return (now.geometry.contact_point_W() - p_WC).norm() <= same_point_distance;
    });
  }

  // Slots: a continuing point keeps its own, a new one takes the smallest free.
  std::array<char, 2 * kMaxManifoldPoints> slot_used{};
  for (int k = 0; k < manifold.count; ++k) {
    if (const ContactPair* previous = continues[static_cast<std::size_t>(k)]) {
      if (previous->slot < static_cast<int>(slot_used.size())) {
        slot_used[static_cast<std::size_t>(previous->slot)] = 1;
      }
    }
  }
  for (int k = 0; k < manifold.count; ++k) {
    if (touching[static_cast<std::size_t>(k)] == 0) continue;
    const ManifoldPoint& point = manifold.points[static_cast<std::size_t>(k)];
    ContactPair pair;
    if (const ContactPair* previous = continues[static_cast<std::size_t>(k)]) {
      pair = *previous;  // keeps its slot, v-, d_res and the law
    } else {
      pair = start_point(a, b, point.geometry, bodies);
      pair.slot = 0;
      while (slot_used[static_cast<std::size_t>(pair.slot)] != 0) ++pair.slot;
      slot_used[static_cast<std::size_t>(pair.slot)] = 1;
    }
    pair.reference = manifold.reference;
    pair.feature_a = point.feature_a;
    pair.feature_b = point.feature_b;
    pair.geometry = point.geometry;
    // A point starting exactly on the edge of its features starts at z1 <= -eps all the same.
    pair.validity_offset = std::max(0.0, point.validity + eps);
    contact_dict_.emplace(ContactId{pair_id, pair.slot}, pair);
  }
}

ContactPair ContactHandler::start_point(int a, int b, const SignedDistance& geometry,
                                        std::span<const BodyKinematics> bodies) const {
  ContactPair pair;
  pair.shape_a = a;
  pair.shape_b = b;
  pair.law = resolve_contact_law(model_, a, b);
  pair.pre_impact_normal_velocity = compute_penetration_rate(
      geometry, bodies[model_.shapes[a].body], bodies[model_.shapes[b].body]);
  pair.damping = compute_contact_damping(pair.law, pair.pre_impact_normal_velocity);
  return pair;
}

void ContactHandler::add_terrain_contacts(int a, int b, std::span<const Pose> X_WS,
                                          std::span<const BodyKinematics> bodies) {
  const double eps = contact_eps_;
  const PairId pair_id = make_pair_id(a, b);
  const Shape& shape_a = model_.shapes[a];
  const Shape& shape_b = model_.shapes[b];
  const double same_point_distance = kSamePointDistance * terrain_partner_size(model_, a, b);

  // The points kept so far: their features and contact points.
  struct Held {
    Feature feature_a;
    Feature feature_b;
    Vec3 p_WC;
  };
  std::vector<Held> held;
  const auto is_held = [&](const ManifoldPoint& point) {
    return std::any_of(held.begin(), held.end(), [&](const Held& h) {
      return (h.feature_a == point.feature_a && h.feature_b == point.feature_b) ||
             (h.p_WC - point.geometry.contact_point_W()).norm() <= same_point_distance;
    });
  };
  std::array<char, 2 * kMaxManifoldPoints> slot_used{};
  const auto keep = [&](ContactPair& pair, const ManifoldPoint& point) {
    pair.reference = {ManifoldKind::terrain, -1};
    pair.feature_a = point.feature_a;  // the new anchor
    pair.feature_b = point.feature_b;
    pair.geometry = point.geometry;
    pair.validity_offset = 0.0;  // terrain points have no validity
    held.push_back({point.feature_a, point.feature_b, point.geometry.contact_point_W()});
    slot_used[static_cast<std::size_t>(pair.slot)] = 1;
    contact_dict_.emplace(ContactId{pair_id, pair.slot}, pair);
  };

  // Points in contact continue where their walk over the surface takes them, keeping slot, v-
  // and d_res; one that reached another's feature merges into it.
  struct Stopped {
    const ContactPair* pair;
    Vec3 p_WC;
  };
  std::vector<Stopped> stopped;  // past their features' regions: a candidate there continues them
  // The surface vertex of a peak's point (its partner feature a face), else -1.
  const bool partner_is_a = is_terrain_partner_a(shape_a, shape_b);
  const auto peak_vertex = [&](const Feature& feature_a, const Feature& feature_b) {
    const Feature& on_partner = partner_is_a ? feature_a : feature_b;
    const Feature& on_terrain = partner_is_a ? feature_b : feature_a;
    return on_partner.kind == FeatureKind::face ? on_terrain.index : -1;
  };
  for (auto it = last_contact_dict_.lower_bound(ContactId{pair_id, 0});
       it != last_contact_dict_.end() && it->first.pair == pair_id; ++it) {
    ContactPair pair = it->second;
    const ManifoldPoint now =
        evaluate_terrain_point(shape_a, X_WS[a], shape_b, X_WS[b], pair.feature_a, pair.feature_b);
    if (now.validity > 0.0) {
      stopped.push_back({&it->second, now.geometry.contact_point_W()});
      continue;
    }
    if (!(now.geometry.distance < -2.0 * eps) || is_held(now)) continue;
    keep(pair, now);
  }
  // Then the candidates that none of them holds.
  ContactManifold manifold;
  compute_contact_manifold(shape_a, X_WS[a], shape_b, X_WS[b], nullptr, ReferenceUse::reassess,
                           manifold);
  for (int k = 0; k < manifold.count && static_cast<int>(held.size()) < kMaxManifoldPoints; ++k) {
    const ManifoldPoint& point = manifold.points[static_cast<std::size_t>(k)];
    if (!(point.geometry.distance < -2.0 * eps) || is_held(point)) continue;
    // A peak that another face now holds is the same peak (its midpoint moves with the normal):
    // matched by its vertex first, then any point by its place.
    const int peak = peak_vertex(point.feature_a, point.feature_b);
    const auto free_slot = [&](const Stopped& s) {
      return s.pair != nullptr && slot_used[static_cast<std::size_t>(s.pair->slot)] == 0;
    };
    auto same_place = std::find_if(stopped.begin(), stopped.end(), [&](const Stopped& s) {
      return free_slot(s) && peak >= 0 && peak == peak_vertex(s.pair->feature_a, s.pair->feature_b);
    });
    if (same_place == stopped.end()) {
      same_place = std::find_if(stopped.begin(), stopped.end(), [&](const Stopped& s) {
        return free_slot(s) &&
               (s.p_WC - point.geometry.contact_point_W()).norm() <= same_point_distance;
      });
    }
    if (same_place != stopped.end()) {
      ContactPair pair = *same_place->pair;  // keeps its slot, v- and d_res
      same_place->pair = nullptr;
      keep(pair, point);
      continue;
    }
    ContactPair pair = start_point(a, b, point.geometry, bodies);
    while (slot_used[static_cast<std::size_t>(pair.slot)] != 0) ++pair.slot;
    keep(pair, point);
  }
}

void ContactHandler::count_shape_pair_points() {
  // Points of the same shape pair (Gazebo's count, for laws that normalise by it): consecutive in
  // the dictionary.
  for (auto first = contact_dict_.begin(); first != contact_dict_.end();) {
    auto last = first;
    int count = 0;
    while (last != contact_dict_.end() && last->first.pair == first->first.pair) ++last, ++count;
    for (auto it = first; it != last; ++it) it->second.shape_pair_points = count;
    first = last;
  }
}

std::vector<double> ContactHandler::stored_pairs() const {
  std::vector<double> stored;
  stored.reserve(kStoredNumbersPerPoint * contact_dict_.size());
  const auto number = [](auto value) { return static_cast<double>(value); };
  for (const auto& [id, pair] : contact_dict_) {
    stored.insert(stored.end(),
                  {number(pair.shape_a), number(pair.shape_b), number(pair.slot),
                   number(static_cast<int>(pair.reference.kind)), number(pair.reference.face),
                   number(static_cast<int>(pair.feature_a.kind)), number(pair.feature_a.index),
                   number(pair.feature_a.index2), number(static_cast<int>(pair.feature_b.kind)),
                   number(pair.feature_b.index), number(pair.feature_b.index2),
                   pair.pre_impact_normal_velocity, pair.damping, pair.validity_offset});
  }
  return stored;
}

namespace {

// Whether `value` is an integer in [low, high).
bool is_index(double value, double low, double high) {
  return value >= low && value < high && value == std::floor(value);
}

// Whether the stored reference and features are a combination the manifold makes for shapes a
// and b, with every index in range: anything else could not be evaluated.
bool fits_shapes(const Shape& a, const Shape& b, const ContactPair& point) {
  // A polytope's vertex and face lists (a box, or a convex hull): what the kinds that clip faces
  // or walk corners evaluate; any other shape has none to index.
  const auto polytope = [](const Shape& shape) {
    return shape.type == ShapeType::box || (shape.type == ShapeType::convex && shape.hull);
  };
  const bool halfspace_a = a.type == ShapeType::halfspace;
  const bool halfspace_b = b.type == ShapeType::halfspace;
  const Feature& fa = point.feature_a;
  const Feature& fb = point.feature_b;
  switch (point.reference.kind) {
    case ManifoldKind::single:
      return point.slot == 0 && fa.kind == FeatureKind::shape && fb.kind == FeatureKind::shape;
    case ManifoldKind::terrain: {
      if (!is_terrain_pair(a, b) || !touches_terrain_shapes(a, b)) return false;
      const bool partner_is_a = is_terrain_partner_a(a, b);
      const Shape& terrain = partner_is_a ? b : a;
      const Feature& on_terrain = partner_is_a ? fb : fa;
      const Feature& on_partner = partner_is_a ? fa : fb;
      // A peak's point pairs a face of the partner with a vertex of the surface; a capsule side's
      // an edge or a vertex.
      return is_partner_feature(partner_is_a ? a : b, on_partner) &&
             is_surface_feature(*terrain.surface, on_terrain) &&
             (on_partner.kind != FeatureKind::face ||
              (on_terrain.kind == FeatureKind::vertex &&
               terrain.surface->peaks[static_cast<std::size_t>(on_terrain.index)] != 0)) &&
             (on_partner != kCapsuleSide || on_terrain.kind != FeatureKind::face);
    }
    case ManifoldKind::closest:
      return polytope(a) && polytope(b) && fa.kind == FeatureKind::shape &&
             fb.kind == FeatureKind::shape;
    case ManifoldKind::halfspace: {
      if (halfspace_a == halfspace_b) return false;
      const Feature& plane = halfspace_a ? fa : fb;
      const Feature& corner = halfspace_a ? fb : fa;
      const Shape& partner = halfspace_a ? b : a;
      if (!has_round_flats(partner) && !polytope(partner)) return false;
      const int count =
          has_round_flats(partner) ? round_point_count(partner) : Polytope(partner).vertex_count();
      return plane == Feature{FeatureKind::face, 0, 0} && corner.kind == FeatureKind::vertex &&
             corner.index >= 0 && corner.index < count;
    }
    case ManifoldKind::face_of_a:
    case ManifoldKind::face_of_b: {
      if (!polytope(a) || !polytope(b)) return false;
      const bool reference_is_a = point.reference.kind == ManifoldKind::face_of_a;
      const Polytope reference(reference_is_a ? a : b);
      const Polytope incident(reference_is_a ? b : a);
      const Feature& on_reference = reference_is_a ? fa : fb;
      const Feature& on_incident = reference_is_a ? fb : fa;
      const int face = point.reference.face;
      if (face < 0 || face >= reference.face_count()) return false;
      const auto loop = reference.face_loop(face);
      const auto incident_vertex = [&](int v) { return v >= 0 && v < incident.vertex_count(); };
      if (on_incident.kind == FeatureKind::vertex) {
        return on_reference == Feature{FeatureKind::face, face, 0} &&
               incident_vertex(on_incident.index);
      }
      if (on_incident.kind == FeatureKind::edge) {
        return on_reference.kind == FeatureKind::face_edge && on_reference.index == face &&
               on_reference.index2 >= 0 && on_reference.index2 < static_cast<int>(loop.size()) &&
               incident_vertex(on_incident.index) && incident_vertex(on_incident.index2);
      }
      if (on_incident.kind == FeatureKind::face) {
        return on_reference.kind == FeatureKind::vertex &&
               std::find(loop.begin(), loop.end(), on_reference.index) != loop.end() &&
               on_incident.index >= 0 && on_incident.index < incident.face_count();
      }
      return false;
    }
  }
  return false;
}

}  // namespace

void ContactHandler::restore(std::span<const double> stored, std::span<const Pose> X_WS) {
  constexpr std::size_t n = kStoredNumbersPerPoint;
  if (stored.size() % n != 0) {
    throw InputError(
        fmt::format("key 'contact_points' has {} numbers, not {} per point", stored.size(), n));
  }
  const auto shape_count = static_cast<double>(model_.shapes.size());
  const double kinds = static_cast<double>(static_cast<int>(FeatureKind::face_edge) + 1);
  const double references = static_cast<double>(static_cast<int>(ManifoldKind::terrain) + 1);
  // A rebuild that throws part-way (a narrowphase failure) leaves contactDict and the views of
  // it empty and consistent, not half-filled.
  OnUnwind unwind{[this] {
    contact_dict_.clear();
    index_contacts();
  }};
  contact_dict_.clear();
  for (std::size_t i = 0; i < stored.size(); i += n) {
    const auto v = stored.subspan(i, n);
    const auto fail = [&](std::string_view what) {
      return InputError(fmt::format("key 'contact_points': point {} {}", i / n, what));
    };
    if (!is_index(v[0], 0, shape_count) || !is_index(v[1], 0, shape_count) || !(v[0] < v[1])) {
      throw fail(fmt::format("has shapes {} and {} (the scene has {} shapes)", v[0], v[1],
                             model_.shapes.size()));
    }
    const double big = 1e9;
    if (!is_index(v[2], 0, kMaxManifoldPoints * 2) || !is_index(v[3], 0, references) ||
        !is_index(v[4], -1, big) || !is_index(v[5], 0, kinds) || !is_index(v[6], 0, big) ||
        !is_index(v[7], 0, big) || !is_index(v[8], 0, kinds) || !is_index(v[9], 0, big) ||
        !is_index(v[10], 0, big) || !std::isfinite(v[11]) || !std::isfinite(v[12]) ||
        !(v[13] >= 0.0 && std::isfinite(v[13]))) {
      throw fail("has a slot, reference, feature or stored value out of range");
    }
    ContactPair pair;
    pair.shape_a = static_cast<int>(v[0]);
    pair.shape_b = static_cast<int>(v[1]);
    pair.slot = static_cast<int>(v[2]);
    pair.reference = {static_cast<ManifoldKind>(static_cast<int>(v[3])), static_cast<int>(v[4])};
    pair.feature_a = {static_cast<FeatureKind>(static_cast<int>(v[5])), static_cast<int>(v[6]),
                      static_cast<int>(v[7])};
    pair.feature_b = {static_cast<FeatureKind>(static_cast<int>(v[8])), static_cast<int>(v[9]),
                      static_cast<int>(v[10])};
    pair.pre_impact_normal_velocity = v[11];
    pair.damping = v[12];
    pair.validity_offset = v[13];
    const Shape& shape_a = model_.shapes[pair.shape_a];
    const Shape& shape_b = model_.shapes[pair.shape_b];
    if (!model_.may_collide(pair.shape_a, pair.shape_b)) {
      throw fail("names two shapes that never touch in this scene (another scene?)");
    }
    const bool manifold = pair.reference.kind != ManifoldKind::single;
    if (manifold != is_manifold_pair(pair.shape_a, pair.shape_b) ||
        !fits_shapes(shape_a, shape_b, pair)) {
      throw fail(
          "has features that do not fit its shapes (another scene or contact.points, or a "
          "hybridsim before cylinders and cones stood on their rims?)");
    }
    pair.law = resolve_contact_law(model_, pair.shape_a, pair.shape_b);
    pair.geometry = compute_point_geometry(model_, pair, X_WS);
    const PairId pair_id = make_pair_id(pair.shape_a, pair.shape_b);
    const auto first_of_pair = contact_dict_.lower_bound(ContactId{pair_id, 0});
    if (first_of_pair != contact_dict_.end() && first_of_pair->first.pair == pair_id &&
        !(first_of_pair->second.reference == pair.reference)) {
      throw fail("has another manifold reference than its pair's other points");
    }
    if (!contact_dict_.emplace(ContactId{pair_id, pair.slot}, pair).second) {
      throw fail("repeats a contact id");
    }
  }
  count_shape_pair_points();
  broadphase_.update(X_WS);
  last_contact_dict_ = contact_dict_;
  index_contacts();
  unwind.done = true;
}

void ContactHandler::reset() {
  contact_dict_.clear();
  last_contact_dict_.clear();
  index_contacts();
}

void ContactHandler::index_contacts() {
  contact_points_.clear();
  contact_set_.clear();
  manifold_pairs_.clear();
  contact_list_.assign(contact_dict_.begin(), contact_dict_.end());
  for (const auto& [id, pair] : contact_dict_) {
    const int a = pair.shape_a, b = pair.shape_b;
    if (pair.reference.kind != ManifoldKind::single) {
      auto [range, inserted] = manifold_pairs_.try_emplace(
          id.pair, PointRange{static_cast<int>(contact_points_.size()), 0});
      ++range->second.count;
    }
    contact_points_.push_back({a, b, pair.reference, pair.feature_a, pair.feature_b,
                               pair.validity_offset, pair.feature_a, pair.feature_b,
                               pair.geometry.contact_point_W()});
    contact_set_.insert(a, b);
  }
}

}  // namespace hybridsim
