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

// Seconds of wall time since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The median of a non-empty set of values (the upper one of an even count).
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace hybridsim::bench
