// The dense-block sparse LU (integrators/block_lu.hpp) against a dense LU of the same matrix. The
// test matrices are block diagonally dominant (each diagonal entry exceeds its row's other
// entries' sum), as I - gamma J is for the steps CVODE takes, so their condition numbers are
// small and 1e-12 relative leaves a margin of about a thousand over double round-off.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <random>
#include <vector>

#include "integrators/block_lu.hpp"

namespace hybridsim {
namespace {

constexpr int kSize = BlockLu::kBlockSize;

// Nodes on an nx x ny x nz grid, each coupled to its six neighbours: the pattern of a pile's
// contacts, whose elimination fills in.
std::vector<std::vector<int>> grid_neighbours(int nx, int ny, int nz) {
  std::vector<std::vector<int>> neighbours(static_cast<std::size_t>(nx * ny * nz));
  const auto index = [nx, ny](int x, int y, int z) { return x + nx * (y + ny * z); };
  for (int z = 0; z < nz; ++z) {
    for (int y = 0; y < ny; ++y) {
      for (int x = 0; x < nx; ++x) {
        std::vector<int>& list = neighbours[index(x, y, z)];
        if (x > 0) list.push_back(index(x - 1, y, z));
        if (x + 1 < nx) list.push_back(index(x + 1, y, z));
        if (y > 0) list.push_back(index(x, y - 1, z));
        if (y + 1 < ny) list.push_back(index(x, y + 1, z));
        if (z > 0) list.push_back(index(x, y, z - 1));
        if (z + 1 < nz) list.push_back(index(x, y, z + 1));
      }
    }
  }
  return neighbours;
}

// Random blocks on the pattern (nonsymmetric values), diagonally dominant, written into the
// factorisation's blocks; returns the dense matrix (node-major, as solve() takes vectors).
Eigen::MatrixXd fill(BlockLu& lu, const std::vector<std::vector<int>>& neighbours,
                     std::mt19937& random) {
  const auto n = static_cast<Eigen::Index>(neighbours.size() * kSize);
  std::uniform_real_distribution<double> entry(-1.0, 1.0);
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(n, n);
  for (std::size_t node = 0; node < neighbours.size(); ++node) {
    std::vector<int> columns = neighbours[node];
    columns.push_back(static_cast<int>(node));
    for (int other : columns) {
      for (int r = 0; r < kSize; ++r) {
        for (int c = 0; c < kSize; ++c) {
          dense(static_cast<Eigen::Index>(node) * kSize + r,
                static_cast<Eigen::Index>(other) * kSize + c) = entry(random);
        }
      }
    }
  }
  for (Eigen::Index row = 0; row < n; ++row)
    dense(row, row) = 1.0 + dense.row(row).cwiseAbs().sum();
  lu.zero_values();
  for (std::size_t node = 0; node < neighbours.size(); ++node) {
    std::vector<int> columns = neighbours[node];
    columns.push_back(static_cast<int>(node));
    for (int other : columns) {
      const std::size_t offset = lu.block_offset(static_cast<int>(node), other);
      for (int c = 0; c < kSize; ++c) {
        for (int r = 0; r < kSize; ++r) {
          lu.values()[offset + static_cast<std::size_t>(r + kSize * c)] =
              dense(static_cast<Eigen::Index>(node) * kSize + r,
                    static_cast<Eigen::Index>(other) * kSize + c);
        }
      }
    }
  }
  return dense;
}

double solve_error(const BlockLu& lu, const Eigen::MatrixXd& dense, std::mt19937& random) {
  std::uniform_real_distribution<double> entry(-1.0, 1.0);
  Eigen::VectorXd b(dense.rows());
  for (Eigen::Index i = 0; i < b.size(); ++i) b[i] = entry(random);
  const Eigen::VectorXd reference = dense.partialPivLu().solve(b);
  Eigen::VectorXd x = b;
  lu.solve({x.data(), static_cast<std::size_t>(x.size())});
  return (x - reference).norm() / reference.norm();
}

TEST_CASE("block LU: a 3D grid of 6 x 6 blocks solves like a dense LU, and again with new values") {
  const std::vector<std::vector<int>> neighbours = grid_neighbours(4, 5, 5);
  BlockLu lu;
  lu.analyse(neighbours);
  REQUIRE(lu.node_count() == 100);
  // The elimination fills in: more blocks in L and U than the matrix has (100 diagonal blocks
  // and 2 x 235 couplings), as a scalar LU of a 3D mesh's matrix does.
  CHECK(lu.factor_block_count() > 100 + 2 * 235);
  std::mt19937 random(20261126);
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    const Eigen::MatrixXd dense = fill(lu, neighbours, random);
    REQUIRE(lu.factor());
    CHECK(solve_error(lu, dense, random) < 1e-12);
  }
}

TEST_CASE("block LU: a new pattern, and nodes coupled to nothing") {
  std::vector<std::vector<int>> neighbours = grid_neighbours(3, 3, 3);
  neighbours.emplace_back();  // a free body in flight: its own block only
  BlockLu lu;
  lu.analyse(neighbours);
  std::mt19937 random(5);
  Eigen::MatrixXd dense = fill(lu, neighbours, random);
  REQUIRE(lu.factor());
  CHECK(solve_error(lu, dense, random) < 1e-12);
  // The lone node touches node 0: a new analysis.
  neighbours.back().push_back(0);
  neighbours[0].push_back(static_cast<int>(neighbours.size()) - 1);
  lu.analyse(neighbours);
  dense = fill(lu, neighbours, random);
  REQUIRE(lu.factor());
  CHECK(solve_error(lu, dense, random) < 1e-12);
}

TEST_CASE("block LU: couplings given one way only count both ways") {
  // Each grid node lists only its later neighbours: the analysis must still see every coupling.
  const std::vector<std::vector<int>> full = grid_neighbours(3, 4, 3);
  std::vector<std::vector<int>> one_way(full.size());
  for (std::size_t node = 0; node < full.size(); ++node) {
    for (int other : full[node]) {
      if (other > static_cast<int>(node)) one_way[node].push_back(other);
    }
  }
  BlockLu lu;
  lu.analyse(one_way);
  std::mt19937 random(11);
  const Eigen::MatrixXd dense = fill(lu, full, random);
  REQUIRE(lu.factor());
  CHECK(solve_error(lu, dense, random) < 1e-12);
}

TEST_CASE("block LU: bodies coupled to nothing (a pile in flight)") {
  const std::vector<std::vector<int>> neighbours(40);
  BlockLu lu;
  lu.analyse(neighbours);
  CHECK(lu.factor_block_count() == 40);
  std::mt19937 random(3);
  const Eigen::MatrixXd dense = fill(lu, neighbours, random);
  REQUIRE(lu.factor());
  CHECK(solve_error(lu, dense, random) < 1e-12);
}

TEST_CASE("block LU: a singular diagonal block is declined, not divided by") {
  // [[0, I], [I, 0]] is regular but its first pivot block is zero: without pivoting between
  // blocks the elimination cannot proceed, and factor() says so (the caller then pivots).
  const std::vector<std::vector<int>> neighbours{{1}, {0}};
  BlockLu lu;
  lu.analyse(neighbours);
  lu.zero_values();
  for (int k = 0; k < kSize; ++k) {
    lu.values()[lu.block_offset(0, 1) + static_cast<std::size_t>(k * (kSize + 1))] = 1.0;
    lu.values()[lu.block_offset(1, 0) + static_cast<std::size_t>(k * (kSize + 1))] = 1.0;
  }
  CHECK_FALSE(lu.factor());
}

}  // namespace
}  // namespace hybridsim
