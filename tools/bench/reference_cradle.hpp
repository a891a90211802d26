// Newton's cradle (models/scenes/newtons_cradle.yaml) as a plain C++ program on CVODE: five steel
// balls, each a free rigid body (13 states) held on its string by a revolute joint to the fixed
// frame, written the way hybridsim formulates it (maximal coordinates, 5 constraint rows per joint,
// Baumgarte stabilisation, Hertz contacts between the balls, the z1/z2 crossing functions and the
// same step bound), with none of its generality: each ball's 5 x 5 constraint system is solved on
// its own and the contacts are sphere-sphere formulas. The yardstick of the cradle benchmark
// (BENCHMARKS.md, issue 8: "within 1.3x of a plain CVODE program of the same equations").
// Where it is simpler than the library: restarts only renormalise the quaternions (the library
// also projects onto the joints, a change of the order of the tolerance), the 5 x 5 systems are
// solved without the library's 1e-10 regularisation and refinement, z2 uses exact distances for
// every pair (the library's broadphase gives apart pairs a lower bound), and restitution stays 1
// at any speed (the scene's v_small, 1e-9 m/s, is never reached).
#pragma once

#include <array>

namespace hybridsim::bench {

struct CradleResult {
  long rhs_evals = 0;
  long steps = 0;
  long contact_starts = 0;
  long contact_ends = 0;
  long outputs = 0;
  std::array<double, 5> final_x{};   // each ball's centre, x, m
  std::array<double, 5> final_vx{};  // each ball's velocity, x, m/s
};

CradleResult run_reference_cradle(double rtol, double atol, double stop_time,
                                  double output_interval);

}  // namespace hybridsim::bench
