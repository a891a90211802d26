#include "counting_allocator.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
}  // namespace

#ifndef HYBRIDSIM_SANITIZER_BUILD
// The sanitizers replace malloc themselves (and GCC 12's runtime installs no allocation hooks):
// sanitizer builds count nothing, and the allocation tests check only in the other builds.

// Eigen allocates with malloc and realloc, not operator new: the C allocation functions are
// replaced too (glibc lets a program interpose them) and forward to glibc's own allocator, whose
// free() then releases the memory as usual.
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);

void* malloc(std::size_t size) noexcept {
  if (counting) ++allocations;
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  if (counting) ++allocations;
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) noexcept {
  if (counting) ++allocations;
  return __libc_realloc(p, size);
}
}

void* operator new(std::size_t size) {
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;  // counted by malloc
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

#endif  // HYBRIDSIM_SANITIZER_BUILD

namespace hybridsim::testing {

void start_counting_allocations() {
  allocations = 0;
  counting = true;
}

long stop_counting_allocations() {
  counting = false;
  return allocations;
}

}  // namespace hybridsim::testing
