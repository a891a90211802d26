// Wall-time bounds in tests are figures of the Release build. The sanitised build
// (tools/sanitize.sh: AddressSanitizer and UBSan, -O2, no link-time optimisation) runs the same
// work about 5 to 10 times slower, so there the bounds stretch by kWallTimeScale.
#pragma once

namespace hybridsim::testing {

#ifdef HYBRIDSIM_SANITIZER_BUILD
inline constexpr double kWallTimeScale = 10.0;
#else
inline constexpr double kWallTimeScale = 1.0;
#endif

}  // namespace hybridsim::testing
