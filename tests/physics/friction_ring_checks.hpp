// The closed forms of Gazebo's friction rings, shared by the catalog scenes
// (physics/friction_ring_scenes_test.cpp) and the SDFormat worlds that write them again
// (models/import/sdf_gazebo_worlds_test.cpp):
//  - friction_cone_ring (MaximumDissipation): boxes launched radially outward at v0 = R m/s on a
//    plane, cone friction mu = 0.3: each slides straight out, v = v0 - mu g t, r = R + v0 t -
//    mu g t^2 / 2, whatever its fdir1 and however its frames are turned.
//  - fdir1_ring (BoxDirectionRing): pyramid friction with mu = 100 along a body-fixed fdir1 on
//    each box's tangent and mu2 = 0 across it, under gravity (0, 1, -9.81): each box slides along
//    its radius at g_y sin(a) t and creeps tangentially only at the regularized speed.
#pragma once

#include "test_support.hpp"

namespace hybridsim::testing {

// The 160 boxes of a friction_cone_ring run against the closed form, at its third and last
// outputs.
void check_friction_cone_ring(const Run& run);

// The 44 boxes of a 1.5 s fdir1_ring run against the closed form, at its last output; v_small
// (m/s) of the regularized law sets the tangential creep.
void check_fdir1_ring(const Run& run, double v_small);

}  // namespace hybridsim::testing
