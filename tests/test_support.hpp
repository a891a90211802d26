// Helpers shared by the tests: scenes from YAML text, runs with recorded outputs and events.
#pragma once

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "approx.hpp"
#include "core/hybrid_system.hpp"
#include "integrators/hybrid_loop.hpp"
#include "integrators/integrator.hpp"
#include "models/multibody_system.hpp"
#include "models/scene_loader.hpp"
#include "wall_time.hpp"

#include <fmt/format.h>

namespace hybridsim::testing {

// Records every output and event of a run.
struct Recorder : SimulationObserver {
  std::vector<double> output_times;
  std::vector<VectorX> output_states;
  std::vector<EventInstant> events;
  std::vector<VectorX> event_states;
  // Energies at the outputs, computed while the run is at them (the elastic energy depends on
  // the contact set of that moment); run_scene sets the system.
  std::vector<double> output_energies;
  MultibodySystem* energy_source = nullptr;

  void on_output(double t, const VectorX& x) override {
    output_times.push_back(t);
    output_states.push_back(x);
    if (energy_source != nullptr) output_energies.push_back(energy_source->compute_energy(x));
  }
  void on_event(const EventInstant& instant, const VectorX& x) override {
    events.push_back(instant);
    event_states.push_back(x);
  }
  std::vector<Warning> warnings;
  void on_warning(const Warning& warning) override { warnings.push_back(warning); }
  // All contact records (starts and ends) in time order.
  std::vector<EventRecord> contact_records() const {
    std::vector<EventRecord> records;
    for (const EventInstant& instant : events) {
      for (const EventRecord& record : instant.outcome.records) {
        if (record.kind == EventRecord::Kind::contact_start ||
            record.kind == EventRecord::Kind::contact_end) {
          records.push_back(record);
        }
      }
    }
    return records;
  }
  // All stick and slip records (stick-slip friction) in time order.
  std::vector<EventRecord> stick_slip_records() const {
    std::vector<EventRecord> records;
    for (const EventInstant& instant : events) {
      for (const EventRecord& record : instant.outcome.records) {
        if (record.kind == EventRecord::Kind::stick || record.kind == EventRecord::Kind::slip) {
          records.push_back(record);
        }
      }
    }
    return records;
  }
};

struct Run {
  Model model;
  std::unique_ptr<MultibodySystem> system;
  Recorder recorder;
  SimulationResult result;
  VectorX final_state;
};

// Whether a model is a catalog scene file as shipped: no overrides.
inline bool is_catalog_scene(const Model& model) {
  return model.source.find("models/scenes/") != std::string::npos && model.overrides.empty();
}

// Runs a scene with its own simulation settings (rtol/atol may be overridden by the overrides).
inline std::unique_ptr<Run> run_scene(const Model& model, const std::string& integrator = "",
                                      double output_interval = -1.0) {
  auto run = std::make_unique<Run>();
  run->model = model;
  run->system = std::make_unique<MultibodySystem>(run->model);
  run->recorder.energy_source = run->system.get();
  SimulationOptions options;
  options.stop_time = model.simulation.stop_time;
  options.stall_window *= kWallTimeScale;  // a Release figure (wall_time.hpp)
  options.output_interval =
      output_interval > 0.0 ? output_interval : model.simulation.output_interval;
  options.integrator.rtol = model.simulation.rtol;
  options.integrator.atol =
      model.simulation.atol.value_or(default_absolute_tolerance(model.simulation.rtol));
  options.integrator.max_step = model.simulation.max_step;
  // The scene's table and linear solver belong to its integrator (as make_simulation_options).
  const bool scene_integrator = integrator.empty() || integrator == model.simulation.integrator;
  if (scene_integrator) {
    options.integrator.table = model.simulation.table;
    options.integrator.linear_solver = model.simulation.linear_solver;
  }
  options.integrator.step_size = model.simulation.step_size;
  options.max_events_per_second = model.contact.max_events_per_second;
  auto integ = make_integrator(integrator.empty() ? model.simulation.integrator : integrator);
  HybridLoop simulator(*run->system, *integ, options);
  run->result = simulator.run(&run->recorder);
  run->final_state = simulator.state();
  // No catalog scene, as shipped and with its own integrator, raises a warning (energy rise,
  // stiff contact, overlap, ...). Another method may (explicit Euler gains energy).
  if (is_catalog_scene(model) && scene_integrator) {
    for (const Warning& warning : run->recorder.warnings) {
      CAPTURE(model.name);
      FAIL_CHECK(warning.kind << ": " << warning.message);
    }
  }
  return run;
}

// Runs a scene started in static balance on `contacts` points: they start at initialisation, no
// event follows, and the points' results at the end are returned.
inline std::vector<ContactResult> run_at_rest(const Model& model, int contacts) {
  const auto run = run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  CHECK(run->result.contact_starts == contacts);
  CHECK(run->result.state_events == 0);
  auto results = run->system->compute_contact_results(run->final_state);
  REQUIRE(results.size() == static_cast<std::size_t>(contacts));
  return results;
}

// A steel sphere (r = 0.1 m) approaching a steel half-space at `speed` without gravity, contact
// after 1 ms of flight; rtol 1e-11, v_small below every tested speed, d_max out of the way.
inline Model single_impact_scene(double speed, double restitution, const std::string& damping,
                                 double stop_time) {
  const std::string text = fmt::format(R"(
gravity: [0, 0, 0]
simulation: {{stop_time: {stop}, rtol: 1.0e-11, atol: 1.0e-15, output_interval: 1.0}}
contact: {{max_damping: 1.0e12}}
materials:
  Steel: {{density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}
contact_materials:
  - {{pair: [Steel, Steel], restitution: {e}, damping_model: {damping}, v_small: 1.0e-6}}
bodies:
  - name: ground
    fixed: true
    shapes: [{{type: halfspace, material: Steel}}]
  - name: ball
    position: [0, 0, {z0}]
    linear_velocity: [0, 0, {vz}]
    shapes: [{{type: sphere, radius: 0.1, material: Steel}}]
)",
                                       fmt::arg("stop", stop_time), fmt::arg("e", restitution),
                                       fmt::arg("damping", damping),
                                       fmt::arg("z0", 0.1 + speed * 1e-3), fmt::arg("vz", -speed));
  return load_scene_text(text, "single_impact");
}

// A steel-like material table and one contact pair, for scenes written in tests.
inline std::string steel_materials(double restitution, const std::string& extra = "") {
  return "materials:\n"
         "  Steel: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}\n"
         "contact_materials:\n"
         "  - pair: [Steel, Steel]\n"
         "    restitution: " +
         std::to_string(restitution) + "\n" + extra;
}

// Runs `model`, whose moving body's lowest point starts `height` m above the point
// it first touches: the first contact starts at sqrt(2 h / g) with v- = g t and normal `normal`.
// The event is located on distance + 3 eps = 0 (eps: the scene's contact_eps, 1e-13 m, or ten
// times the general convex path's accuracy for cylinders, cones, ellipsoids and hulls), so the
// body falls h + 3 eps, to the root finder's tolerance at rtol 1e-10, far inside 1e-9 s; v- is the
// integrated velocity, 1e-7 relative.
inline void check_drop_and_bounce(const Model& model, double height, const Vec3& normal_W) {
  constexpr double g = 9.81;
  auto run = run_scene(model);
  REQUIRE(run->result.status == SimulationStatus::ok);
  const auto records = run->recorder.contact_records();
  REQUIRE(records.size() >= 2);
  const double expected = std::sqrt(2.0 * (height + 3.0 * model.contact.contact_eps) / g);
  CHECK(records[0].kind == EventRecord::Kind::contact_start);
  CHECK(records[0].t == doctest::Approx(expected).epsilon(1e-9));
  CHECK(records[0].pre_impact_velocity == doctest::Approx(g * expected).epsilon(1e-7));
  CHECK((records[0].normal_W - normal_W).norm() < 1e-9);
  // Each start is followed by its end: the body bounces off.
  for (std::size_t i = 0; i + 1 < records.size(); i += 2) {
    CHECK(records[i].kind == EventRecord::Kind::contact_start);
    CHECK(records[i + 1].kind == EventRecord::Kind::contact_end);
  }
  // Energy never rises (1e-6 J: the integration error of the contact phases at rtol 1e-10).
  REQUIRE(!run->recorder.output_energies.empty());
  double lowest = run->recorder.output_energies.front();
  for (const double energy : run->recorder.output_energies) {
    CHECK(energy <= lowest + 1e-6);
    lowest = std::min(lowest, energy);
  }
}

// The height (m) under (x, y) of a heightmap from a P2 gray image over size_x x size_y m centred
// on the origin, levels 0..max mapped to 0..size_z: the two triangles of each cell (diagonal from
// the lower-left to the upper-right corner), read from the file here, independently of the
// loader.
inline std::function<double(double, double)> pgm_terrain(const std::string& path, double size_x,
                                                         double size_y, double size_z) {
  std::ifstream image(path);
  std::string magic, comment;
  std::getline(image, magic);
  std::getline(image, comment);
  int width = 0, height = 0, maximum = 0;
  image >> width >> height >> maximum;
  std::vector<double> level(static_cast<std::size_t>(width * height));
  for (double& value : level) image >> value;
  return [=](double x, double y) {
    const auto z = [&](int column, int row_from_bottom) {
      return size_z / maximum *
             level[static_cast<std::size_t>((height - 1 - row_from_bottom) * width + column)];
    };
    const double u = (x / size_x + 0.5) * (width - 1), v = (y / size_y + 0.5) * (height - 1);
    const int i = std::clamp(static_cast<int>(u), 0, width - 2);
    const int j = std::clamp(static_cast<int>(v), 0, height - 2);
    const double s = u - i, t = v - j;
    // Lower-right triangle (s >= t): corners (0,0), (1,0), (1,1); else (0,0), (1,1), (0,1).
    return s >= t ? z(i, j) + s * (z(i + 1, j) - z(i, j)) + t * (z(i + 1, j + 1) - z(i + 1, j))
                  : z(i, j) + t * (z(i, j + 1) - z(i, j)) + s * (z(i + 1, j + 1) - z(i, j + 1));
  };
}

}  // namespace hybridsim::testing
