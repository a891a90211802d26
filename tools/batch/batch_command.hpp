// `hybridsim batch EXPERIMENT.yaml` and `hybridsim batch-merge` (docs/batch.md).
#pragma once

#include <string>
#include <vector>

namespace hybridsim {

struct BatchCommandOptions {
  std::string experiment;
  std::string out_directory = "batch-results";
  int jobs = 1;       // worker threads per process
  std::string shard;  // "i/N": this process runs slice i of N; empty: all (or the MPI rank's)
  bool progress = false;
  bool quiet = false;
  bool plots = true;
};

// Runs the experiment (under mpirun: spread over the ranks, gathered on rank 0) and writes the
// result set; returns the exit status (0 done, also with failed runs; 2 bad input).
int batch_command(const BatchCommandOptions& options, int* argc, char*** argv);

struct MergeCommandOptions {
  std::vector<std::string> inputs;  // result folders of the shards
  std::string out_directory = "batch-results";
  bool plots = true;
};

// Joins shard result sets into one; refuses sets of different experiments, overlapping or
// missing slices.
int batch_merge_command(const MergeCommandOptions& options);

}  // namespace hybridsim
