// Sweep-and-prune against a brute-force check; the AABB distance as a lower bound.
#include <doctest/doctest.h>

#include <random>
#include <set>

#include <fmt/format.h>

#include "collision/broadphase.hpp"
#include "collision/signed_distance.hpp"

namespace hybridsim {
namespace {

TEST_CASE("broadphase: x-overlapping candidate pairs include every overlapping AABB pair") {
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
    std::set<std::pair<int, int>> visited;
    broadphase.for_each_x_overlapping_pair([&](int a, int b) {
      CHECK(a < b);
      visited.insert({a, b});
    });
    for (int a = 0; a < 60; ++a) {
      for (int b = a + 1; b < 60; ++b) {
        const Aabb box_a = compute_aabb(model.shapes[a], poses[a]);
        const Aabb box_b = compute_aabb(model.shapes[b], poses[b]);
        if (aabbs_overlap(box_a, box_b)) CHECK(visited.contains({a, b}));
        // The AABB distance never exceeds the true distance (box-box has no exact formula yet).
        if (is_supported_shape_pair(model.shapes[a].type, model.shapes[b].type)) {
          const double d =
              compute_signed_distance(model.shapes[a], poses[a], model.shapes[b], poses[b])
                  .distance;
          CHECK(compute_aabb_distance(box_a, box_b) <= std::max(d, 0.0) + 1e-15);
        }
        // Pairs that were not visited are apart by at least the broadphase's lower bound.
        if (!visited.contains({a, b})) {
          CHECK(compute_aabb_distance(box_a, box_b) >= broadphase.separated_pairs_lower_bound());
        }
      }
    }
  }
}

TEST_CASE("broadphase with collision groups and masks visits exactly the pairs brute force keeps") {
  // 10 to 1,000 shapes with random groups and masks over 4 categories, random bodies (some
  // shared, some fixed): every pair the brute-force filter keeps and whose x intervals overlap
  // is visited once, and no other.
  std::mt19937 random(11);
  std::uniform_real_distribution<double> position(-1.0, 1.0), radius(0.01, 0.1);
  std::uniform_int_distribution<int> bits(0, 15);
  for (const int count : {10, 100, 1000}) {
    Model model;
    for (int i = 0; i < count; ++i) {
      if (i % 3 != 2) {  // every third shape shares the previous body
        Body body;
        body.name = fmt::format("b{}", i);
        body.fixed = i % 7 == 0;
        model.bodies.push_back(body);
      }
      Shape shape;
      shape.body = static_cast<int>(model.bodies.size()) - 1;
      shape.type = ShapeType::sphere;
      shape.radius = radius(random);
      shape.collision_group = static_cast<std::uint32_t>(bits(random));
      shape.collision_mask = static_cast<std::uint32_t>(bits(random));
      model.bodies.back().shapes.push_back(i);
      model.shapes.push_back(shape);
    }
    std::vector<Pose> poses(model.shapes.size());
    for (Pose& pose : poses) {
      pose.translation = Vec3(position(random), position(random), position(random));
    }
    Broadphase broadphase(model);
    broadphase.update(poses);
    std::set<std::pair<int, int>> visited;
    broadphase.for_each_x_overlapping_pair([&](int a, int b) {
      CHECK(visited.insert({a, b}).second);
    });
    std::set<std::pair<int, int>> expected;
    for (int a = 0; a < count; ++a) {
      for (int b = a + 1; b < count; ++b) {
        const Shape &sa = model.shapes[a], &sb = model.shapes[b];
        const bool kept = sa.body != sb.body &&
                          !(model.bodies[sa.body].fixed && model.bodies[sb.body].fixed) &&
                          (sa.collision_group & sb.collision_mask) != 0 &&
                          (sb.collision_group & sa.collision_mask) != 0;
        const Aabb box_a = compute_aabb(sa, poses[a]), box_b = compute_aabb(sb, poses[b]);
        const bool x_overlap =
            box_a.min_W.x() <= box_b.max_W.x() && box_b.min_W.x() <= box_a.max_W.x();
        if (kept && x_overlap) expected.insert({a, b});
      }
    }
    CHECK(visited == expected);
    CHECK(!expected.empty());
  }
}

}  // namespace
}  // namespace hybridsim
