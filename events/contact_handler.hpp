// The contact handler: the z1/z2 crossing functions of seed 002 and design.md §4, and the
// rebuilding of contactDict / lastContactDict at events.
//
//   contact  = at an event: distanceOrg < -2 eps; between events: as decided at the last event
//   z1 = max(distanceOrg + eps   over pairs in contact)        rises through 0: a contact ends
//   z2 = min(distanceOrg + 3 eps over candidate pairs not in contact)  falls: a contact starts
//
// distanceOrg is the narrowphase signed distance when the pair's AABBs overlap, else the AABB
// distance (a positive lower bound). Empty sets give the dummies z1 = -1, z2 = +1.
#pragma once

#include <span>
#include <string_view>
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

  // Checkpoints: per pair in contactDict, its two shapes, the pre-impact normal velocity and
  // damping it stored (4 numbers each, in pair order), and both dictionaries set back from them
  // (the law from the model, the geometry at X_WS). restore throws InputError naming the pair if
  // a shape index is not the model's.
  std::vector<double> stored_pairs() const;
  void restore(std::span<const double> stored, std::span<const Pose> X_WS);

  const ContactDict& contacts() const { return contact_dict_; }
  const ContactDict& last_contacts() const { return last_contact_dict_; }
  const Broadphase& broadphase() const { return broadphase_; }

 private:
  // Rebuilds the flat copies of contactDict's pairs that the crossing functions read.
  void index_contacts();
  // Each pair's count of contacts between the same two bodies.
  void count_body_pair_contacts();

  const Model& model_;
  double contact_eps_;
  Broadphase broadphase_;
  ContactDict contact_dict_;
  ContactDict last_contact_dict_;
  // contactDict's shape pairs as a list (z1) and a hash set (z2 skips them): constant-time
  // lookups and contiguous reads where the tree would cost log N cache misses per pair.
  std::vector<std::pair<int, int>> contact_shapes_;
  PairSet contact_set_;
};

}  // namespace hybridsim
