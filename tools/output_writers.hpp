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
#include "tools/hdf5_trajectory.hpp"
#include "tools/output_file.hpp"
#include "tools/progress_bar.hpp"
#include "tools/replay/replay_recording.hpp"
#include "tools/trajectory_columns.hpp"

namespace hybridsim {

struct RunOutputs {
  std::string trajectory_path;  // empty: none
  std::string events_path;
  std::string contacts_path;  // contact results per pair in contact, at each output
  bool log_events = false;    // human log on stdout
  // Trajectory columns, after the wheels': per joint <joint>.fx .fy .fz .tx .ty .tz (the wrench on
  // its child at the child's anchor, W), then per bilateral contact <name>.on and the same six.
  bool constraint_wrenches = false;
  TrajectorySelection trajectory;  // which columns and rows (all by default)
  bool trajectory_hdf5 = false;    // the trajectory and the events as HDF5 (hdf5_trajectory.hpp)
  // Contacts CSV columns, last: tangent1_x .. tangent2_z, mu, mu2 (the friction law's frame).
  bool contact_frames = false;
  bool progress = false;  // progress bar on stderr
  bool quiet = false;     // warnings are not printed on stderr (the summary keeps them)
  // Diagnostics CSV at each output: energy in parts, contact count, steps and step size.
  std::string diagnostics_path;
  bool record_replay = false;  // keep poses, events and contact forces for a replay or glTF
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
  // Kept for the summary, recorded for the replay, printed on stderr unless RunOutputs::quiet.
  void on_warning(const Warning& warning) override;
  // Flushes the files; returns the paths of those that could not be written in full (a full
  // disk, a closed pipe).
  std::vector<std::string> finish();

  double initial_energy() const { return initial_energy_; }
  // Where the loop publishes its time for the progress bar (SimulationOptions::progress_time);
  // null without one.
  std::atomic<double>* progress_time() { return progress_ ? progress_->time() : nullptr; }
  // Where the diagnostics read the integrator's step count (the loop, once it exists).
  void set_step_source(const HybridLoop* loop) { loop_ = loop; }
  // The warnings of the run (the summary's "warnings"), as the library raised them: degenerate
  // meshes ("degenerate_mesh"), initial overlaps ("initial_overlap"), "stiff_contact",
  // "energy_rise", "stall".
  const nlohmann::json& warnings() const { return warnings_; }
  // The run so far, when RunOutputs::record_replay.
  const ReplayRecording& replay_recording() const { return recorder_.recording(); }
  // A resumed run: the energy at the original start (the first output here is a later one).
  void set_initial_energy(double energy) {
    initial_energy_ = energy;
    have_initial_energy_ = true;
  }

 private:
  void write_trajectory_row(double t, const VectorX& x);
  std::vector<MultibodySystem::ConstraintWrench> constraint_wrenches_;  // per joint, bilateral
  std::vector<double> trajectory_values_;         // one row's, every column but t, reused
  std::vector<std::size_t> trajectory_selected_;  // the columns of trajectory_values_ written
  std::unique_ptr<TrajectoryTable> hdf5_;         // in place of trajectory_ with trajectory_hdf5
  std::vector<double> hdf5_row_;                  // t and the selected columns, reused
  bool writes_trajectory() const { return trajectory_.is_open() || hdf5_ != nullptr; }
  double last_event_row_time_ = -kInfinity;  // of the last event row written (the rate cap)
  void write_contact_rows(double t, const VectorX& x);
  void write_diagnostics_row(double t, const VectorX& x);

  MultibodySystem& system_;
  RunOutputs outputs_;
  OutputFile trajectory_;
  OutputFile events_;
  OutputFile contacts_;
  double initial_energy_ = kNaN;
  bool have_initial_energy_ = false;
  std::unique_ptr<ProgressBar> progress_;  // when RunOutputs::progress
  OutputFile diagnostics_;
  const HybridLoop* loop_ = nullptr;
  double last_diagnostics_time_ = kNaN;
  long last_diagnostics_steps_ = 0;
  ReplayRecorder recorder_;
  nlohmann::json warnings_ = nlohmann::json::array();
};

// The line of an event record in the events file.
nlohmann::json event_record_json(const EventRecord& record);

// The summary JSON of a finished run.
// The summary's "stats": the run's counters (spec/outputs.md).
nlohmann::json make_stats(const SimulationResult& result);
nlohmann::json make_summary(MultibodySystem& system, const SimulationOptions& options,
                            const std::string& integrator, const SimulationResult& result,
                            const VectorX& final_state, double initial_energy, double wall_time);

}  // namespace hybridsim
