// The cost of wheels: one right-hand-side evaluation of the wheel catalog scenes with their
// wheels against the same scene, state and contact set without them (the contact law alone), in
// one run, side by side (BENCHMARKS.md, "Wheels").
//
//   build/tools/bench/hybridsim_bench_wheels
#include <cstdio>
#include <string>

#include "bench_timing.hpp"
#include "hybridsim/simulator.hpp"
#include "models/multibody_system.hpp"
#include "models/scene_loader.hpp"

namespace {

using hybridsim::bench::median_us;

// Microseconds per evaluation of the scene's right-hand side at state x (contacts as at x).
double rhs_us(const hybridsim::Model& model, const hybridsim::VectorX& state, double t) {
  hybridsim::MultibodySystem system(model);
  hybridsim::VectorX x = state;
  hybridsim::VectorX xdot(x.size());
  system.initialize(t, x);
  return median_us([&](int) { system.compute_derivatives(t, x, xdot); }, 20000);
}

}  // namespace

int main() {
  std::printf("%-18s %8s %8s %14s %14s %8s\n", "scene", "wheels", "contacts", "with us",
              "without us", "ratio");
  for (const char* name : {"tricycles_uphill", "tire_drum", "plowing_spheres", "rover_terrain"}) {
    hybridsim::Model model = hybridsim::load_scene_file(name);
    // A state in motion: the run at 1 s.
    hybridsim::Simulator simulator(model);
    simulator.advance_to(1.0);
    const hybridsim::VectorX x = simulator.state();
    const std::size_t contacts = simulator.contact_results().size();
    const double with_wheels = rhs_us(model, x, 1.0);
    hybridsim::Model plain = model;
    plain.wheels.clear();
    const double without = rhs_us(plain, x, 1.0);
    std::printf("%-18s %8zu %8zu %14.3f %14.3f %8.2f\n", name, model.wheels.size(), contacts,
                with_wheels, without, with_wheels / without);
  }
  return 0;
}
