// hybridsim: continuous-time hybrid simulation of rigid bodies in contact. The umbrella header of
// the C++ API (namespace hybridsim); the C API is hybridsim/hybridsim.h.
//
//   Model model = load_scene_file("scene.yaml");      // or ModelBuilder(...).build()
//   Simulator sim(std::move(model));
//   sim.advance_to(1.0);
//   BodyState ball = sim.body_state("ball");
//
// What each header gives (every symbol documented there, with units and frames):
//
// | header                      | what                                                          |
// |-----------------------------|---------------------------------------------------------------|
// | core/math.hpp               | Vec3, Quat, Pose, VectorX (Eigen), kInfinity, kNaN            |
// | core/errors.hpp             | InputError, NotSupportedError, SolverError                    |
// | models/scene_loader.hpp     | load_scene_file, load_scene_text                              |
// | models/scene_import.hpp     | URDF and MJCF files: ImportOptions, convert_scene_file        |
// | core/model.hpp              | Model: bodies, shapes, materials, contact pairs, inputs       |
// | core/signal.hpp             | input signals (constant, step, ramp, sine, table)             |
// | core/contact_law.hpp        | normal laws, damping models, ContactResult                    |
// | core/friction_law.hpp       | friction models                                               |
// | core/hybrid_system.hpp      | HybridSystem: a host's own x' = f(t, x) with crossings        |
// | integrators/integrator.hpp  | IntegratorSettings, IntegratorStats, list_integrators()       |
// | integrators/simulation.hpp  | SimulationOptions, SimulationStatus, SimulationObserver       |
// | hybridsim/model_builder.hpp | ModelBuilder: a scene in code                                 |
// | hybridsim/simulator.hpp     | Simulator: advance, read, set inputs, observe                 |
// | hybridsim/version.h         | HYBRIDSIM_VERSION_* macros                                    |
#pragma once

#include "core/errors.hpp"
#include "core/model.hpp"
#include "hybridsim/model_builder.hpp"
#include "hybridsim/simulator.hpp"
#include "hybridsim/version.h"
#include "models/scene_import.hpp"
#include "models/scene_loader.hpp"

namespace hybridsim {

// The library's version, "MAJOR.MINOR.PATCH" (HYBRIDSIM_VERSION_STRING of the headers it was
// built with).
const char* version();

}  // namespace hybridsim
