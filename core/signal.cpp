#include "core/signal.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace hybridsim {

Vec3 evaluate_signal(const Signal& signal, double t) {
  switch (signal.kind) {
    case Signal::Kind::constant:
      return signal.value;
    case Signal::Kind::step:
      return t < signal.time ? signal.before : signal.after;
    case Signal::Kind::ramp: {
      if (t <= signal.time) return signal.before;
      if (t >= signal.time + signal.duration) return signal.after;
      const double fraction = (t - signal.time) / signal.duration;
      return signal.before + fraction * (signal.after - signal.before);
    }
    case Signal::Kind::sine:
      return signal.offset +
             signal.amplitude *
                 std::sin(2.0 * std::numbers::pi * signal.frequency * t + signal.phase);
    case Signal::Kind::table: {
      const auto& times = signal.times;
      if (t <= times.front()) return signal.values.front();
      if (t >= times.back()) return signal.values.back();
      const auto upper = std::upper_bound(times.begin(), times.end(), t);
      const auto i = static_cast<std::size_t>(upper - times.begin());
      const double fraction = (t - times[i - 1]) / (times[i] - times[i - 1]);
      return signal.values[i - 1] + fraction * (signal.values[i] - signal.values[i - 1]);
    }
  }
  return Vec3::Zero();
}

Vec3 evaluate_signal_rate(const Signal& signal, double t) {
  switch (signal.kind) {
    case Signal::Kind::constant:
    case Signal::Kind::step:
      return Vec3::Zero();
    case Signal::Kind::ramp:
      if (t < signal.time || t >= signal.time + signal.duration) return Vec3::Zero();
      return (signal.after - signal.before) / signal.duration;
    case Signal::Kind::sine: {
      const double rate = 2.0 * std::numbers::pi * signal.frequency;
      return signal.amplitude * rate * std::cos(rate * t + signal.phase);
    }
    case Signal::Kind::table: {
      const auto& times = signal.times;
      if (t < times.front() || t >= times.back()) return Vec3::Zero();
      const auto upper = std::upper_bound(times.begin(), times.end(), t);
      const auto i = static_cast<std::size_t>(upper - times.begin());
      return (signal.values[i] - signal.values[i - 1]) / (times[i] - times[i - 1]);
    }
  }
  return Vec3::Zero();
}

double next_signal_breakpoint(const Signal& signal, double t) {
  switch (signal.kind) {
    case Signal::Kind::constant:
    case Signal::Kind::sine:
      return kInfinity;
    case Signal::Kind::step:
      return signal.time > t ? signal.time : kInfinity;
    case Signal::Kind::ramp:
      if (signal.time > t) return signal.time;
      if (signal.time + signal.duration > t) return signal.time + signal.duration;
      return kInfinity;
    case Signal::Kind::table: {
      const auto upper = std::upper_bound(signal.times.begin(), signal.times.end(), t);
      return upper == signal.times.end() ? kInfinity : *upper;
    }
  }
  return kInfinity;
}

}  // namespace hybridsim
