// SphereSlip against ODE: the catalog scene sphere_slip (Gazebo's SphereSlip test, 24 models
// sliding down a slope under slip compliance) run by hybridsim and by an ODE 0.16 program of the
// same bodies, side by side in one process, with the steady-slip error of both against the closed
// form (BENCHMARKS.md, "SphereSlip against ODE").
//
//   build/tools/bench/hybridsim_bench_sphere_slip_ode [rounds]
//
// The ODE world is built from the loaded scene, so both run the same masses, inertias, centres
// of mass and sphere and box layouts. It is set up as Gazebo sets up ODE for this world: 1 ms
// steps, the friction pyramid (dContactApprox1) with mu = 0.5, slip compliance as ODE's
// force-dependent slip (dContactSlip1/2, slip velocity = slip x force) multiplied by the pair's
// contact count (Gazebo's normalisation, the scene's scale_by_contact_count), a contact surface
// layer of 1 mm and the normal constraint from Gazebo's default kp = 1e12, kd = 1.
//
// Error: each model's velocity down the slope at 6 s against the first-order closed form
// v_inf (1 - exp(-t / tau)), v_inf = m g_t c / n, tau = m c / n (tests/physics/
// catalog_scenes_test.cpp), relative to v_inf, the largest over the 18 two-, three-sphere and box
// models. The six one-sphere weebles rock about their low centre of mass in both simulators and
// have no closed form at an instant; their mean velocity is checked by the test.
#include <ode/ode.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_timing.hpp"
#include "hybridsim/simulator.hpp"
#include "models/scene_loader.hpp"

namespace {

using hybridsim::Model;
using hybridsim::ShapeType;
using hybridsim::Vec3;
using hybridsim::bench::median;
using hybridsim::bench::seconds_since;

constexpr double kStopTime = 6.0;      // s, the scene's stop time
constexpr double kSlopeGravity = 2.0;  // m/s^2, the scene's gravity along +y

// One model of the scene: its body, its closed form and its slip compliance per contact.
struct SlipModel {
  std::string name;
  int body = -1;
  double v_inf = 0.0;       // m/s
  double tau = 0.0;         // s
  double compliance = 0.0;  // s/kg, c of the pair (before the count scaling)
  bool weeble = false;
};

// The 24 models with their closed forms: mass and compliance from the scene, the contact count n
// from the family (a sphere per contact; the box, normalised, counts as one).
std::vector<SlipModel> slip_models(const Model& model) {
  std::vector<SlipModel> models;
  for (int b = 0; b < static_cast<int>(model.bodies.size()); ++b) {
    const hybridsim::Body& body = model.bodies[static_cast<std::size_t>(b)];
    if (body.fixed) continue;
    const hybridsim::Shape& shape = model.shapes[static_cast<std::size_t>(body.shapes[0])];
    // The scene's two ground pairs: SlipSoft 0.2 s/kg, SlipStiff 0.1 s/kg.
    const std::string& material = model.materials[static_cast<std::size_t>(shape.material)].name;
    SlipModel m;
    m.name = body.name;
    m.body = b;
    m.compliance = material == "SlipSoft" ? 0.2 : 0.1;
    const bool box = shape.type == ShapeType::box;
    const double n = box ? 1.0 : static_cast<double>(body.shapes.size());
    m.v_inf = body.mass * kSlopeGravity * m.compliance / n;
    m.tau = body.mass * m.compliance / n;
    m.weeble = body.name.rfind("lowball", 0) == 0;
    models.push_back(m);
  }
  return models;
}

// The largest relative error of the closed form at kStopTime over the non-weeble models, given
// each model's velocity down the slope there, and the model that has it.
struct SlipError {
  double relative = 0.0;
  std::string model;
};
SlipError steady_slip_error(const std::vector<SlipModel>& models, const std::vector<double>& v_y) {
  SlipError worst;
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (models[i].weeble) continue;
    const double expected = models[i].v_inf * (1.0 - std::exp(-kStopTime / models[i].tau));
    const double relative = std::abs(v_y[i] - expected) / models[i].v_inf;
    if (relative >= worst.relative) worst = {relative, models[i].name};
  }
  return worst;
}

struct RunResult {
  double wall = 0.0;  // s
  SlipError error;
  long steps = 0;
};

RunResult run_hybridsim(const Model& model, const std::vector<SlipModel>& models) {
  const auto start = std::chrono::steady_clock::now();
  hybridsim::Simulator simulator(model);
  simulator.advance_to(kStopTime);
  RunResult result;
  result.wall = seconds_since(start);
  result.steps = simulator.statistics().stats.steps;
  std::vector<double> v_y;
  for (const SlipModel& m : models) v_y.push_back(simulator.body_state(m.name).com_velocity_W.y());
  result.error = steady_slip_error(models, v_y);
  return result;
}

// The ODE world of the scene's moving bodies on the ground plane z = 0.
struct OdeWorld {
  dWorldID world = nullptr;
  dGeomID ground = nullptr;
  dJointGroupID contacts = nullptr;
  std::vector<dBodyID> bodies;              // per SlipModel
  std::vector<std::vector<dGeomID>> geoms;  // per SlipModel
  std::vector<double> slip;                 // per SlipModel, s/kg

  double h;  // s, the step

  OdeWorld(const Model& model, const std::vector<SlipModel>& models, double step) : h(step) {
    world = dWorldCreate();
    dWorldSetGravity(world, model.gravity_W.x(), model.gravity_W.y(), model.gravity_W.z());
    // Gazebo's defaults for ODE: ERP 0.2, CFM 0, contact layer 1 mm, correcting velocity 100 m/s.
    dWorldSetERP(world, 0.2);
    dWorldSetCFM(world, 0.0);
    dWorldSetContactSurfaceLayer(world, 0.001);
    dWorldSetContactMaxCorrectingVel(world, 100.0);
    ground = dCreatePlane(nullptr, 0.0, 0.0, 1.0, 0.0);
    contacts = dJointGroupCreate(0);
    for (const SlipModel& m : models) {
      const hybridsim::Body& body = model.bodies[static_cast<std::size_t>(m.body)];
      // ODE's body origin is its centre of mass; the geoms sit at their offsets from it.
      const dBodyID b = dBodyCreate(world);
      const Vec3 com_W = body.p_WB + body.q_WB * body.p_BCom_B;
      dBodySetPosition(b, com_W.x(), com_W.y(), com_W.z());
      dMass mass;
      const hybridsim::Mat3& I = body.inertia_com_B;
      dMassSetParameters(&mass, body.mass, 0.0, 0.0, 0.0, I(0, 0), I(1, 1), I(2, 2), I(0, 1),
                         I(0, 2), I(1, 2));
      dBodySetMass(b, &mass);
      std::vector<dGeomID> body_geoms;
      for (const int s : body.shapes) {
        const hybridsim::Shape& shape = model.shapes[static_cast<std::size_t>(s)];
        const dGeomID g =
            shape.type == ShapeType::box
                ? dCreateBox(nullptr, 2.0 * shape.half_extents.x(), 2.0 * shape.half_extents.y(),
                             2.0 * shape.half_extents.z())
                : dCreateSphere(nullptr, shape.radius);
        dGeomSetBody(g, b);
        const Vec3 offset = shape.X_BS.translation - body.p_BCom_B;
        dGeomSetOffsetPosition(g, offset.x(), offset.y(), offset.z());
        body_geoms.push_back(g);
      }
      bodies.push_back(b);
      geoms.push_back(body_geoms);
      slip.push_back(m.compliance);
    }
  }
  ~OdeWorld() {
    for (const auto& body_geoms : geoms) {
      for (const dGeomID g : body_geoms) dGeomDestroy(g);
    }
    dGeomDestroy(ground);
    dJointGroupDestroy(contacts);
    dWorldDestroy(world);
  }
  OdeWorld(const OdeWorld&) = delete;
  OdeWorld& operator=(const OdeWorld&) = delete;

  // Contacts of every geom with the ground (the models touch only the ground, as in the scene).
  void collide() {
    // Gazebo's normal constraint from kp = 1e12 N/m, kd = 1 N s/m at the step h.
    constexpr double kp = 1e12, kd = 1.0;
    std::array<dContactGeom, 8> found{};
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      for (const dGeomID g : geoms[i]) {
        const int count =
            dCollide(g, ground, static_cast<int>(found.size()), found.data(), sizeof(dContactGeom));
        for (int k = 0; k < count; ++k) {
          dContact contact{};
          contact.geom = found[static_cast<std::size_t>(k)];
          contact.surface.mode =
              dContactApprox1 | dContactSlip1 | dContactSlip2 | dContactSoftERP | dContactSoftCFM;
          contact.surface.mu = 0.5;
          contact.surface.slip1 = contact.surface.slip2 = slip[i] * count;
          contact.surface.soft_erp = h * kp / (h * kp + kd);
          contact.surface.soft_cfm = 1.0 / (h * kp + kd);
          const dJointID joint = dJointCreateContact(world, contacts, &contact);
          dJointAttach(joint, bodies[i], nullptr);
        }
      }
    }
  }
};

// ODE over the scene's 6 s at steps of h (s), with its exact (Dantzig) or iterative (QuickStep,
// with `iterations` sweeps) solver.
RunResult run_ode(const Model& model, const std::vector<SlipModel>& models, double h, bool quick,
                  int iterations) {
  const auto start = std::chrono::steady_clock::now();
  OdeWorld ode(model, models, h);
  if (quick) dWorldSetQuickStepNumIterations(ode.world, iterations);
  const long steps = std::lround(kStopTime / h);
  for (long k = 0; k < steps; ++k) {
    ode.collide();
    if (quick) {
      dWorldQuickStep(ode.world, h);
    } else {
      dWorldStep(ode.world, h);
    }
    dJointGroupEmpty(ode.contacts);
  }
  RunResult result;
  result.wall = seconds_since(start);
  result.steps = steps;
  std::vector<double> v_y;
  for (const dBodyID b : ode.bodies) v_y.push_back(dBodyGetLinearVel(b)[1]);
  result.error = steady_slip_error(models, v_y);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  dInitODE2(0);
  const Model scene = hybridsim::load_scene_file("sphere_slip");
  const std::vector<SlipModel> models = slip_models(scene);
  struct Variant {
    std::string name;
    std::function<RunResult()> run;
    std::vector<double> walls = {};
    RunResult last = {};
  };
  std::vector<Variant> variants;
  for (const double rtol : {1e-3, 1e-4, 1e-5, 1e-7}) {
    variants.push_back({fmt::format("hybridsim rtol {:g}", rtol), [&scene, &models, rtol] {
                          Model model = scene;
                          model.simulation.rtol = rtol;
                          model.simulation.atol = rtol / 1000.0;
                          return run_hybridsim(model, models);
                        }});
  }
  const std::size_t reference = variants.size();  // ODE as Gazebo runs it
  for (const double h : {1e-3, 2e-3, 4e-3}) {
    variants.push_back({fmt::format("ODE dWorldStep {:g} ms", h * 1e3),
                        [&scene, &models, h] { return run_ode(scene, models, h, false, 0); }});
  }
  variants.push_back({"ODE QuickStep 50 it 1 ms",
                      [&scene, &models] { return run_ode(scene, models, 1e-3, true, 50); }});
  // Rounds alternate the variants, so that a slow moment of the machine falls on all of them.
  for (int round = 0; round < rounds; ++round) {
    for (Variant& v : variants) {
      v.last = v.run();
      v.walls.push_back(v.last.wall);
    }
  }
  const double ode_wall = median(variants[reference].walls);
  fmt::print("{:<26} {:>6} {:>9} {:>11} {:>14} {:>11}\n", "6 s of sphere_slip", "steps", "wall s",
             "slip error", "at", "wall / ODE");
  for (const Variant& v : variants) {
    fmt::print("{:<26} {:>6} {:>9.4f} {:>11.3g} {:>14} {:>11.4f}\n", v.name, v.last.steps,
               median(v.walls), v.last.error.relative, v.last.error.model,
               median(v.walls) / ode_wall);
  }
  fmt::print("(medians of {} alternating rounds; wall / ODE against dWorldStep at 1 ms)\n", rounds);
  dCloseODE();
  return 0;
}
