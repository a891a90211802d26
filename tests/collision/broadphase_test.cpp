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

}  // namespace
}  // namespace hybridsim
