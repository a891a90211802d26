// What a replay shows of a run: body poses over time, events and contact forces. Recorded while a
// run goes (ReplayRecorder) or read back from a run's files (read_replay_recording); the replay
// page and the glTF export are written from it.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "integrators/simulation.hpp"
#include "models/multibody_system.hpp"

namespace hybridsim {

// A body's pose: position of its origin in W (m) and orientation q_WB (w, x, y, z).
using BodyPose = std::array<double, 7>;

struct ReplayRecording {
  // Full frames, at the output times: every body's pose (Model::bodies order, fixed ones too).
  std::vector<double> frame_times;                 // s, increasing
  std::vector<std::vector<BodyPose>> frame_poses;  // [frame][body]
  // Per full frame the contact points with their forces on B (empty when not recorded).
  struct ContactArrow {
    Vec3 point_W = Vec3::Zero();           // m
    Vec3 normal_force_W = Vec3::Zero();    // N, along the normal from A to B
    Vec3 friction_force_W = Vec3::Zero();  // N, tangential
  };
  std::vector<std::vector<ContactArrow>> frame_contacts;
  bool has_contacts = false;
  // Event keys: at each event instant the poses of the bodies the event names (the two bodies of
  // a contact or bilateral contact), so that an impact is shown where it happened even between
  // output frames.
  struct BodyKey {
    double t = 0.0;  // s
    int body = -1;   // Model::bodies index
    BodyPose pose{};
  };
  std::vector<BodyKey> event_keys;
  // Every event record, in order: its time, kind and line of the events file.
  struct Event {
    double t = 0.0;
    std::string kind;
    std::string line;  // the record as in events.jsonl
  };
  std::vector<Event> events;
  // Warnings raised during the run (the summary's "warnings"), on the timeline.
  std::vector<Event> warnings;
};

// One body's keyframes in time order: its poses at the frames and at its event keys (a key at a
// frame's time replaces the frame's pose).
std::vector<ReplayRecording::BodyKey> body_track(const ReplayRecording& recording, int body);

// The pose of every body at state x (fixed bodies at their scene pose).
std::vector<BodyPose> body_poses(const Model& model, ConstVectorRef x);

// The bodies an event record names (contact: the bodies of its two shapes; bilateral: its two).
std::vector<int> event_bodies(const Model& model, const nlohmann::json& record);

// Records a run as it goes; contacts at output times when record_contacts.
class ReplayRecorder {
 public:
  ReplayRecorder(MultibodySystem& system, bool record_contacts)
      : system_(system), record_contacts_(record_contacts) {}
  void on_output(double t, const VectorX& x);
  // One event record with its line in the events file, at state x.
  void on_event_record(const nlohmann::json& record, const VectorX& x);
  // A warning of the run: {"t", "kind", "message"}.
  void on_warning(const nlohmann::json& warning);
  const ReplayRecording& recording() const { return recording_; }

 private:
  MultibodySystem& system_;
  bool record_contacts_;
  ReplayRecording recording_;
};

// Reads a run's files back: the trajectory CSV (its rows at event times give event keys, the
// others full frames), and where given the events JSON lines, the contacts CSV and the summary
// JSON (its warnings). Errors name the file, line and column.
ReplayRecording read_replay_recording(const Model& model, const std::string& trajectory_path,
                                      const std::string& events_path,
                                      const std::string& contacts_path,
                                      const std::string& summary_path);

}  // namespace hybridsim
