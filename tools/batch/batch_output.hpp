// The result set of a batch (docs/batch.md): results.csv and results.json in an output folder,
// read back for merging; and the work-precision plots and report, made by tools/plot_batch.py.
#pragma once

#include <string>
#include <vector>

#include "tools/batch/batch_runner.hpp"

namespace hybridsim::batch {

struct ResultHeader {
  std::string experiment;  // its name
  std::string source;      // the experiment file
  int total_runs = 0;      // runs of the whole experiment
  Slice slice;             // the part these rows are (count 1: all)
};

// Writes DIR/results.csv and DIR/results.json (creating DIR); InputError if it cannot.
void write_results(const std::string& directory, const ResultHeader& header,
                   const std::vector<Row>& rows);

// Reads DIR/results.json; InputError naming the file if it is missing or not a result set.
std::pair<ResultHeader, std::vector<Row>> read_results(const std::string& directory);

// Runs the plot script on DIR: plots/<scene>.png and .svg per scene and parameter set, and
// report.md. Returns false (having printed why on stderr) if it could not.
bool make_plots(const std::string& directory);

}  // namespace hybridsim::batch
