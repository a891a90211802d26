// The trajectory's columns (docs/outputs.md, Trajectory CSV) and one row of them at a state: the
// CLI's CSV, the embedding API and the Python package all write the same numbers from here.
#pragma once

#include <string>
#include <vector>

#include "models/multibody_system.hpp"

namespace hybridsim {

// The column names after `t`: per body <body>.x .y .z .qw .qx .qy .qz .vx .vy .vz .wx .wy .wz,
// per joint <joint>.q .qd, energy, then per wheel wheel.<wheel>.s_a .. .normal_force.
std::vector<std::string> trajectory_column_names(const Model& model);

// The values of those columns at state x into `row` (resized; t not included). Positions and
// the normalised quaternion of each body, the velocity of its origin and its angular velocity in
// W (m/s, rad/s); joint coordinates; the energy (its elastic part is that of the contacts in
// contactDict now: call it at the run's current state or from an observer).
void compute_trajectory_row(MultibodySystem& system, ConstVectorRef x, std::vector<double>& row);

}  // namespace hybridsim
