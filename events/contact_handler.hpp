// The contact handler: the z1/z2 crossing functions of seed 002 and design.md §4, and the
// rebuilding of contactDict / lastContactDict at events.
//
//   contact  = at an event: distanceOrg < -2 eps; between events: as decided at the last event
//   z1 = max(distanceOrg + eps   over pairs in contact)        rises through 0: a contact ends
//   z2 = min(distanceOrg + 3 eps over candidate pairs not in contact)  falls: a contact starts
//
// distanceOrg is the narrowphase signed distance when the pair's AABBs overlap, else the AABB
// distance (a positive lower bound). Empty sets give the dummies z1 = -1, z2 = +1.
//
// With manifolds (design.md §4b) the unit is the contact point: a pair of polytopes or a polytope
// on a half-space has several candidate points, each in contact or not on its own; z1 takes
// max(distanceOrg + eps, validity) of each point in contact (a point whose features no longer
// make it ends its feature set, an event), z2 the candidates of every pair not yet in contact,
// including those of a pair that is partly in contact.
#pragma once

#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collision/broadphase.hpp"
#include "collision/pair_set.hpp"
#include "core/hybrid_system.hpp"
#include "core/model.hpp"
#include "core/rigid_body.hpp"
#include "events/contact_pair.hpp"

namespace hybridsim {

inline constexpr double kEmptyContactSetZ1 = -1.0;   // z1 when no pair is in contact, m
inline constexpr double kEmptyCandidateSetZ2 = 1.0;  // z2 when every pair is in contact, m

// The law parameters of shapes a and b: materials, contact sphere radii, global settings.
ContactLawParameters resolve_contact_law(const Model& model, int shape_a, int shape_b);

// The geometry of contact point `point` at the shape poses X_WS: the narrowphase for one point per
// pair, the features under the pair's reference for a manifold point.
SignedDistance compute_point_geometry(const Model& model, const ContactPair& point,
                                      std::span<const Pose> X_WS);

// Normal approach speed delta_dot = -(v_B(C) - v_A(C)) . n at the contact point.
double compute_penetration_rate(const SignedDistance& geometry, const BodyKinematics& body_a,
                                const BodyKinematics& body_b);

class ContactHandler {
 public:
  explicit ContactHandler(const Model& model);

  double contact_eps() const { return contact_eps_; }

  // z1, z2 at the shape poses X_WS (indexed by shape). Allocation-free.
  void compute_crossings(std::span<const Pose> X_WS, double& z1, double& z2);

  // At an event (and at initialisation): empties contactDict and fills it with every pair whose
  // distanceOrg < -2 eps; continuing pairs keep their stored data from lastContactDict, new ones
  // store delta_dot- now. Returns the starts and ends; then lastContactDict := contactDict.
  std::vector<EventRecord> rebuild_contacts(double t, std::string_view crossing,
                                            std::span<const Pose> X_WS,
                                            std::span<const BodyKinematics> bodies);

  // Forgets both dictionaries (a new run starts).
  void reset();

  // Checkpoints: per point in contactDict, kStoredNumbersPerPoint numbers in contact id order
  // (its two shapes, slot, manifold reference, the features of A and B, the pre-impact normal
  // velocity, damping and validity offset it stored), and both dictionaries set back from them (the
  // law from the model, the geometry at X_WS). restore throws InputError naming the point if a
  // number does not fit the model.
  static constexpr std::size_t kStoredNumbersPerPoint = 14;
  std::vector<double> stored_pairs() const;
  void restore(std::span<const double> stored, std::span<const Pose> X_WS);

  const ContactDict& contacts() const { return contact_dict_; }
  // contactDict's points in its order, contiguous: what the right-hand side loops over (a tree's
  // nodes lie scattered; in a pile of 10,000 balls walking them cost 12% of the contact forces).
  // Valid until the next rebuild.
  std::span<const std::pair<ContactId, ContactPair>> contact_list() const { return contact_list_; }
  const ContactDict& last_contacts() const { return last_contact_dict_; }
  const Broadphase& broadphase() const { return broadphase_; }

 private:
  // Rebuilds the flat copies of contactDict's points that the crossing functions read.
  void index_contacts();
  // Each point's count of points of the same shape pair.
  void count_shape_pair_points();
  // Whether shapes a and b have manifolds in this model: a terrain shape with any other but a
  // half-space, else per contact.points and their geometry (a mesh on a half-space as a hull).
  bool is_manifold_pair(int a, int b) const {
    const bool half_a = model_.shapes[a].type == ShapeType::halfspace;
    const bool half_b = model_.shapes[b].type == ShapeType::halfspace;
    if (manifold_geometry_[a] == kTerrain || manifold_geometry_[b] == kTerrain) {
      return !(half_a || half_b) || model_.contact.points == ContactPoints::manifold;
    }
    if (manifold_geometry_[a] == kRoundFlats || manifold_geometry_[b] == kRoundFlats) {
      return half_a || half_b;  // a cylinder or cone has its rims' points on a half-space only
    }
    return manifold_geometry_[a] != 0 && manifold_geometry_[b] != 0 &&
           !(model_.shapes[a].type == ShapeType::halfspace &&
             model_.shapes[b].type == ShapeType::halfspace);
  }
  // Adds the points of manifold pair (a, b) that are in contact at X_WS to contactDict, keeping
  // the slot and stored data of lastContactDict's points they continue.
  void add_manifold_contacts(int a, int b, std::span<const Pose> X_WS,
                             std::span<const BodyKinematics> bodies);
  // The smallest distance of the candidate points of manifold pair (a, b) that are not in
  // contact.
  double smallest_free_candidate_distance(int a, int b, std::span<const Pose> X_WS);
  // A point of shapes a and b that starts now: its law, and v- and d_res from the bodies' motion.
  ContactPair start_point(int a, int b, const SignedDistance& geometry,
                          std::span<const BodyKinematics> bodies) const;
  // add_manifold_contacts for a terrain pair: lastContactDict's points that are still in contact,
  // followed over the surface, then the candidates that none of them holds.
  void add_terrain_contacts(int a, int b, std::span<const Pose> X_WS,
                            std::span<const BodyKinematics> bodies);

  const Model& model_;
  double contact_eps_;
  Broadphase broadphase_;
  ContactDict contact_dict_;
  ContactDict last_contact_dict_;
  static constexpr char kTerrain = 2;
  static constexpr char kRoundFlats = 3;
  // per shape: takes part in manifolds (1), is a terrain shape (kTerrain), a cylinder or cone
  // (kRoundFlats: manifolds on a half-space only), or neither (0)
  std::vector<char> manifold_geometry_;
  // contactDict's points as a list (z1) and its shape pairs as a hash set (z2 skips the pairs of
  // single points): constant-time lookups and contiguous reads where the tree would cost log N
  // cache misses per pair.
  struct IndexedPoint {
    int shape_a;
    int shape_b;
    ManifoldReference reference;
    Feature feature_a;
    Feature feature_b;
    double validity_offset;  // ContactPair::validity_offset
    // Terrain points: the features and contact point z1 last walked to from the anchor
    // (feature_a, feature_b), which z2 compares the candidates with.
    Feature walked_a;
    Feature walked_b;
    Vec3 p_WC;
  };
  std::vector<IndexedPoint> contact_points_;
  std::vector<std::pair<ContactId, ContactPair>> contact_list_;
  PairSet contact_set_;
  // Manifold pairs in contact: their points' range in contact_points_ (consecutive, as the
  // dictionary orders them by pair).
  struct PointRange {
    int first;
    int count;
  };
  std::unordered_map<PairId, PointRange> manifold_pairs_;
  // The crossing functions' manifold, reused (2 kB: made anew per pair it cost as much as the
  // search over a terrain's triangles).
  ContactManifold scratch_manifold_;
};

}  // namespace hybridsim
