// Relative comparison for the tests: CHECK(a == relative(b, tol)) holds when
// |a - b| <= tol max(|a|, |b|). (doctest's Approx is absolute below magnitude 1 and strict, so it
// neither scales to small quantities nor accepts exact zeros.)
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace hybridsim::testing {

struct Relative {
  double expected;
  double tolerance;
};

inline Relative relative(double expected, double tolerance) {
  return {expected, tolerance};
}

inline bool operator==(double actual, const Relative& r) {
  return std::abs(actual - r.expected) <=
         r.tolerance * std::max(std::abs(actual), std::abs(r.expected));
}

}  // namespace hybridsim::testing

template <>
struct doctest::StringMaker<hybridsim::testing::Relative> {
  static String convert(const hybridsim::testing::Relative& r) {
    std::ostringstream text;
    text.precision(17);
    text << r.expected << " (relative " << r.tolerance << ")";
    return text.str().c_str();
  }
};
