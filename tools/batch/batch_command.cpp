#include "tools/batch/batch_command.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "tools/batch/batch_output.hpp"
#include "tools/batch/mpi_session.hpp"

namespace hybridsim {
namespace fs = std::filesystem;
using batch::Row;

namespace {

batch::Slice parse_shard(const std::string& shard) {
  batch::Slice slice;
  char extra = 0;
  if (std::sscanf(shard.c_str(), "%d/%d%c", &slice.index, &slice.count, &extra) != 2 ||
      slice.count < 1 || slice.index < 0 || slice.index >= slice.count) {
    throw InputError(fmt::format("--shard {}: expected i/N with 0 <= i < N", shard));
  }
  return slice;
}

void print_summary(const std::vector<Row>& rows, const std::string& directory) {
  std::size_t failed = 0;
  for (const Row& row : rows) failed += row["status"] != "ok" ? 1 : 0;
  std::cout << fmt::format("batch: {} runs, {} not ok; results in {}\n", rows.size(), failed,
                           directory);
}

void finish_outputs(const std::string& directory, bool plots, bool quiet) {
  if (plots && batch::make_plots(directory) && !quiet) {
    std::cout << fmt::format("batch: plots in {}/plots, report {}/report.md\n", directory,
                             directory);
  }
}

}  // namespace

int batch_command(const BatchCommandOptions& options, int* argc, char*** argv) {
  std::unique_ptr<batch::MpiSession> session;
  try {
    session = std::make_unique<batch::MpiSession>(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << fmt::format("hybridsim batch: {}\n", error.what());
    return 2;
  }
  batch::MpiSession& mpi = *session;
  std::vector<Row> rows;
  batch::Experiment experiment;
  std::vector<batch::RunSpec> runs;
  batch::RunnerOptions runner;
  bool succeeded = true;
  try {
    experiment = batch::load_experiment(options.experiment);
    runs = batch::expand_runs(experiment);
    runner.jobs = options.jobs;
    if (options.jobs < 1) throw InputError(fmt::format("-j {}: needs at least 1", options.jobs));
    if (!options.shard.empty()) runner.slice = parse_shard(options.shard);
    if (mpi.size() > 1) {
      if (!options.shard.empty()) throw InputError("--shard and mpirun do not combine");
      runner.slice = {mpi.rank(), mpi.size()};
    }
    runner.cache_directory = (fs::path(options.out_directory) / "reference-cache").string();
    runner.progress =
        mpi.rank() == 0 && (options.progress || (!options.quiet && isatty(STDERR_FILENO) != 0));
    rows = batch::run_slice(experiment, runs, runner);
  } catch (const std::exception& error) {
    std::cerr << fmt::format("hybridsim batch{}: {}\n",
                             mpi.size() > 1 ? fmt::format(" (rank {})", mpi.rank()) : "",
                             error.what());
    succeeded = false;
  }
  if (!mpi.all_succeeded(succeeded)) return 2;
  rows = mpi.gather(rows);
  const bool writer = mpi.rank() == 0;
  mpi.finalize();
  if (!writer) return 0;
  try {
    batch::ResultHeader header{experiment.name, experiment.source, static_cast<int>(runs.size()),
                               mpi.size() > 1 ? batch::Slice{} : runner.slice};
    batch::write_results(options.out_directory, header, rows);
    if (!options.quiet) print_summary(rows, options.out_directory);
    // A shard's plots would show a part; the merged set gets them.
    finish_outputs(options.out_directory, options.plots && header.slice.count == 1, options.quiet);
  } catch (const std::exception& error) {
    std::cerr << fmt::format("hybridsim batch: {}\n", error.what());
    return 2;
  }
  return 0;
}

int batch_merge_command(const MergeCommandOptions& options) {
  try {
    if (options.inputs.empty()) throw InputError("batch-merge: give the shards' result folders");
    batch::ResultHeader merged;
    std::vector<Row> rows;
    std::set<int> slices;
    std::set<int> indices;
    for (const std::string& input : options.inputs) {
      auto [header, shard_rows] = batch::read_results(input);
      if (slices.empty()) {
        merged = header;
      } else if (header.experiment != merged.experiment || header.total_runs != merged.total_runs ||
                 header.slice.count != merged.slice.count) {
        throw InputError(fmt::format(
            "{}: experiment '{}' ({} runs, slice {}/{}) does not match '{}' ({} runs, {} slices)",
            input, header.experiment, header.total_runs, header.slice.index, header.slice.count,
            merged.experiment, merged.total_runs, merged.slice.count));
      }
      if (!slices.insert(header.slice.index).second) {
        throw InputError(fmt::format("{}: slice {}/{} given twice", input, header.slice.index,
                                     header.slice.count));
      }
      for (Row& row : shard_rows) {
        indices.insert(row["index"].get<int>());
        rows.push_back(std::move(row));
      }
    }
    if (static_cast<int>(slices.size()) != merged.slice.count ||
        static_cast<int>(indices.size()) != merged.total_runs ||
        static_cast<int>(rows.size()) != merged.total_runs) {
      throw InputError(fmt::format("batch-merge: {} of {} slices with {} of {} runs: incomplete",
                                   slices.size(), merged.slice.count, rows.size(),
                                   merged.total_runs));
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      return a["index"].get<int>() < b["index"].get<int>();
    });
    merged.slice = {};
    batch::write_results(options.out_directory, merged, rows);
    print_summary(rows, options.out_directory);
    finish_outputs(options.out_directory, options.plots, false);
  } catch (const std::exception& error) {
    std::cerr << fmt::format("hybridsim batch-merge: {}\n", error.what());
    return 2;
  }
  return 0;
}

}  // namespace hybridsim
