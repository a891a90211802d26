// Sweep-and-prune against a brute-force check over every pair: the same candidate pairs from
// 10 to 10,000 shapes, with collision groups, masks, shared and fixed bodies, after a first
// update and after many small (incremental) and large moves; the AABB distance as a lower bound.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "collision/broadphase.hpp"
#include "collision/pair_set.hpp"
#include "collision/signed_distance.hpp"

namespace hybridsim {
namespace {

using PairList = std::vector<std::pair<int, int>>;

PairList visited_pairs(const Broadphase& broadphase) {
  PairList visited;
  broadphase.for_each_candidate_pair([&](int a, int b) {
    CHECK(a < b);
    visited.emplace_back(a, b);
  });
  std::sort(visited.begin(), visited.end());
  return visited;
}

// Every pair, in index order, that the filters keep and whose closed AABBs overlap.
PairList brute_force_pairs(const Model& model, const std::vector<Aabb>& boxes) {
  PairList expected;
  const int count = static_cast<int>(model.shapes.size());
  for (int a = 0; a < count; ++a) {
    for (int b = a + 1; b < count; ++b) {
      const Shape &sa = model.shapes[a], &sb = model.shapes[b];
      const bool kept = sa.body != sb.body &&
                        !(model.bodies[sa.body].fixed && model.bodies[sb.body].fixed) &&
                        (sa.collision_group & sb.collision_mask) != 0 &&
                        (sb.collision_group & sa.collision_mask) != 0;
      if (!kept) continue;
      const Aabb &x = boxes[a], &y = boxes[b];
      if ((x.min_W.array() <= y.max_W.array()).all() &&
          (y.min_W.array() <= x.max_W.array()).all()) {
        expected.emplace_back(a, b);
      }
    }
  }
  return expected;
}

// `count` spheres, boxes and capsules at a density independent of the count (so that the
// candidate pairs grow like the count), random groups and masks over 4 categories, every third
// shape on the previous shape's body, every seventh body fixed.
Model make_scene(int count, std::mt19937& random) {
  Model model;
  std::uniform_real_distribution<double> size(0.01, 0.1);
  std::uniform_int_distribution<int> bits(0, 15);
  for (int i = 0; i < count; ++i) {
    if (i % 3 != 2) {
      Body body;
      body.name = fmt::format("b{}", i);
      body.fixed = i % 7 == 0;
      model.bodies.push_back(body);
    }
    Shape shape;
    shape.body = static_cast<int>(model.bodies.size()) - 1;
    shape.type =
        i % 3 == 0 ? ShapeType::sphere : (i % 3 == 1 ? ShapeType::box : ShapeType::capsule);
    shape.radius = size(random);
    shape.length = size(random);
    shape.half_extents = Vec3(size(random), size(random), size(random));
    shape.collision_group = static_cast<std::uint32_t>(bits(random));
    shape.collision_mask = static_cast<std::uint32_t>(bits(random));
    model.bodies.back().shapes.push_back(i);
    model.shapes.push_back(shape);
  }
  return model;
}

TEST_CASE(
    "broadphase: the candidate pairs equal brute force from 10 to 10,000 shapes, as they move") {
  std::mt19937 random(11);
  for (const int count : {10, 100, 1000, 10000}) {
    CAPTURE(count);
    Model model = make_scene(count, random);
    // A cube of side 2 (count / 1000)^(1/3) m: about 0.5 candidate pairs per shape at any count.
    const double half_side = std::cbrt(count / 1000.0);
    std::uniform_real_distribution<double> position(-half_side, half_side), nudge(-0.01, 0.01);
    std::vector<Pose> poses(model.shapes.size());
    for (Pose& pose : poses) {
      pose.translation = Vec3(position(random), position(random), position(random));
      pose.rotation = Quat::UnitRandom().toRotationMatrix();
    }
    Broadphase broadphase(model);
    const int rounds = count <= 1000 ? 20 : 3;
    for (int round = 0; round < rounds; ++round) {
      if (round > 0) {
        // Small moves (the incremental sort's case), and every fifth round a reshuffle of a
        // tenth of the shapes (many swaps at once).
        for (std::size_t i = 0; i < poses.size(); ++i) {
          poses[i].translation += Vec3(nudge(random), nudge(random), nudge(random));
          if (round % 5 == 0 && i % 10 == 0) {
            poses[i].translation = Vec3(position(random), position(random), position(random));
          }
        }
      }
      broadphase.update(poses);
      std::vector<Aabb> boxes(model.shapes.size());
      for (std::size_t i = 0; i < boxes.size(); ++i)
        boxes[i] = compute_aabb(model.shapes[i], poses[i]);
      const PairList expected = brute_force_pairs(model, boxes);
      CHECK(visited_pairs(broadphase) == expected);
      if (count >= 100) CHECK(!expected.empty());
    }
  }
}

TEST_CASE(
    "broadphase: pairs not visited are apart by at least the lower bound, which the true "
    "distance never undercuts") {
  Model model;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> position(-1.0, 1.0), radius(0.02, 0.2);
  for (int i = 0; i < 60; ++i) {
    Body body;
    body.name = fmt::format("b{}", i);
    body.shapes.push_back(i);
    model.bodies.push_back(body);
    Shape shape;
    shape.body = i;
    shape.type = i % 2 ? ShapeType::sphere : ShapeType::box;
    shape.radius = radius(random);
    shape.half_extents = Vec3(radius(random), radius(random), radius(random));
    model.shapes.push_back(shape);
  }
  std::vector<Pose> poses(model.shapes.size());
  Broadphase broadphase(model);
  for (int round = 0; round < 5; ++round) {
    for (Pose& pose : poses) {
      pose.translation = Vec3(position(random), position(random), position(random));
      pose.rotation = Quat::UnitRandom().toRotationMatrix();
    }
    broadphase.update(poses);
    const PairList visited = visited_pairs(broadphase);
    for (int a = 0; a < 60; ++a) {
      for (int b = a + 1; b < 60; ++b) {
        const Aabb box_a = compute_aabb(model.shapes[a], poses[a]);
        const Aabb box_b = compute_aabb(model.shapes[b], poses[b]);
        // The AABB distance never exceeds the true distance.
        const double d =
            compute_signed_distance(model.shapes[a], poses[a], model.shapes[b], poses[b]).distance;
        CHECK(compute_aabb_distance(box_a, box_b) <= std::max(d, 0.0) + 1e-15);
        if (!std::binary_search(visited.begin(), visited.end(), std::pair{a, b})) {
          CHECK(compute_aabb_distance(box_a, box_b) >= broadphase.separated_pairs_lower_bound());
        }
      }
    }
  }
}

TEST_CASE("pair set: inserts, erases and lookups agree with a sorted reference through growth") {
  // Random operations on keys from a small range, so that probe runs collide, wrap and shift.
  std::mt19937 random(5);
  std::uniform_int_distribution<int> index(0, 200);
  PairSet set;
  std::vector<std::pair<int, int>> reference;
  for (int step = 0; step < 20000; ++step) {
    int a = index(random), b = index(random);
    if (a == b) continue;
    if (a > b) std::swap(a, b);
    const auto at = std::lower_bound(reference.begin(), reference.end(), std::pair{a, b});
    const bool present = at != reference.end() && *at == std::pair{a, b};
    CHECK(set.contains(a, b) == present);
    if (step % 3 == 0) {
      set.erase(a, b);
      if (present) reference.erase(at);
    } else {
      set.insert(a, b);
      if (!present) reference.insert(at, {a, b});
    }
    CHECK(set.size() == reference.size());
  }
  std::vector<std::pair<int, int>> listed;
  set.for_each([&](int a, int b) { listed.emplace_back(a, b); });
  std::sort(listed.begin(), listed.end());
  CHECK(listed == reference);
}

}  // namespace
}  // namespace hybridsim
