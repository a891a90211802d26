// Catalog scenes whose pairs go through the general convex narrowphase (GJK, libccd's MPR and
// the translated refinement) or convex hulls: an ellipsoid dropped on a sphere, a tilted cube
// dropped corner first on a slab, Modia3D's bouncing beams (rounded-end hulls, the first contact
// against an independent torque-free motion). Each falls freely to its first contact, which the
// closed form of free fall times; after it, the bookkeeping and the energy are checked. Then face
// contact at rest: a rounded cube resting flat on a slab (one contact point, the overlap's
// centroid), the corner-spheres box (four Hertz contacts) and that box held by Stribeck stiction on
// an incline.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numbers>
#include <sstream>
#include <string>
#include <utility>

#include "test_support.hpp"

namespace hybridsim {
namespace {

// Steel on steel (models/materials.yaml): c_res = E / (2 (1 - nu^2)) for two equal materials.
constexpr double kSteelContactModulus = 2.0e11 / (2.0 * (1.0 - 0.3 * 0.3));

// The depth at which the elastic law c_res (4/3) sqrt(r_geo) delta^1.5 carries `force` (N); the
// damping term vanishes at rest.
double hertz_rest_depth(double force, double r_geo) {
  return std::pow(force / (kSteelContactModulus * (4.0 / 3.0) * std::sqrt(r_geo)), 2.0 / 3.0);
}

// The state of free body `name` in x: position, orientation, velocity, angular velocity.
struct FreeBodyState {
  Vec3 p_WB, v_WB_W, w_WB_B;
  Quat q_WB;
};
FreeBodyState body_state(const Model& model, const std::string& name, const VectorX& x) {
  const int o = model.bodies[model.find_body(name)].state_offset;
  return {x.segment<3>(o), x.segment<3>(o + 7), x.segment<3>(o + 10),
          Quat(x[o + 3], x[o + 4], x[o + 5], x[o + 6]).normalized()};
}

// Energies at the outputs never rise by more than `slack` (J).
void check_energy_never_rises(const std::vector<double>& energies, double slack) {
  REQUIRE(!energies.empty());
  double lowest = energies.front();
  for (const double energy : energies) {
    CHECK(energy <= lowest + slack);
    lowest = std::min(lowest, energy);
  }
}

TEST_CASE("ellipsoid on a sphere: first contact at sqrt(2 h / g), bounces, energy never rises") {
  // models/scenes/ellipsoid_on_sphere.yaml: the ellipsoid's lowest point 0.3 m above the
  // sphere's top, both on the vertical axis; the sphere is A (fixed body first), the normal up.
  testing::check_drop_and_bounce(load_scene_file("ellipsoid_on_sphere"), 0.3, Vec3::UnitZ());
}

TEST_CASE("box on box: a tilted cube's lowest corner first touches at sqrt(2 h / g), normal up") {
  // models/scenes/box_on_box.yaml: centre 0.35 m high, half edge 0.05 m; the lowest corner sits
  // 0.05 sum_j |R_zj| below the centre, the slab's top at 0.1 m.
  const Model model = load_scene_file("box_on_box");
  const Mat3 R = model.bodies[model.find_body("cube")].q_WB.toRotationMatrix();
  const double reach = 0.05 * R.row(2).cwiseAbs().sum();
  testing::check_drop_and_bounce(model, 0.35 - 0.1 - reach, Vec3::UnitZ());
}

TEST_CASE("convex mesh on box: the gem's lowest vertex first touches at sqrt(2 h / g), normal up") {
  // models/scenes/convex_mesh_on_box.yaml: the hull of meshes/gem.obj, read here from the file's
  // own `v` lines (an icosahedron is symmetric about its centre, so the centroid is the origin),
  // centre 0.4 m high, the slab's top at 0.1 m.
  const Model model = load_scene_file("convex_mesh_on_box");
  std::ifstream mesh(std::string(HYBRIDSIM_MODELS_DIR) + "/scenes/meshes/gem.obj");
  REQUIRE(mesh.good());
  const Mat3 R = model.bodies[model.find_body("gem")].q_WB.toRotationMatrix();
  double reach = 0.0;
  int vertices = 0;
  for (std::string line; std::getline(mesh, line);) {
    std::istringstream fields(line);
    std::string tag;
    Vec3 v;
    if (fields >> tag && tag == "v" && fields >> v.x() >> v.y() >> v.z()) {
      reach = std::max(reach, -(R * v).z());
      ++vertices;
    }
  }
  REQUIRE(vertices == 12);
  // Its mass: an icosahedron of edge e has volume 5 (3 + sqrt 5) e^3 / 12, stretched by 1.25.
  const double e = 0.08;
  const double volume = 1.25 * 5.0 * (3.0 + std::sqrt(5.0)) * e * e * e / 12.0;
  CHECK(model.bodies[model.find_body("gem")].mass ==
        doctest::Approx(2700.0 * volume).epsilon(1e-12));
  testing::check_drop_and_bounce(model, 0.4 - 0.1 - reach, Vec3::UnitZ());
}

TEST_CASE("colliding cylinders: crossed side surfaces first touch at sqrt(2 h / g), normal up") {
  // models/scenes/colliding_cylinders.yaml: the upper cylinder's lowest line 0.2 m above the lower
  // one's highest, the axes crossing on the vertical.
  testing::check_drop_and_bounce(load_scene_file("colliding_cylinders"), 0.2, Vec3::UnitZ());
}

TEST_CASE("cone on frustum: the apex first touches the top face at sqrt(2 h / g), normal up") {
  // models/scenes/cone_on_frustum.yaml: the apex 0.05 m below the cone's frame origin at 0.35 m,
  // the frustum's top face at 0.15 m.
  testing::check_drop_and_bounce(load_scene_file("cone_on_frustum"), 0.15, Vec3::UnitZ());
}

TEST_CASE("box resting flat: a rounded cube dropped flat rests on its face at the Hertz depth") {
  // models/scenes/box_resting_flat.yaml: face 0.02 m above the slab; two flat boxes combine
  // r_geo = 0.05 * 0.05 / 0.1. The contact point is the centroid of the overlap, so the cube
  // neither chatters between edges nor tips: it stays flat.
  const Model model = load_scene_file("box_resting_flat");
  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto records = run->recorder.contact_records();
  REQUIRE(!records.empty());
  // 1e-7: rtol 1e-8 on the 0.17 m height leaves ~2e-9 m at the crossing, 4e-9 s at 0.6 m/s.
  CHECK(records.front().t == doctest::Approx(std::sqrt(2.0 * 0.02 / 9.81)).epsilon(1e-7));
  CHECK(records.back().kind == EventRecord::Kind::contact_start);  // in contact at the end

  const FreeBodyState rest = body_state(model, "cube", run->final_state);
  const double mass = 7850.0 * 0.1 * 0.1 * 0.1;
  // Depth to 1e-3: the height 0.15 m is integrated to rtol 1e-8, 1.5e-9 m = 7e-4 of 2.2 um.
  const double depth = hertz_rest_depth(mass * 9.81, 0.025);
  CHECK((0.15 - rest.p_WB.z()) == testing::relative(depth, 1e-3));
  CHECK(rest.v_WB_W.norm() < 1e-8);
  // Flat: the tilt angle, 2 |(qx, qy)|, far below a rocking cube's (it would chatter at 1e-5).
  CHECK(2.0 * std::hypot(rest.q_WB.x(), rest.q_WB.y()) < 1e-9);
  // Energy: during an impact the energy read from the states moves by the contact force times
  // the position error, about rtol of the 0.15 m height. The first impact's peak force, from
  // Hertz (undamped): delta_max = (5 m v^2 / (4 K))^(2/5), F = K delta_max^1.5, v = sqrt(2 g h),
  // about 31 kN, so 31 kN x 1.5e-9 m = 4.7e-5 J (measured rises up to 6.9e-7 J, depending on the
  // step sequence). A law that fed energy in would show at the scale of the impact's kinetic
  // energy, 1.5 J.
  const double stiffness = kSteelContactModulus * (4.0 / 3.0) * std::sqrt(0.025);
  const double impact_speed_squared = 2.0 * 9.81 * 0.02;
  const double peak_depth =
      std::pow(5.0 * mass * impact_speed_squared / (4.0 * stiffness), 2.0 / 5.0);
  const double peak_force = stiffness * std::pow(peak_depth, 1.5);
  check_energy_never_rises(run->recorder.output_energies,
                           peak_force * model.simulation.rtol * 0.15);
}

TEST_CASE("box resting flat with a manifold: the cube rests on four corners at a quarter load") {
  // The same scene with contact.points manifold: each corner of the cores carries m g / 4, so the
  // depth is that of a quarter load, 4^(-2/3) of the one point's (0.88 um against 2.2 um).
  const Model model = load_scene_file("box_resting_flat", {"contact.points=manifold"});
  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const FreeBodyState rest = body_state(model, "cube", run->final_state);
  const double mass = 7850.0 * 0.1 * 0.1 * 0.1;
  // 1e-3 as above: the height's integration error, 1.5e-9 m of 0.88 um is 1.7e-3 at worst;
  // measured 1e-5.
  CHECK((0.15 - rest.p_WB.z()) ==
        testing::relative(hertz_rest_depth(mass * 9.81 / 4.0, 0.025), 2e-3));
  CHECK(rest.v_WB_W.norm() < 1e-8);
  CHECK(2.0 * std::hypot(rest.q_WB.x(), rest.q_WB.y()) < 1e-9);
  const auto results = run->system->compute_contact_results(run->final_state);
  REQUIRE(results.size() == 4);
  for (const ContactResult& r : results) {
    CHECK(r.normal_force == testing::relative(mass * 9.81 / 4.0, 1e-6));
  }
}

TEST_CASE("corner-spheres box: rests level on its four lower spheres, each at the Hertz depth") {
  // models/scenes/corner_spheres_box.yaml: 1 kg, lowest points 0.01 m above the floor; sphere on
  // a half-space: r_geo = r = 2 mm, each carrying m g / 4 at rest.
  const Model model = load_scene_file("corner_spheres_box");
  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto records = run->recorder.contact_records();
  REQUIRE(records.size() >= 4);
  for (int i = 0; i < 4; ++i) {  // the four lower spheres touch together
    CHECK(records[i].kind == EventRecord::Kind::contact_start);
    // 1e-7 as for the cube above (rtol 1e-8 on the height).
    CHECK(records[i].t == doctest::Approx(std::sqrt(2.0 * 0.01 / 9.81)).epsilon(1e-7));
  }
  int open_contacts = 0;
  for (const EventRecord& record : records) {
    open_contacts += record.kind == EventRecord::Kind::contact_start ? 1 : -1;
  }
  CHECK(open_contacts == 4);

  const FreeBodyState rest = body_state(model, "block", run->final_state);
  const double depth = hertz_rest_depth(9.81 / 4.0, 0.002);
  // 1e-3: rtol 1e-8 on 0.052 m is 5e-10 m, 1e-3 of the 0.52 um depth.
  CHECK((0.052 - rest.p_WB.z()) == doctest::Approx(depth).epsilon(1e-3));
  CHECK(2.0 * std::hypot(rest.q_WB.x(), rest.q_WB.y()) < 1e-9);
  CHECK(rest.v_WB_W.norm() < 1e-8);
  check_energy_never_rises(run->recorder.output_energies, 1e-8);
}

TEST_CASE(
    "box in stiction: Stribeck friction holds the box on a 20 degree incline, creeping at "
    "s* v_s") {
  // models/scenes/box_in_stiction.yaml: gravity tilted 20 degrees about y, so the box would slide
  // along +x. At steady creep mu_s S(s*) = tan(20 deg), S(x) = x^3 (10 - 15 x + 6 x^2), solved
  // here by bisection (S rises on [0, 1]).
  const Model model = load_scene_file("box_in_stiction");
  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const double mu_s = 0.6, v_s = 1e-4, tangent = std::tan(20.0 * std::numbers::pi / 180.0);
  const auto S = [](double x) { return x * x * x * (10.0 - 15.0 * x + 6.0 * x * x); };
  double low = 0.0, high = 1.0;
  for (int k = 0; k < 60; ++k)
    (mu_s * S(0.5 * (low + high)) < tangent ? low : high) = 0.5 * (low + high);
  const double creep = 0.5 * (low + high) * v_s;

  // Steady by 0.1 s (the transient decays in a few ms); 1e-3 relative: the speed is integrated to
  // rtol 1e-8 and the incline's normal load splits over four contacts but their slip is equal.
  const auto& times = run->recorder.output_times;
  int checked = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (times[i] < 0.1) continue;
    const FreeBodyState state = body_state(model, "block", run->recorder.output_states[i]);
    CHECK(state.v_WB_W.x() == doctest::Approx(creep).epsilon(1e-3));
    CHECK(std::abs(state.v_WB_W.z()) < 1e-9);
    CHECK(state.w_WB_B.norm() < 1e-8);  // held, not tipping
    ++checked;
  }
  CHECK(checked > 50);
  CHECK(creep < v_s);
  // Four contacts start and none ends: it never lifts.
  CHECK(run->recorder.contact_records().size() == 4);
}

TEST_CASE("friction demo incline: at 45 degrees mu 0.98 slides, 1.02 holds, 1.0 keeps its speed") {
  // models/scenes/friction_demo_incline.yaml: Stribeck with mu_s = mu_d = mu, v_s = 1e-4 m/s;
  // gravity tilted 45 degrees, so the plates would slide along +x. From 0.1 s on (the settling
  // transient takes a few ms): mu 0.98 accelerates at g (sin 45 - 0.98 cos 45); mu 1.02 creeps at
  // s* v_s with 1.02 S(s*) = 1; mu 1 has no net force at any slip from v_s to 3 v_s. 1e-3: rtol
  // 1e-8 on speeds and the four contacts' equal slip (the plate does not turn).
  const Model model = load_scene_file("friction_demo_incline");
  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_ends == 0);
  const double v_s = 1e-4, half_sqrt2 = std::sqrt(0.5);
  const auto S = [](double x) { return x * x * x * (10.0 - 15.0 * x + 6.0 * x * x); };
  double low = 0.0, high = 1.0;
  for (int k = 0; k < 60; ++k) {
    (1.02 * S(0.5 * (low + high)) < 1.0 ? low : high) = 0.5 * (low + high);
  }
  const double creep = 0.5 * (low + high) * v_s;

  const auto& times = run->recorder.output_times;
  const auto speed = [&](const char* body, std::size_t i) {
    return body_state(model, body, run->recorder.output_states[i]).v_WB_W.x();
  };
  std::size_t first = 0;
  while (times[first] < 0.1) ++first;
  const std::size_t last = times.size() - 1;
  const double acceleration =
      (speed("mu_098", last) - speed("mu_098", first)) / (times[last] - times[first]);
  CHECK(acceleration == doctest::Approx(9.81 * half_sqrt2 * (1.0 - 0.98)).epsilon(1e-3));
  for (std::size_t i = first; i <= last; ++i) {
    CHECK(speed("mu_102", i) == doctest::Approx(creep).epsilon(1e-3));
    CHECK(std::abs(speed("mu_100", i) - speed("mu_100", first)) < 1e-9);
  }
  CHECK(speed("mu_100", first) >= v_s);
  CHECK(speed("mu_100", first) <= 3.0 * v_s);
  CHECK(creep < v_s);
}

TEST_CASE("degenerate fdir1: along the contact normal it falls back to world x, no NaN, mu g") {
  // models/scenes/fdir1_degenerate.yaml: pyramid friction mu = 0.3, fdir1 along the normal; the
  // fallback first direction is world x, the slip's own direction, so the box slides straight and
  // decelerates at mu g. 1e-3 m/s: rtol 1e-8 and the regularisation (exact above v_small = 0.01).
  const Model model = load_scene_file("fdir1_degenerate");
  auto run = testing::run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  int checked = 0;
  for (std::size_t i = 0; i < run->recorder.output_times.size(); ++i) {
    const double t = run->recorder.output_times[i];
    const FreeBodyState state = body_state(model, "block", run->recorder.output_states[i]);
    REQUIRE(state.v_WB_W.allFinite());
    REQUIRE(state.w_WB_B.allFinite());
    CHECK(state.v_WB_W.x() == doctest::Approx(1.0 - 0.3 * 9.81 * t).epsilon(1e-3));
    CHECK(std::abs(state.v_WB_W.y()) < 1e-9);
    CHECK(std::abs(state.w_WB_B.z()) < 1e-9);
    ++checked;
  }
  CHECK(checked > 50);
}

// The torque-free motion of a free body from state x (offset o) and its lowest hull corner's
// height after time t: the centre of mass falls freely; the attitude follows Euler's equations,
// integrated here by classical RK4 in the body frame (1e-5 s steps: error ~h^4, far below 1e-9).
double lowest_corner_height(const Model& model, int body_index, const VectorX& x, double t) {
  const Body& body = model.bodies[body_index];
  const int o = body.state_offset;
  Quat q = Quat(x[o + 3], x[o + 4], x[o + 5], x[o + 6]).normalized();
  Vec3 w_B = x.segment<3>(o + 10);
  const Vec3 r0_W = q * body.p_BCom_B;
  const Vec3 p_Com0 = x.segment<3>(o) + r0_W;
  const Vec3 v_Com0 = Vec3(x.segment<3>(o + 7)) + (q * w_B).cross(r0_W);
  const Mat3& I = body.inertia_com_B;
  const Mat3 I_inv = I.inverse();
  const auto w_dot = [&](const Vec3& w) -> Vec3 { return I_inv * (-w.cross(I * w)); };
  const auto q_dot = [](const Quat& qq, const Vec3& w) {
    const Quat d = qq * Quat(0.0, w.x(), w.y(), w.z());
    return Eigen::Vector4d(0.5 * d.w(), 0.5 * d.x(), 0.5 * d.y(), 0.5 * d.z());
  };
  const auto add = [](const Quat& qq, const Eigen::Vector4d& d, double h) {
    return Quat(qq.w() + h * d[0], qq.x() + h * d[1], qq.y() + h * d[2], qq.z() + h * d[3]);
  };
  const int steps = std::max(1, static_cast<int>(std::ceil(t / 1e-5)));
  const double h = t / steps;
  for (int i = 0; i < steps; ++i) {
    const Vec3 k1w = w_dot(w_B);
    const Eigen::Vector4d k1q = q_dot(q, w_B);
    const Vec3 w2 = w_B + 0.5 * h * k1w;
    const Quat q2 = add(q, k1q, 0.5 * h);
    const Vec3 k2w = w_dot(w2);
    const Eigen::Vector4d k2q = q_dot(q2, w2);
    const Vec3 w3 = w_B + 0.5 * h * k2w;
    const Quat q3 = add(q, k2q, 0.5 * h);
    const Vec3 k3w = w_dot(w3);
    const Eigen::Vector4d k3q = q_dot(q3, w3);
    const Vec3 w4 = w_B + h * k3w;
    const Quat q4 = add(q, k3q, h);
    const Vec3 k4w = w_dot(w4);
    const Eigen::Vector4d k4q = q_dot(q4, w4);
    w_B += h / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w);
    q = add(q, k1q + 2.0 * k2q + 2.0 * k3q + k4q, h / 6.0).normalized();
  }
  const Vec3 p_Com = p_Com0 + v_Com0 * t + 0.5 * model.gravity_W * t * t;
  double lowest = std::numeric_limits<double>::infinity();
  for (int shape : body.shapes) {
    const Shape& s = model.shapes[shape];
    for (const Vec3& v_S : s.hull->vertices_S) {
      const Vec3 p_B = s.X_BS.rotation * v_S + s.X_BS.translation;
      lowest = std::min(lowest, (p_Com + q * (p_B - body.p_BCom_B)).z());
    }
  }
  return lowest;
}

TEST_CASE(
    "bouncing beams: first contact when the lowest corner lands, the three beams move alike") {
  auto run = testing::run_scene(load_scene_file("bouncing_beams"));
  REQUIRE(run->result.status == SimulationStatus::ok);
  const Model& model = run->model;
  const std::vector<EventRecord> records = run->recorder.contact_records();
  REQUIRE(!records.empty());
  const VectorX& x0 = run->recorder.output_states.front();
  for (const char* name : {"beamX", "beamY", "beamZ"}) {
    CAPTURE(std::string(name));
    const int b = model.find_body(name);
    // The first instant the lowest corner reaches the floor, by bisection on the independent
    // free motion (bracketed by a 1 ms scan).
    double lo = 0.0, hi = 0.0;
    while (lowest_corner_height(model, b, x0, hi) > 0.0) {
      lo = hi;
      hi += 1e-3;
      REQUIRE(hi < 1.0);
    }
    for (int i = 0; i < 30; ++i) {
      const double mid = 0.5 * (lo + hi);
      (lowest_corner_height(model, b, x0, mid) > 0.0 ? lo : hi) = mid;
    }
    const std::string shape = std::string(name) + "/beam";
    const auto first = std::find_if(records.begin(), records.end(), [&](const EventRecord& r) {
      return r.pair_b == shape && r.kind == EventRecord::Kind::contact_start;
    });
    REQUIRE(first != records.end());
    // The event lands where the crossing function (the hull-plane distance, exact) crosses 3 eps,
    // to the root finder's tolerance; the reference's RK4 and bisection are good to 1e-10 s.
    CHECK(first->t == doctest::Approx(0.5 * (lo + hi)).epsilon(1e-6));
  }
  // Modia3D's three axis conventions give one world motion: beamY and beamZ stay 1 and 2 m from
  // beamX along x with its angular velocity, through every impact of the 1.2 s. Measured 1.4e-12 m
  // and 1.7e-8 rad/s at |w| = 1.25 rad/s (1.1e-7 rad/s with the hulls' contact_eps at ten times
  // the general path's accuracy): only rounding tells them apart, which the stiff impacts amplify
  // in the velocities to the order of the tolerance (rtol 1e-8, 1.25e-8 rad/s here, times the
  // impacts' amplification); 1e-9 m and 2e-7 rad/s bound it.
  const int ox = model.bodies[model.find_body("beamX")].state_offset;
  for (const VectorX& x : run->recorder.output_states) {
    const Quat qx = Quat(x[ox + 3], x[ox + 4], x[ox + 5], x[ox + 6]).normalized();
    const Vec3 w_x = qx * Vec3(x.segment<3>(ox + 10));
    for (const auto& [name, offset] : {std::pair{"beamY", 1.0}, std::pair{"beamZ", 2.0}}) {
      const int o = model.bodies[model.find_body(name)].state_offset;
      const Quat q = Quat(x[o + 3], x[o + 4], x[o + 5], x[o + 6]).normalized();
      CHECK((x.segment<3>(o) - x.segment<3>(ox) - Vec3(offset, 0.0, 0.0)).norm() < 1e-9);
      CHECK((q * Vec3(x.segment<3>(o + 10)) - w_x).norm() < 2e-7);
    }
  }
  CHECK(run->result.contact_starts >= 9);  // each beam lands at least three times
  // Energy never rises by more than 1e-7 of the initial 2610 J: the integration error at rtol
  // 1e-8 (the largest rise measured is 4.7e-5 J).
  check_energy_never_rises(run->recorder.output_energies,
                           1e-7 * run->recorder.output_energies.front());
}

}  // namespace
}  // namespace hybridsim
