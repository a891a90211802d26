// The joint-space matrix A = G M^-1 G^T of core/constraint_solver.hpp: symmetric positive
// semi-definite, with a sparsity pattern fixed by the joint topology (A_ik != 0 only when rows i
// and k act on a common free body). It is assembled into fixed storage slots, factorised with a
// small diagonal shift, and solved with iterative refinement that removes the shift's error.
//
// Two storages: dense (Cholesky of the full matrix, m^3/3 operations) for small systems, and sparse
// (an LDL^T with a fill-reducing ordering computed once from the pattern; for a chain or a tree the
// work grows linearly with the rows) for mechanisms with many joints. Both give the same solution
// to round-off. Nothing allocates after construction, up to 16,384 rows: above, Eigen's sparse
// factorisation puts its three work arrays (16 bytes per row) on the heap at every call instead
// of the stack.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/SparseCholesky>

#include "core/model.hpp"

namespace hybridsim {

class ConstraintMatrix {
 public:
  enum class Storage { dense, sparse };

  // `entries`: every (i, k), i >= k, of the lower triangle that can be non-zero, diagonal
  // included; duplicates are allowed.
  ConstraintMatrix(int size, std::span<const std::pair<int, int>> entries, Storage storage);

  Storage storage() const { return storage_; }
  int size() const { return size_; }

  // The storage slot of entry (i, k), i >= k, one of the constructor's entries: assembly adds
  // into values()[slot].
  int slot(int i, int k) const;
  double* values() { return storage_ == Storage::dense ? dense_.data() : sparse_.valuePtr(); }
  void set_zero();

  // Factorises A + shift I, shift = relative_shift * max_i A_ii (a shift > 0 keeps a singular A,
  // from redundant constraints, factorisable). False when the factorisation failed (non-finite
  // or indefinite A); solve_in_place must not be called then.
  bool factorize(double relative_shift);
  // b := (A)^-1 b through the shifted factors and `refinements` steps of iterative refinement
  // with the unshifted A (iterated Tikhonov: each step shrinks the shift's error by
  // shift / (shift + sigma) in the direction of eigenvalue sigma).
  void solve_in_place(Eigen::VectorXd& b, int refinements);

  // Whether the assembled (unshifted) A is numerically singular: its smallest eigenvalue (dense)
  // or LDL^T pivot (sparse; a pivot bounds the spectrum from inside) below 1e-9 of the largest.
  // Factorises; call factorize again before solving.
  bool numerically_singular();

 private:
  // An LDL^T over a fixed, pre-ordered upper-triangular pattern. Eigen's factorize() builds a
  // temporary matrix on each call; the pre-ordered numeric step it wraps does not allocate.
  class FixedPatternLdlt : public Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Upper,
                                                        Eigen::NaturalOrdering<int>> {
   public:
    void factorize_values(const Eigen::SparseMatrix<double>& upper) {
      this->template factorize_preordered<true>(upper);
    }
  };

  void add_shift(double sign);

  Storage storage_;
  int size_ = 0;
  double shift_ = 0.0;
  // dense: the lower triangle, column-major.
  Eigen::MatrixXd dense_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  // sparse: the upper triangle of P A P^T, with permuted_[i] the position of row i.
  Eigen::SparseMatrix<double> sparse_;
  std::vector<int> permuted_;
  std::vector<int> diagonal_slots_;
  FixedPatternLdlt ldlt_;
  // workspace
  Eigen::VectorXd rhs_, residual_, work_;
};

}  // namespace hybridsim
