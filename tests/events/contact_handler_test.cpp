// The z1/z2 scheme of design.md §4 and seed 002: hysteresis thresholds, the restart guarantee
// z1 <= -eps and z2 >= eps, dummy values, 64-bit pair ids, and the stored pre-impact velocity
// carried across later events.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <limits>

#include "events/contact_handler.hpp"
#include "models/scene_loader.hpp"

namespace hybridsim {
namespace {

constexpr double eps = 1e-13;

// Ground half-space and two spheres of radius 0.1 at x = 0 and x = 1.
Model two_spheres_on_ground() {
  return load_scene_text(R"(
gravity: [0, 0, -9.81]
contact: {contact_eps: 1.0e-13}
materials:
  Steel: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}
contact_materials:
  - {pair: [Steel, Steel], restitution: 0.5}
bodies:
  - {name: ground, fixed: true, shapes: [{type: halfspace, material: Steel}]}
  - {name: left, position: [0, 0, 1], shapes: [{type: sphere, radius: 0.1, material: Steel}]}
  - {name: right, position: [1, 0, 1], shapes: [{type: sphere, radius: 0.1, material: Steel}]}
)",
                         "two_spheres");
}

// Shape poses and body kinematics for the spheres' heights above contact and their vertical
// velocities (negative: approaching the ground).
struct Configuration {
  std::vector<Pose> X_WS;
  std::vector<BodyKinematics> bodies;
};

Configuration configure(const Model& model, double gap_left, double gap_right, double vz_left,
                        double vz_right) {
  Configuration c;
  c.X_WS.resize(3);
  c.bodies.resize(3);
  c.X_WS[1].translation = Vec3(0, 0, 0.1 + gap_left);
  c.X_WS[2].translation = Vec3(1, 0, 0.1 + gap_right);
  for (int i = 1; i < 3; ++i) {
    c.bodies[i].X_WB = c.X_WS[i];
    c.bodies[i].p_WCom = c.X_WS[i].translation;
    c.bodies[i].v_WCom_W = Vec3(0, 0, i == 1 ? vz_left : vz_right);
  }
  (void)model;
  return c;
}

TEST_CASE("pair ids: unordered, 64-bit, no small per-index limit") {
  CHECK(make_pair_id(3, 1) == make_pair_id(1, 3));
  const int big = std::numeric_limits<int>::max();
  const PairId id = make_pair_id(big, big - 1);
  CHECK(pair_shape_a(id) == big - 1);
  CHECK(pair_shape_b(id) == big);
  CHECK(make_pair_id(0, big) != make_pair_id(1, big));
}

TEST_CASE("contact set: a pair is in contact below -2 eps, and z1/z2 keep their restart signs") {
  const Model model = two_spheres_on_ground();
  ContactHandler handler(model);
  double z1 = 0, z2 = 0;

  // Left penetrates by 2.5 eps (contact), right by 1.5 eps (not yet: the hysteresis band).
  Configuration c = configure(model, -2.5 * eps, -1.5 * eps, -1.0, -1.0);
  const auto records = handler.rebuild_contacts(0.0, "z2", c.X_WS, c.bodies);
  REQUIRE(records.size() == 1);
  CHECK(records[0].kind == EventRecord::Kind::contact_start);
  CHECK(records[0].pair_b == "left/0");
  CHECK(handler.contacts().size() == 1);
  handler.compute_crossings(c.X_WS, z1, z2);
  // Positions near 0.1 m carry rounding of 1.4e-17 m: 1e-3 of 1.5 eps resolves the eps offsets.
  CHECK(z1 == testing::relative(-1.5 * eps, 1e-3));  // <= -eps
  CHECK(z1 <= -eps);
  CHECK(z2 == testing::relative(1.5 * eps, 1e-3));  // >= eps
  CHECK(z2 >= eps);

  // The right sphere sinks to -3 eps: z2 crosses zero (falling); the left rises to -eps: z1
  // crosses zero (rising).
  c = configure(model, -1.0 * eps, -3.0 * eps, 1.0, -1.0);
  handler.compute_crossings(c.X_WS, z1, z2);
  CHECK(z1 >= -1e-3 * eps);
  CHECK(z2 <= 1e-3 * eps);
}

TEST_CASE("contact set: dummy z values for empty sets") {
  const Model model = two_spheres_on_ground();
  ContactHandler handler(model);
  double z1 = 0, z2 = 0;
  Configuration apart = configure(model, 0.5, 0.5, 0, 0);
  handler.rebuild_contacts(0.0, "", apart.X_WS, apart.bodies);
  handler.compute_crossings(apart.X_WS, z1, z2);
  CHECK(z1 == kEmptyContactSetZ1);
  // The candidate set is not empty: z2 is the smallest distance plus 3 eps.
  CHECK(std::abs(z2 - (0.5 + 3 * eps)) < 1e-15);  // resolves the 3 eps
  // Both on the ground: the only candidate left is the sphere pair, 0.8 apart (AABB distance).
  Configuration both = configure(model, -1e-6, -1e-6, 0, 0);
  handler.rebuild_contacts(0.0, "", both.X_WS, both.bodies);
  handler.compute_crossings(both.X_WS, z1, z2);
  CHECK(std::abs(z2 - (0.8 + 3 * eps)) < 1e-15);
  CHECK(std::abs(z1 - (-1e-6 + eps)) < 1e-16);

  // One sphere resting on the ground: no candidate pair is out of contact, z2 is the dummy.
  const Model single = load_scene_text(R"(
materials: {Steel: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}
contact_materials: [{pair: [Steel, Steel]}]
bodies:
  - {name: ground, fixed: true, shapes: [{type: halfspace, material: Steel}]}
  - {name: ball, shapes: [{type: sphere, radius: 0.1, material: Steel}]}
)",
                                       "single");
  ContactHandler single_handler(single);
  std::vector<Pose> poses(2);
  poses[1].translation = Vec3(0, 0, 0.1 - 1e-6);
  std::vector<BodyKinematics> bodies(2);
  single_handler.rebuild_contacts(0.0, "", poses, bodies);
  single_handler.compute_crossings(poses, z1, z2);
  CHECK(z2 == kEmptyCandidateSetZ2);
}

TEST_CASE("contact set: v- is stored at contact start and carried across later events") {
  const Model model = two_spheres_on_ground();
  ContactHandler handler(model);
  // Left starts at 2 m/s approach.
  Configuration c = configure(model, -1e-9, 0.5, -2.0, 0.0);
  handler.rebuild_contacts(0.0, "z2", c.X_WS, c.bodies);
  const ContactId left{make_pair_id(0, 1), 0};
  REQUIRE(handler.contacts().contains(left));
  CHECK(handler.contacts().at(left).pre_impact_normal_velocity == testing::relative(2.0, 1e-12));
  const double damping = handler.contacts().at(left).damping;
  CHECK(damping == testing::relative(exact_damping_alpha(0.5) / 2.0, 1e-12));

  // Later event for the right sphere while the left is rebounding at 1 m/s: the left keeps v-.
  c = configure(model, -1e-9, -1e-9, 1.0, -3.0);
  const auto records = handler.rebuild_contacts(0.1, "z2", c.X_WS, c.bodies);
  REQUIRE(records.size() == 1);
  CHECK(records[0].pair_b == "right/0");
  CHECK(records[0].pre_impact_velocity == testing::relative(3.0, 1e-12));
  CHECK(handler.contacts().at(left).pre_impact_normal_velocity == testing::relative(2.0, 1e-12));
  CHECK(handler.contacts().at(left).damping == damping);
  CHECK(handler.last_contacts().size() == 2);

  // The left leaves (an end), then comes back at 0.5 m/s: a new start stores the new v-.
  c = configure(model, 1e-3, -1e-9, 1.0, -3.0);
  const auto ends = handler.rebuild_contacts(0.2, "z1", c.X_WS, c.bodies);
  REQUIRE(ends.size() == 1);
  CHECK(ends[0].kind == EventRecord::Kind::contact_end);
  c = configure(model, -1e-9, -1e-9, -0.5, 0.0);
  handler.rebuild_contacts(0.3, "z2", c.X_WS, c.bodies);
  CHECK(handler.contacts().at(left).pre_impact_normal_velocity == testing::relative(0.5, 1e-12));
}

}  // namespace
}  // namespace hybridsim
