// hybridsim_bench_laws: the cost of one contact-law evaluation against one narrowphase query
// for the same contact (issue 4: the law must cost less than the narrowphase). Each figure is
// the median over 15 rounds of 2 million evaluations (20,000 for the general convex pairs),
// with inputs that change every call.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <vector>

#include "collision/convex_hull.hpp"
#include "collision/signed_distance.hpp"
#include "core/contact_law.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kCalls = 2000000;
constexpr int kConvexCalls = 20000;
volatile double sink = 0.0;

template <typename Body>
double median_ns(Body&& body, int calls = kCalls) {
  std::vector<double> rounds;
  for (int round = 0; round < 16; ++round) {
    const auto start = Clock::now();
    double accumulated = 0.0;
    for (int i = 0; i < calls; ++i) accumulated += body(i);
    sink = accumulated;
    if (round == 0) continue;  // warm-up
    rounds.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                     calls);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

hybridsim::ContactLawParameters law_with(hybridsim::FrictionModel friction, bool cone) {
  hybridsim::ContactLawParameters law;
  law.c_res = 1.1e11;
  law.r_geo = 0.1;
  law.c_geo = 4.0 / 3.0 * std::sqrt(0.1);
  law.stiffness = law.c_res * law.c_geo;
  law.friction.model = friction;
  law.friction.mu_kinetic = 0.5;
  law.friction.mu_static = 0.6;
  law.friction.slip_compliance = Eigen::Vector2d(0.01, 0.01);
  law.friction.cone = cone;
  law.rolling_resistance = 0.001;
  law.torsional_friction = 0.001;
  return law;
}

// A convex hull of 12 vertices: a regular icosahedron (vertices (0, +-a, +-a phi) and their
// cyclic permutations, a = 0.04 m), the catalog's gem mesh before its stretch.
hybridsim::Shape make_gem() {
  using namespace hybridsim;
  std::vector<Vec3> icosahedron;
  const double phi = 0.5 * (1.0 + std::sqrt(5.0));
  for (const double a : {-0.04, 0.04}) {
    for (const double b : {-0.04 * phi, 0.04 * phi}) {
      icosahedron.insert(icosahedron.end(), {Vec3(0, a, b), Vec3(a, b, 0), Vec3(b, 0, a)});
    }
  }
  Shape gem;
  gem.type = ShapeType::convex;
  gem.hull = std::make_shared<const ConvexHull>(build_convex_hull(icosahedron).hull);
  return gem;
}

// A convex hull of 200 corners: points spread evenly on a sphere of radius 0.05 m (a golden-angle
// spiral), the size of a decimated scanned mesh.
hybridsim::Shape make_round_hull() {
  using namespace hybridsim;
  std::vector<Vec3> points;
  const int count = 200;
  const double golden_angle = std::numbers::pi * (3.0 - std::sqrt(5.0));
  for (int i = 0; i < count; ++i) {
    const double z = 1.0 - (2.0 * i + 1.0) / count, rho = std::sqrt(1.0 - z * z);
    points.emplace_back(0.05 * rho * std::cos(golden_angle * i),
                        0.05 * rho * std::sin(golden_angle * i), 0.05 * z);
  }
  Shape hull;
  hull.type = ShapeType::convex;
  hull.hull = std::make_shared<const ConvexHull>(build_convex_hull(points).hull);
  return hull;
}

// The general convex narrowphase (GJK, MPR, refinement) on pairs without a closed form, in
// three states: apart by more than the smaller shape (GJK alone), 1e-4 m apart and 1e-3 m into
// each other (both refined). B sits on a tilted line from A's centre at the touching offset
// (bisection) plus the state's offset, moved by 1e-9 m every call.
void print_general_convex_costs() {
  using namespace hybridsim;
  Shape box, capsule, cylinder, ellipsoid, sphere;
  box.type = ShapeType::box;
  box.half_extents = Vec3(0.1, 0.08, 0.05);
  capsule.type = ShapeType::capsule;
  capsule.radius = 0.05;
  capsule.length = 0.2;
  cylinder.type = ShapeType::cylinder;
  cylinder.radius = 0.1;
  cylinder.length = 0.3;
  ellipsoid.type = ShapeType::ellipsoid;
  ellipsoid.radii = Vec3(0.1, 0.06, 0.04);
  sphere.type = ShapeType::sphere;
  sphere.radius = 0.05;
  // Convex hulls: of the box's corners (the same solid as `box`), and the gem.
  Shape box_hull;
  box_hull.type = ShapeType::convex;
  std::vector<Vec3> corners;
  for (int i = 0; i < 8; ++i) {
    corners.emplace_back((i & 1) ? 0.1 : -0.1, (i & 2) ? 0.08 : -0.08, (i & 4) ? 0.05 : -0.05);
  }
  box_hull.hull = std::make_shared<const ConvexHull>(build_convex_hull(corners).hull);
  const Shape gem = make_gem();
  const Shape round_hull = make_round_hull();
  struct Pair {
    const char* name;
    const Shape *a, *b;
    int calls = kConvexCalls;  // per round
  };
  const Mat3 R_WB = Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 0).normalized())).toRotationMatrix();
  const Vec3 line = Vec3(0.2, 0.3, 1.0).normalized();
  const Pose X_WA;
  std::printf("\n%-44s %10s %10s %10s\n", "general convex pair, per call (us)", "apart", "1e-4 m",
              "-1e-3 m");
  for (const Pair& p :
       {Pair{"box-box", &box, &box}, Pair{"box-capsule", &box, &capsule},
        Pair{"cylinder-sphere", &cylinder, &sphere}, Pair{"cylinder-box", &cylinder, &box},
        Pair{"ellipsoid-sphere", &ellipsoid, &sphere},
        Pair{"ellipsoid-ellipsoid", &ellipsoid, &ellipsoid}, Pair{"hull(box)-box", &box_hull, &box},
        Pair{"hull(gem)-box", &gem, &box}, Pair{"hull(gem)-sphere", &gem, &sphere},
        Pair{"hull(gem)-hull(gem)", &gem, &gem},
        Pair{"hull(200 corners)-hull(200 corners)", &round_hull, &round_hull, 200}}) {
    double low = 0.0, high = 2.0;
    for (int k = 0; k < 64; ++k) {
      const double mid = 0.5 * (low + high);
      const Pose X_WB{R_WB, mid * line};
      (compute_signed_distance(*p.a, X_WA, *p.b, X_WB).distance < 0.0 ? low : high) = mid;
    }
    std::printf("%-44s", p.name);
    for (const double offset : {0.2, 1e-4, -1e-3}) {
      const double us =
          1e-3 * median_ns(
                     [&](int i) {
                       const Pose X_WB{R_WB, (low + offset + 1e-9 * i) * line};
                       const SignedDistance d = compute_signed_distance(*p.a, X_WA, *p.b, X_WB);
                       return d.distance + d.n_AB_W.sum() + d.p_A_W.sum() + d.p_B_W.sum();
                     },
                     p.calls);
      std::printf(" %10.2f", us);
    }
    std::printf("\n");
  }
}

}  // namespace

int main() {
  using namespace hybridsim;
  Shape sphere, box, half;
  sphere.type = ShapeType::sphere;
  sphere.radius = 0.1;
  box.type = ShapeType::box;
  box.half_extents = Vec3(0.1, 0.08, 0.05);
  half.type = ShapeType::halfspace;
  Shape capsule;
  capsule.type = ShapeType::capsule;
  capsule.radius = 0.1;
  capsule.length = 0.3;
  // The gem against the half-space: the exact vertex pair.
  const Shape gem = make_gem();
  Pose ground;
  const Quat tilt(Eigen::AngleAxisd(0.1, Vec3(1, 1, 0).normalized()));

  std::printf("%-44s %10s\n", "per call (median of 15 x 2e6 calls)", "ns");
  struct Query {
    const char* name;
    const Shape *a, *b;
  };
  // Inputs are precomputed (1024 poses and contact states, cycled) so that both loops measure the
  // evaluation alone.
  std::vector<Pose> poses(1024);
  std::vector<ContactKinematics> contacts(1024);
  for (int i = 0; i < 1024; ++i) {
    poses[i] = Pose{tilt.toRotationMatrix(), Vec3(1e-6 * i, 0.0, 0.0999 + 1e-9 * i)};
    contacts[i].penetration = 1e-6 + 1e-9 * i;
    contacts[i].penetration_rate = 0.1 - 1e-4 * i;
    contacts[i].v_slip_W = Vec3(0.3 + 1e-4 * i, 0.1, 0.0);
    contacts[i].w_rel_W = Vec3(1.0, 2.0 - 1e-3 * i, 0.5);
  }
  for (const Query& q : {Query{"narrowphase sphere-halfspace", &half, &sphere},
                         Query{"narrowphase sphere-sphere", &sphere, &sphere},
                         Query{"narrowphase box-halfspace", &half, &box},
                         Query{"narrowphase box-sphere", &box, &sphere},
                         Query{"narrowphase capsule-halfspace", &half, &capsule},
                         Query{"narrowphase capsule-sphere", &capsule, &sphere},
                         Query{"narrowphase capsule-capsule", &capsule, &capsule},
                         Query{"narrowphase hull(gem, 12 vertices)-halfspace", &half, &gem}}) {
    const double ns = median_ns([&](int i) {
      // Every output is used, so that none of the work can be optimised away.
      const SignedDistance d = compute_signed_distance(*q.a, ground, *q.b, poses[i & 1023]);
      return d.distance + d.n_AB_W.sum() + d.p_A_W.sum() + d.p_B_W.sum();
    });
    std::printf("%-44s %10.1f\n", q.name, ns);
  }
  struct Law {
    const char* name;
    FrictionModel friction;
    bool cone;
    bool torques = true;  // rolling resistance and torsional friction
  };
  for (const Law& l :
       {Law{"law elastic + regularized Coulomb (cone)", FrictionModel::regularized_coulomb, true},
        Law{"  the same without the two torques", FrictionModel::regularized_coulomb, true, false},
        Law{"law elastic + Stribeck (pyramid)", FrictionModel::stribeck, false},
        Law{"law elastic + slip compliance (cone)", FrictionModel::slip_compliance, true}}) {
    ContactLawParameters law = law_with(l.friction, l.cone);
    if (!l.torques) law.rolling_resistance = law.torsional_friction = 0.0;
    const double ns = median_ns([&](int i) {
      const ContactForce f = compute_contact_force(law, 0.2, contacts[i & 1023]);
      return f.f_B_W.sum() + f.tau_B_W.sum() + f.normal_force + f.friction_W.sum();
    });
    std::printf("%-44s %10.1f\n", l.name, ns);
  }
  // The least arithmetic any law with a Hertz normal force and Coulomb friction needs: delta^1.5
  // (one square root), the slip speed (a second) and mu f_n / |v| (one division), with the same
  // inputs and its force outputs summed as the laws' are (no torque), without choices, clamps or
  // regularisation.
  const double floor_ns = median_ns([&](int i) {
    const ContactKinematics& k = contacts[i & 1023];
    const double delta = k.penetration;
    const double f_n = 1.1e11 * delta * std::sqrt(delta) * (1.0 + 0.2 * k.penetration_rate);
    const Vec3 f_t = (-0.5 * f_n / k.v_slip_W.norm()) * k.v_slip_W;
    return (f_n * k.n_AB_W + f_t).sum() + f_n + f_t.sum();
  });
  std::printf("%-44s %10.1f\n", "floor: Hertz + Coulomb arithmetic alone", floor_ns);
  print_general_convex_costs();
  return 0;
}
