// Faster bodies for the serial N_Vector operations the SUNDIALS solvers spend their vector time
// in, installed into a vector's operation table; every vector a solver clones from it inherits
// them.
//
// Why: the library's serial loops (Debian's build of SUNDIALS 6.4.1) are not vectorised and sum
// dot products and norms in one chain of dependent additions. On a state of 13,000 entries (the
// 1,000-sphere pile) a dot product took 43 us and a linear sum 24 us, against 2.7 and 7.3 us for
// the loops here, and matrix-free GMRES spends most of its time in them.
//
// The elementwise operations give bit for bit the results of the library's: each reproduces the
// arithmetic of the library's special cases (a (x + y) when a == b, for instance), and the fused
// operations add in the order of the library's fallbacks. Only the reductions (dot products,
// weighted RMS norms) add in another order: four partial sums, a relative change of order n u.
// (Bit for bit as long as neither side contracts a x + b y into a fused multiply-add, as on
// amd64 without -march; tests/integrators/serial_vector_ops_test.cpp checks it on the machine
// that builds. NaNs may differ in their sign bit: -1 * x against the library's -x.)
#pragma once

#include <nvector/nvector_serial.h>

namespace hybridsim::sundials {

// Replaces the operations of the serial vector v (and so of its future clones) with the loops of
// serial_vector_ops.cpp. v must be a serial N_Vector.
void install_fast_serial_operations(N_Vector v);

}  // namespace hybridsim::sundials
