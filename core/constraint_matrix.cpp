#include "core/constraint_matrix.hpp"

#include <algorithm>
#include <cassert>

#include <Eigen/Eigenvalues>
#include <Eigen/OrderingMethods>

namespace hybridsim {
namespace {

// Below this ratio of smallest to largest eigenvalue (or pivot) A counts as singular: far above
// the round-off (~1e-16) that a redundant row leaves. A well-posed but ill-conditioned A (long
// chains: the condition number grows about as the square of the links; widely spread masses)
// can reach it with the eigenvalue test before the pivot test, which is never more sensitive; a
// mechanism flagged so only gets the DAE form's 1e-10 regularisation.
constexpr double kSingularRatio = 1e-9;

}  // namespace

ConstraintMatrix::ConstraintMatrix(int size, std::span<const std::pair<int, int>> entries,
                                   Storage storage)
    : storage_(storage),
      size_(size),
      // Sized in place: an LLT made by LLT(size) has no factorisation status until compute(), and
      // copying it would read that uninitialised status (UBSan's invalid enum load).
      llt_(storage == Storage::dense ? size : 0),
      rhs_(Eigen::VectorXd::Zero(size)),
      residual_(Eigen::VectorXd::Zero(size)),
      work_(Eigen::VectorXd::Zero(size)) {
  if (storage_ == Storage::dense) {
    dense_ = Eigen::MatrixXd::Zero(size, size);
    return;
  }
  if (size == 0) return;
  // A fill-reducing ordering of the symmetric pattern (approximate minimum degree), once.
  std::vector<Eigen::Triplet<double, int>> triplets;
  triplets.reserve(2 * entries.size() + static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) triplets.emplace_back(i, i, 1.0);
  for (const auto& [i, k] : entries) {
    triplets.emplace_back(i, k, 1.0);
    triplets.emplace_back(k, i, 1.0);
  }
  Eigen::SparseMatrix<double> pattern(size, size);
  pattern.setFromTriplets(triplets.begin(), triplets.end());
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> ordered_to_row;
  Eigen::AMDOrdering<int>()(pattern, ordered_to_row);
  permuted_.assign(static_cast<std::size_t>(size), 0);
  for (int n = 0; n < size; ++n) permuted_[ordered_to_row.indices()[n]] = n;

  // The upper triangle of P A P^T, compressed; explicit zeros keep every entry in the pattern.
  triplets.clear();
  for (int i = 0; i < size; ++i) triplets.emplace_back(permuted_[i], permuted_[i], 0.0);
  for (const auto& [i, k] : entries) {
    const int a = permuted_[i], b = permuted_[k];
    triplets.emplace_back(std::min(a, b), std::max(a, b), 0.0);
  }
  sparse_.resize(size, size);
  sparse_.setFromTriplets(triplets.begin(), triplets.end());
  sparse_.makeCompressed();
  diagonal_slots_.resize(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) diagonal_slots_[i] = slot(i, i);
  ldlt_.analyzePattern(sparse_);
  // One numeric factorisation of the identity sizes the pivot vector now, not in the first
  // evaluation.
  for (int s : diagonal_slots_) sparse_.valuePtr()[s] = 1.0;
  ldlt_.factorize_values(sparse_);
  set_zero();
}

int ConstraintMatrix::slot(int i, int k) const {
  if (storage_ == Storage::dense) return i + k * size_;
  const int a = permuted_[i], b = permuted_[k];
  const int row = std::min(a, b), column = std::max(a, b);
  const int* begin = sparse_.innerIndexPtr() + sparse_.outerIndexPtr()[column];
  const int* end = sparse_.innerIndexPtr() + sparse_.outerIndexPtr()[column + 1];
  const int* found = std::lower_bound(begin, end, row);
  assert(found != end && *found == row);  // (i, k) was one of the constructor's entries
  return static_cast<int>(found - sparse_.innerIndexPtr());
}

void ConstraintMatrix::set_zero() {
  if (storage_ == Storage::dense) {
    dense_.setZero();
  } else {
    std::fill_n(sparse_.valuePtr(), sparse_.nonZeros(), 0.0);
  }
}

void ConstraintMatrix::add_shift(double sign) {
  if (storage_ == Storage::dense) {
    dense_.diagonal().array() += sign * shift_;
  } else {
    for (int s : diagonal_slots_) sparse_.valuePtr()[s] += sign * shift_;
  }
}

bool ConstraintMatrix::factorize(double relative_shift) {
  if (size_ == 0) return true;
  double max_diagonal = 1e-300;
  if (storage_ == Storage::dense) {
    max_diagonal = std::max(max_diagonal, dense_.diagonal().maxCoeff());
  } else {
    for (int s : diagonal_slots_) max_diagonal = std::max(max_diagonal, sparse_.valuePtr()[s]);
  }
  shift_ = relative_shift * max_diagonal;
  add_shift(1.0);
  if (storage_ == Storage::dense) {
    llt_.compute(dense_);
    return llt_.info() == Eigen::Success;
  }
  ldlt_.factorize_values(sparse_);
  return ldlt_.info() == Eigen::Success;
}

void ConstraintMatrix::solve_in_place(Eigen::VectorXd& b, int refinements) {
  if (size_ == 0) return;
  if (storage_ == Storage::dense) {
    rhs_ = b;
    llt_.solveInPlace(b);
    for (int step = 0; step < refinements; ++step) {
      // residual = rhs - A b with the unshifted A (dense_ holds the shifted lower triangle)
      residual_.noalias() = dense_.selfadjointView<Eigen::Lower>() * b;
      residual_ = rhs_ - residual_ + shift_ * b;
      llt_.solveInPlace(residual_);
      b += residual_;
    }
    return;
  }
  for (int i = 0; i < size_; ++i) rhs_[permuted_[i]] = b[i];
  work_ = ldlt_.solve(rhs_);
  for (int step = 0; step < refinements; ++step) {
    residual_.noalias() = sparse_.selfadjointView<Eigen::Upper>() * work_;
    residual_ = rhs_ - residual_ + shift_ * work_;
    residual_ = ldlt_.solve(residual_);
    work_ += residual_;
  }
  for (int i = 0; i < size_; ++i) b[i] = work_[permuted_[i]];
}

bool ConstraintMatrix::numerically_singular() {
  if (size_ == 0) return false;
  if (storage_ == Storage::dense) {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(dense_, Eigen::EigenvaluesOnly);
    const Eigen::VectorXd& values = eigen.eigenvalues();  // ascending
    return values[0] < kSingularRatio * values[values.size() - 1];
  }
  // The pivots of LDL^T lie within the spectrum of A: min pivot >= smallest eigenvalue and
  // max pivot <= largest, so a well-conditioned A never counts as singular, and an exactly
  // singular one leaves a pivot of round-off size (or a zero pivot, which fails the factorisation).
  ldlt_.factorize_values(sparse_);
  if (ldlt_.info() != Eigen::Success) return true;
  const Eigen::VectorXd pivots = ldlt_.vectorD();  // a copy: start-up and events only
  return pivots.minCoeff() < kSingularRatio * pivots.maxCoeff();
}

}  // namespace hybridsim
