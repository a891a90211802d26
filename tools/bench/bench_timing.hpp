// Timing for the in-process benchmarks: the median of 11 rounds after a warm-up round.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace hybridsim::bench {

// Microseconds per call of body(i), i = 0 .. calls - 1: the median over 11 rounds of `calls`
// calls, after one round that warms caches and is not counted.
template <typename Body>
double median_us(Body&& body, int calls) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> rounds;
  for (int round = 0; round < 12; ++round) {
    const auto start = Clock::now();
    for (int i = 0; i < calls; ++i) body(i);
    if (round == 0) continue;  // warm-up
    rounds.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
                     calls);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace hybridsim::bench
