// A global operator new that counts allocations while counting is on (tests of allocation-free
// hot paths). Defined in counting_allocator.cpp, replacing the default for the test binary.
#pragma once

namespace hybridsim::testing {

void start_counting_allocations();
long stop_counting_allocations();  // the number of allocations since start

}  // namespace hybridsim::testing
