# The installed headers (the C and C++ API and the lower layers' headers that it includes), one
# list for the install rules (install.cmake) and for the test that the shared library exports
# exactly what they declare (tests/install/exported_symbols.py, tools/api/exports.map).
set(HYBRIDSIM_PUBLIC_API_HEADERS
  tools/api/hybridsim/hybridsim.hpp
  tools/api/hybridsim/hybridsim.h
  tools/api/hybridsim/model_builder.hpp
  tools/api/hybridsim/simulator.hpp)
set(HYBRIDSIM_PUBLIC_CORE_HEADERS
  core/bilateral_contact.hpp
  core/contact_law.hpp
  core/errors.hpp
  core/friction_cone.hpp
  core/friction_law.hpp
  core/hybrid_system.hpp
  core/joint.hpp
  core/math.hpp
  core/model.hpp
  core/signal.hpp
  core/wheel.hpp
  core/wheel_contact.hpp)
set(HYBRIDSIM_PUBLIC_INTEGRATOR_HEADERS
  integrators/integrator.hpp
  integrators/simulation.hpp)
set(HYBRIDSIM_PUBLIC_MODEL_HEADERS
  models/scene_import.hpp
  models/scene_loader.hpp)
