// Checkpoint files of `hybridsim run --checkpoint FILE` and `--resume FILE` (spec/outputs.md): a
// long run writes where it stands, after an event, every so many seconds of wall time; another
// process goes on from there. JSON, every number written so that it reads back bit for bit.
#pragma once

#include <chrono>
#include <string>

#include "core/model.hpp"
#include "integrators/hybrid_loop.hpp"

namespace hybridsim {

struct CheckpointFile {
  Checkpoint checkpoint;
  double wall_time_s = 0.0;     // of the processes that ran up to the checkpoint
  double initial_energy = 0.0;  // J, at the run's start
};

// Writes atomically (a temporary beside the file, then a rename): a reader never sees half a
// checkpoint, and a crash while writing keeps the one before. Throws InputError if the file
// cannot be written.
void write_checkpoint_file(const std::string& path, const Model& model, const CheckpointFile& file);
// Reads a file written for the same scene; throws InputError naming the file, the key and the
// value that is wrong (another scene, another state size, a malformed entry).
CheckpointFile read_checkpoint_file(const std::string& path, const Model& model);

// Writes a checkpoint at the first event after every `interval_s` seconds of wall time.
class CheckpointFileWriter final : public CheckpointSink {
 public:
  CheckpointFileWriter(std::string path, const Model& model, double interval_s,
                       double wall_time_before_s, double initial_energy);
  bool checkpoint_due(double t) override;
  void write_checkpoint(const Checkpoint& checkpoint) override;
  void set_initial_energy(double energy) { initial_energy_ = energy; }
  long written() const { return written_; }

 private:
  std::string path_;
  const Model& model_;
  double interval_s_;
  double wall_time_before_s_;
  double initial_energy_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_written_;
  long written_ = 0;
};

}  // namespace hybridsim
