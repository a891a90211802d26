// A global malloc (and operator new through it) that counts allocations while counting is on
// (tests of allocation-free hot paths, Eigen's included). Defined in counting_allocator.cpp,
// replacing the defaults for the test binary.
#pragma once

namespace hybridsim::testing {

// False in sanitizer builds, whose runtime replaces malloc: there the counter always reads 0.
constexpr bool kCountingAllocations =
#ifdef HYBRIDSIM_SANITIZER_BUILD
    false;
#else
    true;
#endif

void start_counting_allocations();
long stop_counting_allocations();  // the number of allocations since start

}  // namespace hybridsim::testing
