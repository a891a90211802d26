// A PD controller at 1 kHz over 1 s of simulated time on tools/bench/pd_wheel.yaml, through the
// C++ API: the yardstick of the Python control loop (tools/bench/pd_loop.py, BENCHMARKS.md).
// Usage: hybridsim_bench_pd_loop SCENE [REPEATS]. Prints the median wall time of the loop alone
// (the scene loaded before the clock starts) and the final joint angle.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "hybridsim/simulator.hpp"
#include "models/scene_loader.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SCENE [REPEATS]\n", argv[0]);
    return 2;
  }
  const int repeats = argc > 2 ? std::stoi(argv[2]) : 5;
  const double kp = 2.0, kd = 0.3, target = 1.0, period = 1e-3;
  std::vector<double> seconds;
  double final_angle = 0.0;
  for (int r = 0; r < repeats; ++r) {
    hybridsim::Simulator sim(hybridsim::load_scene_file(argv[1]));
    const auto started = std::chrono::steady_clock::now();
    for (int k = 0; k < 1000; ++k) {
      const hybridsim::JointCoordinate q = sim.joint_state("axle");
      sim.set_input("torque", hybridsim::Vec3(kp * (target - q.position) - kd * q.velocity, 0, 0));
      sim.advance_to((k + 1) * period);
    }
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    final_angle = sim.joint_state("axle").position;
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("C++ loop: %.6f s (median of %d), final angle %.12f rad\n",
              seconds[seconds.size() / 2], repeats, final_angle);
  return 0;
}
