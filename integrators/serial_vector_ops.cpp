#include "integrators/serial_vector_ops.hpp"

#include <cmath>

namespace hybridsim::sundials {
namespace {

// Inputs and outputs may be the same vector (z == x, for instance): every loop below reads the
// inputs of entry i before it writes entry i of the output and touches no other entry, so
// aliasing is harmless; the compiler vectorises behind its own overlap check.

realtype* data(N_Vector v) {
  return NV_DATA_S(v);
}
sunindextype length(N_Vector v) {
  return NV_LENGTH_S(v);
}

// z = a x + b y with the library's roundings: a (x + y) when a == b and a (x - y) when a == -b
// round differently from a x + b y, and where a result is zero its sign follows the library's
// y - x for (a, b) = (-1, 1) and (-y) - x for (-1, -1). Its other special cases (a or b equal to
// +-1, z aliasing x or y) give the bits of a x + b y: multiplying by +-1 is exact, and u - v is
// u + (-v) to the bit.
void linear_sum(realtype a, N_Vector x, realtype b, N_Vector y, N_Vector z) {
  const sunindextype n = length(x);
  const realtype* xd = data(x);
  const realtype* yd = data(y);
  realtype* zd = data(z);
  if (a == -1.0 && b == 1.0) {
    for (sunindextype i = 0; i < n; ++i) zd[i] = yd[i] - xd[i];
  } else if (a == -1.0 && b == -1.0) {
    for (sunindextype i = 0; i < n; ++i) zd[i] = -yd[i] - xd[i];
  } else if (a == b) {
    for (sunindextype i = 0; i < n; ++i) zd[i] = a * (xd[i] + yd[i]);
  } else if (a == -b) {
    for (sunindextype i = 0; i < n; ++i) zd[i] = a * (xd[i] - yd[i]);
  } else {
    for (sunindextype i = 0; i < n; ++i) zd[i] = a * xd[i] + b * yd[i];
  }
}

void constant(realtype c, N_Vector z) {
  const sunindextype n = length(z);
  realtype* zd = data(z);
  for (sunindextype i = 0; i < n; ++i) zd[i] = c;
}

void product(N_Vector x, N_Vector y, N_Vector z) {
  const sunindextype n = length(x);
  const realtype* xd = data(x);
  const realtype* yd = data(y);
  realtype* zd = data(z);
  for (sunindextype i = 0; i < n; ++i) zd[i] = xd[i] * yd[i];
}

void quotient(N_Vector x, N_Vector y, N_Vector z) {
  const sunindextype n = length(x);
  const realtype* xd = data(x);
  const realtype* yd = data(y);
  realtype* zd = data(z);
  for (sunindextype i = 0; i < n; ++i) zd[i] = xd[i] / yd[i];
}

// z = c x (the library's copy for c == 1 and negation for c == -1 give the same bits).
void scale(realtype c, N_Vector x, N_Vector z) {
  const sunindextype n = length(x);
  const realtype* xd = data(x);
  realtype* zd = data(z);
  for (sunindextype i = 0; i < n; ++i) zd[i] = c * xd[i];
}

void absolute(N_Vector x, N_Vector z) {
  const sunindextype n = length(x);
  const realtype* xd = data(x);
  realtype* zd = data(z);
  for (sunindextype i = 0; i < n; ++i) zd[i] = std::fabs(xd[i]);
}

void inverse(N_Vector x, N_Vector z) {
  const sunindextype n = length(x);
  const realtype* xd = data(x);
  realtype* zd = data(z);
  for (sunindextype i = 0; i < n; ++i) zd[i] = 1.0 / xd[i];
}

void add_constant(N_Vector x, realtype b, N_Vector z) {
  const sunindextype n = length(x);
  const realtype* xd = data(x);
  realtype* zd = data(z);
  for (sunindextype i = 0; i < n; ++i) zd[i] = xd[i] + b;
}

// z_i = 1 where |x_i| >= c, else 0.
void compare(realtype c, N_Vector x, N_Vector z) {
  const sunindextype n = length(x);
  const realtype* xd = data(x);
  realtype* zd = data(z);
  for (sunindextype i = 0; i < n; ++i) zd[i] = std::fabs(xd[i]) >= c ? 1.0 : 0.0;
}

// sum_i term(i) in four partial sums, which break the chain of dependent additions the
// library's loops wait on.
template <typename Term>
realtype four_way_sum(sunindextype n, Term term) {
  realtype sum[4] = {0.0, 0.0, 0.0, 0.0};
  sunindextype i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int k = 0; k < 4; ++k) sum[k] += term(i + k);
  }
  for (; i < n; ++i) sum[0] += term(i);
  return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

realtype dot_product(N_Vector x, N_Vector y) {
  const realtype* xd = data(x);
  const realtype* yd = data(y);
  return four_way_sum(length(x), [xd, yd](sunindextype i) { return xd[i] * yd[i]; });
}

// z = sum_k c_k X_k, added in the order of the library's fallback (z = c_0 X_0, then
// z = c_k X_k + z for k = 1, 2, ...), in one pass instead of one per term. X_0 may be z; a later
// X_k that is z would be read after the fallback had overwritten it, so that case keeps the
// fallback's passes.
int linear_combination(int count, realtype* c, N_Vector* X, N_Vector z) {
  if (count < 1) return -1;  // as the library's serial fused operation answers
  for (int k = 1; k < count; ++k) {
    if (X[k] == z) {
      scale(c[0], X[0], z);
      for (int j = 1; j < count; ++j) linear_sum(c[j], X[j], 1.0, z, z);
      return 0;
    }
  }
  const sunindextype n = length(z);
  realtype* zd = data(z);
  if (count == 1) {
    scale(c[0], X[0], z);
    return 0;
  }
  // Two terms at a time keep the pass count low without a per-entry loop over the terms.
  const realtype* x0 = data(X[0]);
  const realtype* x1 = data(X[1]);
  for (sunindextype i = 0; i < n; ++i) zd[i] = c[1] * x1[i] + c[0] * x0[i];
  int k = 2;
  for (; k + 1 < count; k += 2) {
    const realtype* xa = data(X[k]);
    const realtype* xb = data(X[k + 1]);
    const realtype ca = c[k];
    const realtype cb = c[k + 1];
    for (sunindextype i = 0; i < n; ++i) zd[i] = cb * xb[i] + (ca * xa[i] + zd[i]);
  }
  if (k < count) {
    const realtype* xa = data(X[k]);
    const realtype ca = c[k];
    for (sunindextype i = 0; i < n; ++i) zd[i] = ca * xa[i] + zd[i];
  }
  return 0;
}

// Z_k = a_k x + Y_k, in the order of the library's fallback (Z_k may be x, which later k then
// read as the fallback does). Its linear_sum(a_k, x, 1, Y_k, Z_k) gives the bits of a_k x + Y_k
// in every special case.
int scale_add_multi(int count, realtype* a, N_Vector x, N_Vector* Y, N_Vector* Z) {
  const sunindextype n = length(x);
  const realtype* xd = data(x);
  for (int k = 0; k < count; ++k) {
    const realtype* yd = data(Y[k]);
    realtype* zd = data(Z[k]);
    const realtype ak = a[k];
    for (sunindextype i = 0; i < n; ++i) zd[i] = ak * xd[i] + yd[i];
  }
  return 0;
}

int dot_product_multi(int count, N_Vector x, N_Vector* Y, realtype* products) {
  for (int k = 0; k < count; ++k) products[k] = dot_product(x, Y[k]);
  return 0;
}

// sqrt(sum (x_i w_i)^2 / n), CVODE's error norm, once per Newton iteration.
realtype weighted_rms_norm(N_Vector x, N_Vector w) {
  const realtype* xd = data(x);
  const realtype* wd = data(w);
  const sunindextype n = length(x);
  const realtype sum = four_way_sum(n, [xd, wd](sunindextype i) {
    const realtype weighted = xd[i] * wd[i];
    return weighted * weighted;
  });
  return std::sqrt(sum / static_cast<realtype>(n));
}

}  // namespace

void install_fast_serial_operations(N_Vector v) {
  N_Vector_Ops ops = v->ops;
  ops->nvlinearsum = &linear_sum;
  ops->nvconst = &constant;
  ops->nvprod = &product;
  ops->nvdiv = &quotient;
  ops->nvscale = &scale;
  ops->nvabs = &absolute;
  ops->nvinv = &inverse;
  ops->nvaddconst = &add_constant;
  ops->nvcompare = &compare;
  ops->nvdotprod = &dot_product;
  ops->nvwrmsnorm = &weighted_rms_norm;
  ops->nvlinearcombination = &linear_combination;
  ops->nvscaleaddmulti = &scale_add_multi;
  ops->nvdotprodmulti = &dot_product_multi;
}

}  // namespace hybridsim::sundials
