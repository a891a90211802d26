// The files `hybridsim run` writes (spec/outputs.md): trajectory CSV, events JSON lines, summary
// JSON, and the human event log; plus the progress bar.
#pragma once

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "integrators/hybrid_loop.hpp"
#include "models/multibody_system.hpp"

namespace hybridsim {

struct RunOutputs {
  std::string trajectory_path;  // empty: none
  std::string events_path;
  std::string contacts_path;  // contact results per pair in contact, at each output
  bool log_events = false;    // human log on stdout
  // Trajectory columns, after the wheels': per joint <joint>.fx .fy .fz .tx .ty .tz (the wrench on
  // its child at the child's anchor, W), then per bilateral contact <name>.on and the same six.
  bool constraint_wrenches = false;
  // Contacts CSV columns, last: tangent1_x .. tangent2_z, mu, mu2 (the friction law's frame).
  bool contact_frames = false;
  bool progress = false;  // progress bar on stderr
};

// Observes a run and writes every output as it comes, so that a run that stops early keeps what
// it computed.
class RunWriter final : public SimulationObserver {
 public:
  RunWriter(MultibodySystem& system, const RunOutputs& outputs, double start_time,
            double stop_time);
  ~RunWriter() override;

  void on_output(double t, const VectorX& x) override;
  void on_event(const EventInstant& instant, const VectorX& x) override;
  // Flushes the files; returns the paths of those that could not be written in full (a full
  // disk, a closed pipe).
  std::vector<std::string> finish();

  double initial_energy() const { return initial_energy_; }
  // A resumed run: the energy at the original start (the first output here is a later one).
  void set_initial_energy(double energy) {
    initial_energy_ = energy;
    have_initial_energy_ = true;
  }

 private:
  void write_trajectory_row(double t, const VectorX& x);
  std::vector<MultibodySystem::ConstraintWrench> constraint_wrenches_;  // per joint, bilateral
  void write_contact_rows(double t, const VectorX& x);
  void update_progress(double t);

  MultibodySystem& system_;
  RunOutputs outputs_;
  std::ofstream trajectory_;
  std::ofstream events_;
  std::ofstream contacts_;
  double start_time_;
  double stop_time_;
  double initial_energy_ = kNaN;
  bool have_initial_energy_ = false;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_progress_;
  bool progress_shown_ = false;
};

// The summary JSON of a finished run.
// The summary's "stats": the run's counters (spec/outputs.md).
nlohmann::json make_stats(const SimulationResult& result);
nlohmann::json make_summary(MultibodySystem& system, const SimulationOptions& options,
                            const std::string& integrator, const SimulationResult& result,
                            const VectorX& final_state, double initial_energy, double wall_time);

}  // namespace hybridsim
