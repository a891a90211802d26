// A SUNDIALS direct linear solver for the Newton matrix A = I - gamma J in the block pattern of
// integrators/block_jacobian.hpp that eliminates each block's local states before KLU factorises.
//
// A local state's row depends on its own block's states only (a free body's position and
// orientation, whose rates are its velocities), so each block's local rows and columns can be
// eliminated with a small dense inverse of its own. What is left for KLU is the Schur
// complement on the other states,
//   S = A_KK - A_KL A_LL^-1 A_LK    (L: local states, K: kept states, A_LL block-diagonal),
// whose pattern is A's restricted to the kept states: every column of a block has the same rows,
// so subtracting A_KL W_b, with W_b = A_LL,b^-1 A_LK,b for block b, adds no entry. For a free body
// 6 of its 13 states are kept. A resting pile, whose factorisations fill in like a 3D mesh's,
// then factorises a matrix of less than half the size with less than half the factor entries
// (pile_100 at rest: 25,008 against 59,188; BENCHMARKS.md).
//
// A solve eliminates forwards (y_L = A_LL^-1 b_L, then S x_K = b_K - A_KL y_L) and substitutes
// back (x_L = y_L - W x_K). As with SUNDIALS' own KLU solver, the first setup of a pattern
// analyses and factorises with pivoting, later setups refactorise with the same pivots, and a
// refactorisation whose condition estimate is poor is redone with pivoting.
#pragma once

#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>

#include <cstddef>
#include <span>

namespace hybridsim {

class BlockJacobian;

// The solver for jacobian's pattern with local_states (one entry per state, 1 for a local state;
// as given to BlockJacobian::assign_blocks). Both must outlive the solver; SUNLinSolFree frees it.
// allow_block_lu: dense 6 x 6 block LU instead of KLU where the pattern pays for it (32 free bodies
// or more); false keeps KLU (linear_solver "klu-plain", for comparisons).
SUNLinearSolver new_reduced_klu_solver(const BlockJacobian& jacobian,
                                       std::span<const char> local_states, bool allow_block_lu,
                                       SUNContext context);

// The jacobian's pattern changed: the next setup analyses the new one.
void reduced_klu_new_pattern(SUNLinearSolver solver);

// The order of the matrix KLU factorises (the kept states), as of the last setup.
std::size_t reduced_klu_size(SUNLinearSolver solver);

// Whether the last setup factorised with dense 6 x 6 blocks (integrators/block_lu.hpp) rather
// than KLU: patterns of at least 32 blocks that each keep six states, unless a pivot block was
// singular or poorly conditioned.
bool reduced_klu_used_blocks(SUNLinearSolver solver);

}  // namespace hybridsim
