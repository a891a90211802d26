// A host's own hybrid ODE integrated by hybridsim: a room heated by a thermostat.
//
//   T' = -k (T - T_out) + (heater on ? h : 0)
//
// The heater switches off when T rises through T_high and on when T falls through T_low: one
// crossing function per switch, each active in its own mode, and the mode is the discrete state
// that the event handler changes. Between switches T relaxes exponentially towards
// E = T_out + h/k (on) or T_out (off), so each switch time has a closed form:
//   t_next = t + ln((T_start - E) / (T_end - E)) / k.
// The example checks the first ten switch times against it (to 1e-8 s) and exits non-zero if not.
#include <cmath>
#include <cstdio>
#include <vector>

#include "hybridsim/hybridsim.hpp"

namespace {

constexpr double k = 0.1;         // 1/s, heat loss rate
constexpr double t_out = 10.0;    // deg C, outside temperature
constexpr double h = 3.0;         // K/s, heating rate
constexpr double t_low = 19.0;    // deg C, switch on below
constexpr double t_high = 21.0;   // deg C, switch off above
constexpr double t_start = 15.0;  // deg C, at t = 0, heater on

class Thermostat final : public hybridsim::HybridSystem {
 public:
  int state_size() const override { return 1; }
  void initial_state(hybridsim::VectorRef x0) const override { x0[0] = t_start; }
  hybridsim::EventOutcome initialize(double, hybridsim::VectorRef) override {
    heater_on_ = true;
    return {};
  }
  void compute_derivatives(double, hybridsim::ConstVectorRef x,
                           hybridsim::VectorRef xdot) override {
    ++rhs_count_;
    xdot[0] = -k * (x[0] - t_out) + (heater_on_ ? h : 0.0);
  }
  int crossing_count() const override { return 2; }
  // Both rise through zero at their switch.
  std::vector<int> crossing_directions() const override { return {+1, +1}; }
  void compute_crossings(double, hybridsim::ConstVectorRef x, hybridsim::VectorRef z) override {
    // The inactive one is held at -1 so it cannot trigger.
    z[0] = heater_on_ ? x[0] - t_high : -1.0;
    z[1] = heater_on_ ? -1.0 : t_low - x[0];
  }
  hybridsim::EventOutcome handle_state_event(double t, hybridsim::VectorRef,
                                             std::span<const int> roots) override {
    if (roots[0] != 0 || roots[1] != 0) heater_on_ = !heater_on_;
    switch_times.push_back(t);
    return {};
  }
  long rhs_evaluation_count() const override { return rhs_count_; }

  std::vector<double> switch_times;

 private:
  bool heater_on_ = true;
  long rhs_count_ = 0;
};

}  // namespace

int main() {
  Thermostat room;
  hybridsim::SimulationOptions options;
  options.stop_time = 40.0;
  options.output_interval = 0.0;
  options.integrator.rtol = 1e-11;
  options.integrator.atol = 1e-11;
  hybridsim::Simulator simulator(room, options, "cvode-bdf");
  const hybridsim::AdvanceResult result = simulator.advance_to(options.stop_time);
  if (result.status != hybridsim::SimulationStatus::ok) {
    std::fprintf(stderr, "thermostat: %s\n", simulator.status_message().c_str());
    return 1;
  }

  // The closed-form switch times.
  std::vector<double> expected;
  double t = 0.0, temperature = t_start;
  bool on = true;
  while (true) {
    const double equilibrium = on ? t_out + h / k : t_out;
    const double end = on ? t_high : t_low;
    t += std::log((temperature - equilibrium) / (end - equilibrium)) / k;
    if (t > options.stop_time) break;
    expected.push_back(t);
    temperature = end;
    on = !on;
  }

  double worst = 0.0;
  const std::size_t count = std::min(expected.size(), room.switch_times.size());
  for (std::size_t i = 0; i < count; ++i) {
    worst = std::fmax(worst, std::abs(room.switch_times[i] - expected[i]));
  }
  std::printf(
      "thermostat: %zu switches (expected %zu), first at %.10f s (closed form %.10f s), "
      "largest error %.2e s, %ld steps\n",
      room.switch_times.size(), expected.size(),
      room.switch_times.empty() ? NAN : room.switch_times[0], expected[0], worst,
      simulator.statistics().stats.steps);
  // rtol = atol = 1e-11 on T ~ 20 over ~10 switches: the event times are good to ~1e-9 s; 1e-8 s
  // leaves a margin and still catches any error in the event location or the restarts.
  const bool ok = room.switch_times.size() == expected.size() && worst < 1e-8;
  return ok ? 0 : 1;
}
