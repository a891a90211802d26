#include "tools/batch/batch_runner.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "integrators/run_counters.hpp"
#include "models/scene_loader.hpp"
#include "tools/batch/trajectory.hpp"

namespace hybridsim::batch {
namespace fs = std::filesystem;
namespace {

// NaN (a measure that does not apply) is null in JSON and empty in CSV.
nlohmann::ordered_json number_or_null(double value) {
  return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

std::string read_text(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Loaded scenes and computed references, shared by the workers: each is made once, by the
// first worker that needs it, while the others wait for it.
class SharedInputs {
 public:
  SharedInputs(const Experiment& experiment, std::string cache_directory)
      : experiment_(experiment), cache_directory_(std::move(cache_directory)) {}

  std::shared_ptr<const Model> model(int scene, const std::vector<std::string>& overrides) {
    const std::string key = fmt::format("{}|{}", scene, fmt::join(overrides, "|"));
    return once(models_, key, [&] {
      return std::make_shared<const Model>(
          load_scene_file(experiment_.scenes[scene].path, overrides));
    });
  }

  std::shared_ptr<const Trajectory> reference(int scene, const std::vector<std::string>& overrides,
                                              double stop_time) {
    const SceneChoice& choice = experiment_.scenes[scene];
    const ReferenceChoice& r = choice.reference;
    // Everything the reference depends on, the scene file's text included.
    const std::string key =
        fmt::format("{}\n{}\n{}\n{:.17g} {} {} {:.17g} {:.17g} {} {} {:.17g} {}\n{}", choice.path,
                    fmt::join(overrides, "|"), read_text(choice.path), stop_time,
                    experiment_.grid_points, r.integrator, r.rtol, r.atol, r.table, r.linear_solver,
                    r.step_size, r.closed_form, kCacheVersion);
    return once(references_, key,
                [&] { return compute_reference(scene, overrides, stop_time, key); });
  }

 private:
  static constexpr int kCacheVersion = 1;

  template <typename T, typename Make>
  std::shared_ptr<const T> once(
      std::map<std::string, std::shared_future<std::shared_ptr<const T>>>& store,
      const std::string& key, Make make) {
    std::promise<std::shared_ptr<const T>> promise;
    std::shared_future<std::shared_ptr<const T>> future;
    bool maker = false;
    {
      std::lock_guard lock(mutex_);
      auto found = store.find(key);
      if (found == store.end()) {
        future = promise.get_future().share();
        store.emplace(key, future);
        maker = true;
      } else {
        future = found->second;
      }
    }
    if (maker) {
      try {
        promise.set_value(make());
      } catch (...) {
        promise.set_exception(std::current_exception());
      }
    }
    return future.get();
  }

  std::shared_ptr<const Trajectory> compute_reference(int scene,
                                                      const std::vector<std::string>& overrides,
                                                      double stop_time, const std::string& key) {
    const std::string file = cache_directory_.empty()
                                 ? std::string()
                                 : (fs::path(cache_directory_) /
                                    fmt::format("{:016x}.json", std::hash<std::string>{}(key)))
                                       .string();
    if (!file.empty() && fs::is_regular_file(file)) {
      try {
        const nlohmann::json cached = nlohmann::json::parse(std::ifstream(file));
        if (cached.at("key").get<std::string>() == key) {
          return std::make_shared<const Trajectory>(trajectory_from_json(cached.at("trajectory")));
        }
      } catch (const std::exception&) {
        // A damaged cache file is recomputed and replaced.
      }
    }
    const ReferenceChoice& r = experiment_.scenes[scene].reference;
    if (r.closed_form) {
      // Exact: cheap to evaluate, so never cached.
      return std::make_shared<const Trajectory>(
          sample_closed_form(*model(scene, overrides), stop_time, experiment_.grid_points));
    }
    IntegratorSettings settings{.rtol = r.rtol,
                                .atol = r.atol,
                                .table = r.table,
                                .linear_solver = r.linear_solver,
                                .step_size = r.step_size};
    auto reference = std::make_shared<const Trajectory>(
        simulate(*model(scene, overrides), r.integrator, settings, stop_time,
                 experiment_.grid_points, kInfinity));
    if (!file.empty()) {
      fs::create_directories(cache_directory_);
      // Written whole under a temporary name, then renamed: readers never see half a file.
      const std::string temporary = fmt::format("{}.{}.tmp", file, getpid());
      {
        std::ofstream out(temporary);
        out << nlohmann::json{{"key", key}, {"trajectory", to_json(*reference)}}.dump();
      }
      std::error_code ignored;
      fs::rename(temporary, file, ignored);
    }
    return reference;
  }

  const Experiment& experiment_;
  std::string cache_directory_;
  std::mutex mutex_;
  std::map<std::string, std::shared_future<std::shared_ptr<const Model>>> models_;
  std::map<std::string, std::shared_future<std::shared_ptr<const Trajectory>>> references_;
};

class ProgressBar {
 public:
  ProgressBar(bool enabled, std::size_t total) : enabled_(enabled), total_(total) {}
  void add(std::size_t runs, std::size_t failures) {
    std::lock_guard lock(mutex_);
    done_ += runs;
    failed_ += failures;
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (done_ < total_ && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double left =
        done_ > 0 ? elapsed * static_cast<double>(total_ - done_) / static_cast<double>(done_)
                  : 0.0;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * done_ / std::max<std::size_t>(total_, 1));
    std::fprintf(stderr, "\r[%s%s] %zu/%zu runs, %zu failed, %.0f s left ",
                 std::string(filled, '#').c_str(), std::string(kWidth - filled, '.').c_str(), done_,
                 total_, failed_, left);
    if (done_ == total_) std::fprintf(stderr, "\n");
  }

 private:
  bool enabled_;
  std::size_t total_;
  std::size_t done_ = 0;
  std::size_t failed_ = 0;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

Row make_row(const Experiment& experiment, const RunSpec& spec, const Trajectory& run,
             const ErrorMeasures& errors, double wall_time_min) {
  const IntegratorChoice& integrator = experiment.integrators[spec.integrator];
  const SimulationResult& r = run.result;
  Row row;
  row["index"] = spec.index;
  row["configuration"] = spec.configuration;
  row["scene"] = experiment.scenes[spec.scene].name;
  row["parameters"] = spec.parameters;
  row["integrator"] = integrator.label;
  row["method"] = integrator.name;
  row["table"] = integrator.table;
  row["linear_solver"] = integrator.linear_solver;
  row["rtol"] = number_or_null(integrator.fixed_step ? kNaN : spec.settings.rtol);
  row["atol"] = number_or_null(integrator.fixed_step ? kNaN : spec.settings.atol);
  row["step_size"] = number_or_null(integrator.fixed_step ? spec.settings.step_size : kNaN);
  row["repetition"] = spec.repetition;
  row["status"] = run.status;
  row["message"] = r.message;
  row["wall_time_s"] = run.wall_time_s;
  row["wall_time_min_s"] = wall_time_min;
  row["t_end"] = r.t_end;
  for (const RunCounter& counter : kRunCounters) row[counter.name] = counter.get(r);
  row["final_error"] = number_or_null(errors.final_error);
  row["l2_error"] = number_or_null(errors.l2_error);
  row["linf_error"] = number_or_null(errors.linf_error);
  row["event_time_error"] = number_or_null(errors.event_time_error);
  row["event_count_difference"] = errors.event_count_difference;
  row["energy_drift"] = number_or_null(errors.energy_drift);
  row["max_displacement"] = run.max_displacement;
  row["late_displacement"] = run.late_displacement;
  return row;
}

// The rows of one configuration: a warm-up, then its repetitions, compared with the reference.
std::vector<Row> run_configuration(const Experiment& experiment,
                                   const std::vector<const RunSpec*>& repetitions,
                                   SharedInputs& inputs) {
  const RunSpec& first = *repetitions.front();
  const SceneChoice& scene = experiment.scenes[first.scene];
  const auto model = inputs.model(first.scene, first.overrides);
  const double stop_time = scene.stop_time > 0.0 ? scene.stop_time : model->simulation.stop_time;
  const std::string& method = experiment.integrators[first.integrator].name;
  auto simulate_once = [&] {
    return simulate(*model, method, first.settings, stop_time, experiment.grid_points,
                    experiment.time_limit);
  };
  if (experiment.warmup) simulate_once();
  std::vector<Trajectory> runs;
  double wall_time_min = kInfinity;
  for (std::size_t i = 0; i < repetitions.size(); ++i) {
    runs.push_back(simulate_once());
    wall_time_min = std::min(wall_time_min, runs.back().wall_time_s);
  }
  const auto reference = inputs.reference(first.scene, first.overrides, stop_time);
  std::vector<Row> rows;
  for (std::size_t i = 0; i < repetitions.size(); ++i) {
    const ErrorMeasures errors =
        compare(runs[i], *reference, stop_time / static_cast<double>(experiment.grid_points));
    rows.push_back(make_row(experiment, *repetitions[i], runs[i], errors, wall_time_min));
  }
  return rows;
}

}  // namespace

const std::vector<std::string>& row_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> names = {
        "index",           "configuration", "scene",         "parameters", "integrator",
        "method",          "table",         "linear_solver", "rtol",       "atol",
        "step_size",       "repetition",    "status",        "message",    "wall_time_s",
        "wall_time_min_s", "t_end"};
    for (const RunCounter& counter : kRunCounters) names.emplace_back(counter.name);
    for (const char* name :
         {"final_error", "l2_error", "linf_error", "event_time_error", "event_count_difference",
          "energy_drift", "max_displacement", "late_displacement"}) {
      names.emplace_back(name);
    }
    return names;
  }();
  return columns;
}

const std::vector<std::string>& timing_columns() {
  static const std::vector<std::string> columns = {"wall_time_s", "wall_time_min_s"};
  return columns;
}

std::vector<Row> run_slice(const Experiment& experiment, const std::vector<RunSpec>& runs,
                           const RunnerOptions& options) {
  // The slice's configurations, each with its repetitions in order.
  std::map<int, std::vector<const RunSpec*>> by_configuration;
  for (const RunSpec& run : runs) {
    if (run.configuration % options.slice.count == options.slice.index) {
      by_configuration[run.configuration].push_back(&run);
    }
  }
  std::vector<std::vector<const RunSpec*>> work;
  std::size_t total_runs = 0;
  for (auto& [configuration, repetitions] : by_configuration) {
    total_runs += repetitions.size();
    work.push_back(std::move(repetitions));
  }

  SharedInputs inputs(experiment, options.cache_directory);
  ProgressBar progress(options.progress, total_runs);
  std::vector<std::vector<Row>> results(work.size());
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr first_error;
  auto worker = [&] {
    while (true) {
      const std::size_t i = next.fetch_add(1);
      if (i >= work.size()) return;
      try {
        results[i] = run_configuration(experiment, work[i], inputs);
      } catch (...) {
        // Bad input (the experiment was checked at load, so rarely): the batch stops with it.
        std::lock_guard lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
        next = work.size();
        return;
      }
      std::size_t failures = 0;
      for (const Row& row : results[i]) failures += row["status"] != "ok" ? 1 : 0;
      progress.add(results[i].size(), failures);
    }
  };
  const int threads = std::max(1, std::min<int>(options.jobs, static_cast<int>(work.size())));
  {
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
  }
  if (first_error) std::rethrow_exception(first_error);

  std::vector<Row> rows;
  for (auto& configuration_rows : results) {
    for (Row& row : configuration_rows) rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a["index"].get<int>() < b["index"].get<int>();
  });
  return rows;
}

}  // namespace hybridsim::batch
