// The faster serial vector operations (integrators/serial_vector_ops.hpp) against SUNDIALS' own
// serial operations on the same data. The elementwise and fused operations must agree bit for
// bit, their special cases and aliasing included (the solvers' step sequences must not change);
// the reductions add in another order and must stay within the rounding-error bound of a sum of
// n products, 2 n u sum |x_i y_i| (Higham, Accuracy and Stability, eq. 3.5, with a factor 2 for
// the two orders compared).
#include <doctest/doctest.h>
#include <sundials/sundials_context.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "integrators/serial_vector_ops.hpp"

namespace hybridsim::sundials {
namespace {

// 1,003 entries: not a multiple of the four partial sums, so the loops' tails run too.
constexpr sunindextype kLength = 1003;

struct Vectors {
  SUNContext context = nullptr;
  std::vector<N_Vector> owned;

  Vectors() { SUNContext_Create(nullptr, &context); }
  ~Vectors() {
    for (N_Vector v : owned) N_VDestroy(v);
    SUNContext_Free(&context);
  }

  // A vector with the library's operations and one with the fast ones, holding the same random
  // entries (signs mixed, magnitudes over six decades), except that every 7th entry is +0 or -0
  // and every 11th is 0.5 in every vector: differences of equal entries and sums of zeros are
  // where the sign of a zero result tells the library's formulas from others.
  std::pair<N_Vector, N_Vector> pair(unsigned seed) {
    N_Vector library = N_VNew_Serial(kLength, context);
    N_Vector fast = N_VNew_Serial(kLength, context);
    install_fast_serial_operations(fast);
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(-3, 3);
    for (sunindextype i = 0; i < kLength; ++i) {
      double value = mantissa(random) * std::pow(10.0, exponent(random));
      if (i % 7 == 0) value = (seed + static_cast<unsigned>(i)) % 2 == 0 ? 0.0 : -0.0;
      if (i % 11 == 0) value = 0.5;
      NV_Ith_S(library, i) = value;
      NV_Ith_S(fast, i) = value;
    }
    owned.push_back(library);
    owned.push_back(fast);
    return {library, fast};
  }
};

bool same_bits(N_Vector a, N_Vector b) {
  return std::memcmp(NV_DATA_S(a), NV_DATA_S(b), sizeof(realtype) * kLength) == 0;
}

double sum_of_absolute_products(N_Vector x, N_Vector y) {
  double sum = 0.0;
  for (sunindextype i = 0; i < kLength; ++i) sum += std::fabs(NV_Ith_S(x, i) * NV_Ith_S(y, i));
  return sum;
}

constexpr double kRoundOff = std::numeric_limits<double>::epsilon() / 2.0;

TEST_CASE("fast linear sums give the library's bits in every special case and alias") {
  Vectors vectors;
  // Coefficients that select each of the library's branches: +-1, a == b, a == -b, other.
  const std::vector<std::pair<double, double>> coefficients = {
      {1.0, 1.0},  {1.0, -1.0}, {-1.0, 1.0}, {1.0, 0.3},  {0.3, 1.0},   {-1.0, 0.3},
      {0.3, -1.0}, {0.7, 0.7},  {0.7, -0.7}, {0.3, -2.9}, {-1.0, -1.0}, {0.0, 0.0}};
  enum class Alias { none, z_is_x, z_is_y, y_is_x, all_one };
  for (const auto& entry : coefficients) {
    // Not a structured binding: clang 14 cannot capture one in a lambda (CAPTURE does).
    const auto& a = std::get<0>(entry);
    const auto& b = std::get<1>(entry);
    for (Alias alias : {Alias::none, Alias::z_is_x, Alias::z_is_y, Alias::y_is_x, Alias::all_one}) {
      CAPTURE(a);
      CAPTURE(b);
      CAPTURE(static_cast<int>(alias));
      auto [x_library, x_fast] = vectors.pair(1);
      auto [y_library, y_fast] = vectors.pair(2);
      auto [z_library, z_fast] = vectors.pair(3);
      const bool y_is_x = alias == Alias::y_is_x || alias == Alias::all_one;
      const bool z_is_x = alias == Alias::z_is_x || alias == Alias::all_one;
      N_Vector y_lib = y_is_x ? x_library : y_library;
      N_Vector y_fst = y_is_x ? x_fast : y_fast;
      N_Vector z_lib = z_is_x ? x_library : alias == Alias::z_is_y ? y_library : z_library;
      N_Vector z_fst = z_is_x ? x_fast : alias == Alias::z_is_y ? y_fast : z_fast;
      N_VLinearSum_Serial(a, x_library, b, y_lib, z_lib);
      N_VLinearSum(a, x_fast, b, y_fst, z_fst);
      CHECK(same_bits(z_lib, z_fst));
    }
  }
}

TEST_CASE("fast elementwise operations give the library's bits") {
  Vectors vectors;
  auto [x_library, x_fast] = vectors.pair(4);
  auto [y_library, y_fast] = vectors.pair(5);
  auto [z_library, z_fast] = vectors.pair(6);

  for (double c : {1.0, -1.0, 0.37}) {
    N_VScale_Serial(c, x_library, z_library);
    N_VScale(c, x_fast, z_fast);
    CHECK(same_bits(z_library, z_fast));
  }
  N_VScale_Serial(0.37, z_library, z_library);  // in place
  N_VScale(0.37, z_fast, z_fast);
  CHECK(same_bits(z_library, z_fast));
  N_VProd_Serial(x_library, y_library, z_library);
  N_VProd(x_fast, y_fast, z_fast);
  CHECK(same_bits(z_library, z_fast));
  N_VDiv_Serial(x_library, y_library, z_library);
  N_VDiv(x_fast, y_fast, z_fast);
  CHECK(same_bits(z_library, z_fast));
  N_VAbs_Serial(x_library, z_library);
  N_VAbs(x_fast, z_fast);
  CHECK(same_bits(z_library, z_fast));
  N_VInv_Serial(x_library, z_library);
  N_VInv(x_fast, z_fast);
  CHECK(same_bits(z_library, z_fast));
  N_VAddConst_Serial(x_library, -0.25, z_library);
  N_VAddConst(x_fast, -0.25, z_fast);
  CHECK(same_bits(z_library, z_fast));
  N_VCompare_Serial(0.5, x_library, z_library);
  N_VCompare(0.5, x_fast, z_fast);
  CHECK(same_bits(z_library, z_fast));
  N_VConst_Serial(2.5, z_library);
  N_VConst(2.5, z_fast);
  CHECK(same_bits(z_library, z_fast));
}

// The library's serial vector has no fused operations unless enabled, so N_VLinearCombination
// and N_VScaleAddMulti on its vectors run the generic fallbacks the fast ones must reproduce.
TEST_CASE("fast fused operations give the bits of the library's fallbacks") {
  Vectors vectors;
  // A first coefficient of 1 and one of 0.3; -1 and 1 among the later ones.
  for (double first : {1.0, 0.3}) {
    const std::vector<double> all_coefficients = {first, -0.5, 1.0 / 3.0, -1.0, 2.0, 1.0};
    for (int count = 1; count <= 6; ++count) {
      // z is a separate vector, the first term, or (from two terms on) the last term, which sends
      // the fast operation back to the fallback's passes.
      for (int z_is_term : {-1, 0, count >= 2 ? count - 1 : -1}) {
        CAPTURE(first);
        CAPTURE(count);
        CAPTURE(z_is_term);
        std::vector<N_Vector> library_terms, fast_terms;
        for (int k = 0; k < count; ++k) {
          auto [library, fast] = vectors.pair(10 + static_cast<unsigned>(k));
          library_terms.push_back(library);
          fast_terms.push_back(fast);
        }
        auto [z_library, z_fast] = vectors.pair(20);
        if (z_is_term >= 0) {
          z_library = library_terms[static_cast<std::size_t>(z_is_term)];
          z_fast = fast_terms[static_cast<std::size_t>(z_is_term)];
        }
        std::vector<double> c(all_coefficients.begin(), all_coefficients.begin() + count);
        REQUIRE(N_VLinearCombination(count, c.data(), library_terms.data(), z_library) == 0);
        REQUIRE(N_VLinearCombination(count, c.data(), fast_terms.data(), z_fast) == 0);
        CHECK(same_bits(z_library, z_fast));
      }
    }
  }

  // Z_k is a separate vector, Y_k, or (k = 0) x itself, which the later terms then read.
  for (int z_alias : {0, 1, 2}) {
    const bool z_is_y = z_alias == 1;
    CAPTURE(z_alias);
    auto [x_library, x_fast] = vectors.pair(30);
    std::vector<N_Vector> y_library, y_fast, z_library, z_fast;
    for (unsigned k = 0; k < 4; ++k) {
      auto [yl, yf] = vectors.pair(31 + k);
      auto [zl, zf] = vectors.pair(41 + k);
      y_library.push_back(yl);
      y_fast.push_back(yf);
      z_library.push_back(z_is_y ? yl : zl);
      z_fast.push_back(z_is_y ? yf : zf);
    }
    if (z_alias == 2) {
      z_library[0] = x_library;
      z_fast[0] = x_fast;
    }
    std::vector<double> a = {1.0, -1.0, 0.3, -2.5};
    N_VScaleAddMulti(4, a.data(), x_library, y_library.data(), z_library.data());
    N_VScaleAddMulti(4, a.data(), x_fast, y_fast.data(), z_fast.data());
    for (int k = 0; k < 4; ++k) CHECK(same_bits(z_library[k], z_fast[k]));
  }
}

TEST_CASE("fast dot products and norms stay within the rounding bound of the library's") {
  Vectors vectors;
  auto [x_library, x_fast] = vectors.pair(50);
  auto [y_library, y_fast] = vectors.pair(51);
  const double bound = 2.0 * kLength * kRoundOff * sum_of_absolute_products(x_library, y_library);
  const double library_dot = N_VDotProd_Serial(x_library, y_library);
  CHECK(std::fabs(N_VDotProd(x_fast, y_fast) - library_dot) <= bound);

  std::vector<N_Vector> ys_fast = {y_fast, x_fast};
  double products[2] = {0.0, 0.0};
  REQUIRE(N_VDotProdMulti(2, x_fast, ys_fast.data(), products) == 0);
  CHECK(std::fabs(products[0] - library_dot) <= bound);
  const double library_square = N_VDotProd_Serial(x_library, x_library);
  CHECK(std::fabs(products[1] - library_square) <= 2.0 * kLength * kRoundOff * library_square);

  // Weighted RMS norm: the sum of squares has only positive terms, so the bound is relative.
  const double library_norm = N_VWrmsNorm_Serial(x_library, y_library);
  CHECK(std::fabs(N_VWrmsNorm(x_fast, y_fast) - library_norm) <=
        2.0 * kLength * kRoundOff * library_norm);
}

TEST_CASE("a clone of a vector with the fast operations has them too") {
  Vectors vectors;
  auto [library, fast] = vectors.pair(60);
  N_Vector clone = N_VClone(fast);
  REQUIRE(clone != nullptr);
  vectors.owned.push_back(clone);
  CHECK((clone->ops->nvdotprod == fast->ops->nvdotprod));
  CHECK((clone->ops->nvlinearsum == fast->ops->nvlinearsum));
  CHECK((clone->ops->nvlinearcombination == fast->ops->nvlinearcombination));
  CHECK((library->ops->nvdotprod != fast->ops->nvdotprod));
}

}  // namespace
}  // namespace hybridsim::sundials
