// `hybridsim batch` end to end through the executable, with real files and real MPI ranks:
// threads, mpirun and shards give the same rows; errors against the reference mean what they
// say; failed runs are rows; bad experiments are named errors; the shipped example makes its
// plots and report in time.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <numbers>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "cli_support.hpp"
#include "models/scene_loader.hpp"
#include "wall_time.hpp"

namespace hybridsim {
namespace {
using testing::run_cli;
using testing::temporary_directory;
namespace fs = std::filesystem;

// mpirun refuses root without these; they change nothing else.
constexpr const char* kMpirun =
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -n 2 --oversubscribe";

nlohmann::json read_json(const fs::path& path) {
  return nlohmann::json::parse(testing::read_file(path));
}

// The rows without their timing columns.
nlohmann::json untimed_rows(const fs::path& directory) {
  nlohmann::json rows = read_json(directory / "results.json").at("runs");
  for (auto& row : rows) {
    row.erase("wall_time_s");
    row.erase("wall_time_min_s");
  }
  return rows;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Runs DIR/experiment.yaml into DIR/out (no plots) and returns its rows; it must succeed.
nlohmann::json run_experiment(const fs::path& dir) {
  const auto result =
      run_cli(fmt::format("batch {} --out {} --no-plots", (dir / "experiment.yaml").string(),
                          (dir / "out").string()),
              dir);
  REQUIRE_MESSAGE(result.status == 0, result.err);
  return read_json(dir / "out" / "results.json").at("runs");
}

// 3 scenes x 6 integrators x 4 tolerances (the fixed-step one: 4 steps), short horizons.
constexpr const char* kExperiment = R"(
name: three_ways
scenes:
  - {scene: bouncing_sphere, stop_time: 0.6}
  - {scene: pendulum, stop_time: 0.4}
  - {scene: newtons_cradle, stop_time: 0.05}
integrators:
  - cvode-bdf
  - cvode-adams
  - ida
  - {name: arkode-erk, table: bogacki-shampine}
  - {name: arkode-dirk, table: trbdf2}
  - {name: rk4, step_sizes: [1.0e-4, 5.0e-5, 2.5e-5, 1.25e-5]}
tolerances: {rtol: [1.0e-4, 1.0e-5, 1.0e-6, 1.0e-7]}
reference: {integrator: cvode-bdf, rtol: 1.0e-11, atol: 1.0e-13}
warmup: false
grid_points: 50
)";

}  // namespace

TEST_CASE("batch: -j 2, mpirun -n 2 and two shards plus merge give the same rows") {
  const fs::path dir = temporary_directory();
  write(dir / "experiment.yaml", kExperiment);
  const std::string experiment = (dir / "experiment.yaml").string();

  const auto threads = run_cli(
      fmt::format("batch {} -j 2 --out {} --no-plots", experiment, (dir / "threads").string()),
      dir);
  REQUIRE_MESSAGE(threads.status == 0, threads.err);
  const auto mpi =
      run_cli(fmt::format("batch {} --out {} --no-plots", experiment, (dir / "mpi").string()), dir,
              kMpirun);
  REQUIRE_MESSAGE(mpi.status == 0, mpi.err);
  for (int shard = 0; shard < 2; ++shard) {
    const auto result = run_cli(fmt::format("batch {} --shard {}/2 --out {} --no-plots", experiment,
                                            shard, (dir / fmt::format("shard{}", shard)).string()),
                                dir);
    REQUIRE_MESSAGE(result.status == 0, result.err);
  }
  const auto merged =
      run_cli(fmt::format("batch-merge {} {} --out {} --no-plots", (dir / "shard0").string(),
                          (dir / "shard1").string(), (dir / "merged").string()),
              dir);
  REQUIRE_MESSAGE(merged.status == 0, merged.err);

  const nlohmann::json rows = untimed_rows(dir / "threads");
  CHECK(rows.size() == 3 * 6 * 4);
  CHECK(rows == untimed_rows(dir / "mpi"));
  CHECK(rows == untimed_rows(dir / "merged"));
  // Each shard holds its own half, and every run is ok.
  CHECK(read_json(dir / "shard0" / "results.json").at("runs").size() +
            read_json(dir / "shard1" / "results.json").at("runs").size() ==
        rows.size());
  for (const auto& row : rows) CHECK(row.at("status") == "ok");

  // A shard merged twice, or alone, is refused.
  CHECK(run_cli(fmt::format("batch-merge {} {} --no-plots", (dir / "shard0").string(),
                            (dir / "shard0").string()),
                dir)
            .status == 2);
  const auto alone = run_cli(fmt::format("batch-merge {} --out {} --no-plots",
                                         (dir / "shard0").string(), (dir / "alone").string()),
                             dir);
  CHECK(alone.status == 2);
  CHECK(alone.err.find("incomplete") != std::string::npos);
}

TEST_CASE(
    "batch: errors against the reference are zero for the reference itself and fall "
    "with the tolerance") {
  const fs::path dir = temporary_directory();
  write(dir / "experiment.yaml", R"(
scenes: [{scene: bouncing_sphere, stop_time: 1.2}]
integrators: [cvode-bdf, {name: rk4, step_sizes: [2.0e-5, 1.0e-5]}]
tolerances: {rtol: [1.0e-5, 1.0e-8, 1.0e-11], atol_factor: 1.0e-2}
reference: {integrator: cvode-bdf, rtol: 1.0e-11, atol: 1.0e-13}
repetitions: 2
)");
  const nlohmann::json rows = run_experiment(dir);
  REQUIRE(rows.size() == 5 * 2);
  auto row = [&](int configuration) { return rows.at(2 * configuration); };
  // The reference's own integrator and tolerances reproduce it bit for bit: every error is 0.
  const auto self = row(2);
  CHECK(self.at("rtol") == 1e-11);
  CHECK(self.at("l2_error") == 0.0);
  CHECK(self.at("linf_error") == 0.0);
  CHECK(self.at("final_error") == 0.0);
  CHECK(self.at("event_time_error") == 0.0);
  CHECK(self.at("energy_drift") == 0.0);
  // Two impacts (start and end each) by 1.2 s: matched one to one for every run.
  for (const auto& r : rows) CHECK(r.at("event_count_difference") == 0);
  // CVODE's error falls with its tolerance; RK4's with its step, by its order: halving h
  // divides the error by about 16 in the smooth flight, less through the two impacts (the
  // event test's bound, 6, is used).
  CHECK(row(1).at("l2_error").get<double>() < 1e-2 * row(0).at("l2_error").get<double>());
  CHECK(row(3).at("l2_error").get<double>() > 6.0 * row(4).at("l2_error").get<double>());
  // Repetitions: the same counters and errors; the minimum wall time is the smaller one.
  CHECK(rows.at(0).at("rhs_evals") == rows.at(1).at("rhs_evals"));
  CHECK(rows.at(0).at("wall_time_min_s") == rows.at(1).at("wall_time_min_s"));
  CHECK(rows.at(0).at("wall_time_min_s").get<double>() <=
        std::min(rows.at(0).at("wall_time_s").get<double>(),
                 rows.at(1).at("wall_time_s").get<double>()));
  // The CSV has a header and a row per run.
  const std::string csv = testing::read_file(dir / "out" / "results.csv");
  CHECK(csv.starts_with("index,configuration,scene,parameters,integrator,method,"));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 10);
}

TEST_CASE("batch: a closed-form reference gives errors that fall with the tolerance") {
  // The pendulum's exact solution (models/closed_form.hpp, checked in closed_form_test.cpp) as
  // the reference: CVODE's error against it falls with rtol, by more than two decades per four
  // decades of rtol (measured: 5e-3, 6e-6, 5e-10), and no integrator run is needed for the
  // reference.
  const fs::path dir = temporary_directory();
  write(dir / "experiment.yaml", R"(
scenes: [{scene: pendulum, stop_time: 2.0, reference: {closed_form: true}}]
integrators: [cvode-bdf]
tolerances: {rtol: [1.0e-4, 1.0e-8, 1.0e-12]}
warmup: false
)");
  const nlohmann::json rows = run_experiment(dir);
  REQUIRE(rows.size() == 3);
  for (int i = 0; i + 1 < 3; ++i) {
    CAPTURE(i);
    CHECK(rows.at(i + 1).at("l2_error").get<double>() <
          1e-2 * rows.at(i).at("l2_error").get<double>());
  }
  CHECK(rows.at(2).at("final_error").get<double>() < 1e-8);
  CHECK(rows.at(2).at("energy_drift").get<double>() < 1e-7);
  CHECK(rows.at(2).at("event_count_difference") == 0);
  CHECK_FALSE(fs::exists(dir / "out" / "reference-cache"));
}

TEST_CASE("batch: a scene entry given as a map without stop_time runs to the scene's own") {
  // pendulum.yaml stops at its own simulation.stop_time; the map entry only sets the reference.
  const fs::path dir = temporary_directory();
  write(dir / "experiment.yaml", R"(
scenes: [{scene: pendulum, reference: {closed_form: true}}]
integrators: [cvode-bdf]
tolerances: {rtol: [1.0e-6]}
warmup: false
)");
  const nlohmann::json rows = run_experiment(dir);
  REQUIRE(rows.size() == 1);
  CHECK(rows.at(0).at("status") == "ok");
  CHECK(rows.at(0).at("t_end").get<double>() == load_scene_file("pendulum").simulation.stop_time);
}

TEST_CASE("batch: regularised friction creeps where stick-slip holds (late displacement)") {
  const fs::path dir = temporary_directory();
  write(dir / "experiment.yaml", R"(
scenes:
  - {scene: stick_slip_slope, stop_time: 2.0, label: slope}
  - {scene: push_ramp_stick_slip, stop_time: 4.5, label: push_ramp_held}
parameters:
  contact_materials.0.friction:
    - {model: stribeck, mu_static: 0.5, mu_kinetic: 0.3, stiction_tolerance: 1.0e-4}
    - {model: stick_slip, mu_static: 0.5, mu_kinetic: 0.3}
integrators: [cvode-bdf]
tolerances: {rtol: [1.0e-8]}
reference: {rtol: 1.0e-10, atol: 1.0e-12}
warmup: false
)");
  const nlohmann::json rows = run_experiment(dir);
  REQUIRE(rows.size() == 4);
  const auto late = [&](const char* scene, const char* model) {
    for (const auto& row : rows) {
      if (row.at("scene") == scene &&
          row.at("parameters").get<std::string>().find(model) != std::string::npos) {
        return row.at("late_displacement").get<double>();
      }
    }
    FAIL("no row for ", scene, " ", model);
    return 0.0;
  };
  // Stribeck on the 20 degree slope creeps at v* = s* v_s, mu_s S(s*) = tan 20 deg with
  // S(x) = x^3 (10 - 15 x + 6 x^2) (Drake's stiction: the box_in_stiction scene): over the second
  // second, v* x 1 s. 1e-3 relative: the creep reaches its steady speed within milliseconds.
  double lo = 0.0, hi = 1.0;
  const double target = std::tan(20.0 * std::numbers::pi / 180.0) / 0.5;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (mid * mid * mid * (10.0 - 15.0 * mid + 6.0 * mid * mid) < target ? lo : hi) = mid;
  }
  CHECK(late("slope", "stribeck") == testing::relative(lo * 1.0e-4 * 1.0, 1e-3));
  // Stick-slip holds: nothing moves once the box has settled (1e-12 m, as in its scene test).
  CHECK(late("slope", "stick_slip") < 1e-12);
  // Under the rising push the stuck box only tilts on its corners (kp = 1e8 N/m at +-L, the push
  // at h = L = 0.05 m above the floor): its centre moves h theta = h P h / (4 kp L^2) = P / (4 kp),
  // 2.25 N / 4e8 N/m from 2.25 s to 4.5 s (1e-3: the corners' damping lags the ramp by kd/kp).
  CHECK(late("push_ramp_held", "stick_slip") == testing::relative(2.25 / 4.0e8, 1e-3));
  // Stribeck's creep under the same push is more than ten thousand times larger.
  CHECK(late("push_ramp_held", "stribeck") > 1e4 * 2.25 / 4.0e8);
}

TEST_CASE("batch: a failed run is a row with its status, and the batch goes on") {
  const fs::path dir = temporary_directory();
  // Steps bounded by 1e-5 s: the pendulum's 3 s need 3e5 steps, about 0.5 s of wall time, ten
  // times the limit; the sphere's 0.02 s of free fall 2000 steps, a tenth of it (Release
  // figures: the limit scales with the build, wall_time.hpp).
  write(dir / "experiment.yaml", fmt::format(R"(
scenes: [{{scene: pendulum, stop_time: 3.0}}, {{scene: bouncing_sphere, stop_time: 0.02}}]
integrators: [cvode-bdf]
tolerances: {{rtol: [1.0e-10]}}
parameters: {{simulation.max_step: [1.0e-5]}}
time_limit: {}
warmup: false
)",
                                             0.05 * testing::kWallTimeScale));
  const nlohmann::json rows = run_experiment(dir);
  REQUIRE(rows.size() == 2);
  CHECK(rows.at(0).at("status") == "time_limit");
  CHECK(rows.at(0).at("t_end").get<double>() < 3.0);
  CHECK(rows.at(0).at("message").get<std::string>().find("wall-time limit") != std::string::npos);
  CHECK(rows.at(0).at("final_error").is_null());  // no final state to compare
  CHECK(rows.at(0).at("parameters") == "simulation.max_step=1.0e-5");
  CHECK(rows.at(1).at("status") == "ok");
}

TEST_CASE("batch: a bad experiment names the file, the key and the value") {
  const fs::path dir = temporary_directory();
  struct Case {
    std::string text, expected;
  };
  const Case cases[] = {
      {"scenes: [no_such_scene]\nintegrators: [cvode-bdf]\ntolerances: {rtol: [1.0e-6]}\n",
       "experiment.yaml:1: key 'scenes[0]' = no_such_scene"},
      {"scenes: [pendulum]\nintegrators: [{name: arkode-erk, table: dopri}]\n"
       "tolerances: {rtol: [1.0e-6]}\n",
       "key 'integrators[0]'"},
      {"scenes: [pendulum]\nintegrators: [rk4]\n", "rk4 needs step_sizes"},
      {"scenes: [pendulum]\nintegrators: [cvode-bdf]\n", "key 'tolerances' (not given)"},
      {"scenes: [pendulum]\nintegrators: [cvode-bdf]\ntolerances: {rtol: [-1]}\n",
       "key 'tolerances.rtol[0]' = -1: must be positive"},
      {"scenes: [pendulum]\nintegrators: [cvode-bdf]\ntolerances: {rtol: [1.0e-6]}\n"
       "parameters: {bodies.bob.mass: [-2]}\n",
       "key 'parameters.bodies.bob.mass'"},
      {"scenes: [pendulum]\nintegrators: [cvode-bdf, cvode-bdf]\ntolerances: {rtol: [1.0e-6]}\n",
       "label 'cvode-bdf' is used twice"},
      {"scenes: [pendulum]\nintegratorz: [cvode-bdf]\n", "integratorz"},
      {"scenes: [bouncing_sphere]\nintegrators: [cvode-bdf]\ntolerances: {rtol: [1.0e-6]}\n"
       "reference: {closed_form: true}\n",
       "scene 'bouncing_sphere' has no closed form"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    write(dir / "experiment.yaml", c.text);
    const auto result = run_cli(fmt::format("batch {} --out {}", (dir / "experiment.yaml").string(),
                                            (dir / "out").string()),
                                dir);
    CHECK(result.status == 2);
    CHECK_MESSAGE(result.err.find(c.expected) != std::string::npos, result.err);
  }
  CHECK(run_cli("batch " + (dir / "missing.yaml").string(), dir).status == 2);
}

TEST_CASE("batch: the shipped example runs in under two minutes and its report shows the plots") {
  const fs::path dir = temporary_directory();
  const auto start = std::chrono::steady_clock::now();
  const auto result = run_cli(fmt::format("batch {}/experiments/contact_integrators.yaml -j 2 "
                                          "--out {}",
                                          HYBRIDSIM_MODELS_DIR, (dir / "out").string()),
                              dir);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(seconds < 120.0 * testing::kWallTimeScale);
  const std::string report = testing::read_file(dir / "out" / "report.md");
  for (const char* scene : {"bouncing_sphere", "pendulum", "newtons_cradle"}) {
    CAPTURE(scene);
    CHECK(report.find(fmt::format("](plots/{}.png)", scene)) != std::string::npos);
    CHECK(fs::file_size(dir / "out" / "plots" / fmt::format("{}.png", scene)) > 10000);
    CHECK(fs::file_size(dir / "out" / "plots" / fmt::format("{}.svg", scene)) > 10000);
  }
}

}  // namespace hybridsim
