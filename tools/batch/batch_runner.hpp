// Runs the configurations of an experiment that belong to one slice (a shard, an MPI rank, or
// all of them) on N worker threads, each run compared with its scene's reference, and returns
// one row per run. The rows depend only on the experiment (apart from the timing columns),
// whichever way the runs are spread.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/batch/experiment.hpp"

namespace hybridsim::batch {

using Row = nlohmann::ordered_json;

struct Slice {
  int index = 0;  // runs configurations c with c % count == index
  int count = 1;
};

struct RunnerOptions {
  int jobs = 1;  // worker threads
  Slice slice;
  std::string cache_directory;  // reference cache; empty: none on disk
  bool progress = false;        // progress bar on stderr
};

// The rows of the slice's runs, ordered by run index.
std::vector<Row> run_slice(const Experiment& experiment, const std::vector<RunSpec>& runs,
                           const RunnerOptions& options);

// The columns of a row, in order (docs/batch.md); the timing columns are listed separately.
const std::vector<std::string>& row_columns();
const std::vector<std::string>& timing_columns();

}  // namespace hybridsim::batch
