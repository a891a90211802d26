// `hybridsim` through its command line: outputs per spec/outputs.md, exit statuses, bad input
// messages, and the golden event log of the demo, whose every number is checked once against an
// independent model of the bouncing ball (see "golden event log: ...").
#include <doctest/doctest.h>

#include "approx.hpp"
#include "cli_support.hpp"
#include "hybridsim/version.h"
#include "models/scene_loader.hpp"

#include <sys/wait.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/contact_law.hpp"

namespace hybridsim {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::read_file;
using testing::run_cli;
using testing::temporary_directory;

std::vector<double> numbers_in(const std::string& text) {
  static const std::regex number(R"([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)");
  std::vector<double> values;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number);
       it != std::sregex_iterator(); ++it) {
    values.push_back(std::stod(it->str()));
  }
  return values;
}

TEST_CASE("cli: --version prints hybridsim X.Y.Z, and --set may stand before the scene") {
  const fs::path dir = temporary_directory();
  const CliResult version = run_cli("--version", dir);
  CHECK(version.status == 0);
  // The first line; then where the optional modules would load from (optional_modules_test.py).
  CHECK(version.out.substr(0, version.out.find('\n') + 1) == "hybridsim " HYBRIDSIM_VERSION_STRING
                                                             "\n");
  CHECK(version.out.find("\nmodule import: ") != std::string::npos);
  // Options before or after the scene: the same run (the stop time set both ways).
  const CliResult before = run_cli(
      fmt::format("run --set simulation.stop_time=0.5 --quiet bouncing_sphere --summary {}/a.json",
                  dir.string()),
      dir);
  const CliResult after = run_cli(
      fmt::format("run bouncing_sphere --quiet --set simulation.stop_time=0.5 --summary {}/b.json",
                  dir.string()),
      dir);
  REQUIRE(before.status == 0);
  REQUIRE(after.status == 0);
  const auto a = nlohmann::json::parse(read_file(dir / "a.json"));
  const auto b = nlohmann::json::parse(read_file(dir / "b.json"));
  CHECK(a["t_end"] == 0.5);
  CHECK(a["final_state"] == b["final_state"]);
  // Two --set values, each its own option.
  CHECK(run_cli("run --set simulation.stop_time=0.1 --set simulation.rtol=1e-6 bouncing_sphere "
                "--quiet",
                dir)
            .status == 0);
}

TEST_CASE("cli: an output that cannot be written fails the run with status 4, naming it") {
  // /dev/full takes the open but refuses every write, as a full disk does.
  const fs::path dir = temporary_directory();
  for (const char* option : {"--summary", "--trajectory", "--events", "--contacts"}) {
    CAPTURE(option);
    const CliResult r =
        run_cli(fmt::format("run bouncing_sphere --quiet --stop-time 1 {} /dev/full", option), dir);
    CHECK(r.status == 4);
    CHECK(r.err == "hybridsim: could not write /dev/full (disk full?)\n");
  }
}

TEST_CASE("cli: settings out of range are bad input (status 2) naming the setting") {
  const fs::path dir = temporary_directory();
  for (const auto& entry : std::vector<std::pair<std::string, std::string>>{
           {"--rtol 1e-300", "rtol = 1e-300: must lie in [1e-14, 0.5]"},
           {"--atol 1e-300", "atol = 1e-300: must lie in [1e-20, 1e+06]"},
           {"--stop-time 1e-300", "stop_time = 1e-300: must lie in [1e-09, 1e+12]"},
           {"--set simulation.max_step=1e-320", "max_step = 1e-320: must lie in [1e-12, inf]"},
           {"--output-interval 1e-300", "--output-interval = 1e-300 s with stop time 3 s"}}) {
    // Not a structured binding: clang 14 cannot capture one in a lambda (CAPTURE does).
    const auto& option = std::get<0>(entry);
    const auto& expected = std::get<1>(entry);
    CAPTURE(option);
    const CliResult r = run_cli("run bouncing_sphere --quiet " + option, dir);
    CHECK(r.status == 2);
    CHECK(r.err.find(expected) != std::string::npos);
  }
}

TEST_CASE("cli: integrators lists the registry") {
  const fs::path dir = temporary_directory();
  const CliResult r = run_cli("integrators", dir);
  CHECK(r.status == 0);
  CHECK(r.out.find("cvode-bdf") != std::string::npos);
  CHECK(r.out.find("cvode-adams") != std::string::npos);
}

TEST_CASE("cli: bench prints each scene's counters as its run reports them, and its memory") {
  // The bench runs the same library on the same scene: its RHS evaluations and steps equal those
  // of `hybridsim run` (the runs are deterministic); the peak memory is a positive figure.
  const fs::path dir = temporary_directory();
  const CliResult bench = run_cli("bench bouncing_sphere --repeat 2", dir);
  REQUIRE(bench.status == 0);
  const CliResult run = run_cli(
      fmt::format("run bouncing_sphere --summary {}", (dir / "summary.json").string()), dir);
  REQUIRE(run.status == 0);
  const auto summary = nlohmann::json::parse(read_file(dir / "summary.json"));
  std::istringstream rows(bench.out);
  std::string header, name;
  std::getline(rows, header);
  CHECK(header.find("peak MiB") != std::string::npos);
  double t_end = 0.0, wall = 0.0, peak = 0.0;
  long rhs = 0, jacobians = 0, steps = 0, events = 0;
  rows >> name >> t_end >> wall >> rhs >> jacobians >> steps >> events >> peak;
  CHECK(name == "bouncing_sphere");
  CHECK(t_end == 3.0);
  CHECK(rhs == summary["stats"]["rhs_evals"].get<long>());
  CHECK(steps == summary["stats"]["steps"].get<long>());
  CHECK(jacobians == summary["stats"]["jac_evals"].get<long>());
  CHECK(wall > 0.0);
  CHECK(peak > 0.0);
  // --stop-time cuts every scene short, as `run --stop-time` does.
  const CliResult short_bench = run_cli("bench bouncing_sphere --stop-time 1", dir);
  REQUIRE(short_bench.status == 0);
  const CliResult short_run = run_cli(
      fmt::format("run bouncing_sphere --stop-time 1 --summary {}", (dir / "short.json").string()),
      dir);
  REQUIRE(short_run.status == 0);
  const auto short_summary = nlohmann::json::parse(read_file(dir / "short.json"));
  std::istringstream short_rows(short_bench.out);
  std::getline(short_rows, header);
  short_rows >> name >> t_end >> wall >> rhs;
  CHECK(t_end == 1.0);
  CHECK(rhs == short_summary["stats"]["rhs_evals"].get<long>());
  CHECK(run_cli("bench bouncing_sphere --stop-time -1", dir).status == 2);
  // An unknown scene is bad input.
  const CliResult bad = run_cli("bench no_such_scene", dir);
  CHECK(bad.status == 2);
  CHECK(bad.out.find("no_such_scene") != std::string::npos);
}

TEST_CASE("cli: list names every catalog scene with its description and reference") {
  const auto result = run_cli("list", testing::temporary_directory());
  REQUIRE_MESSAGE(result.status == 0, result.err);
  int scenes = 0;
  for (const auto& file : std::filesystem::directory_iterator(HYBRIDSIM_MODELS_DIR "/scenes")) {
    if (file.path().extension() != ".yaml") continue;
    ++scenes;
    const std::string name = file.path().stem().string();
    CAPTURE(name);
    const Model model = load_scene_file(name);
    // Every catalog scene says what it shows and what it is checked against.
    CHECK_FALSE(model.description.empty());
    CHECK_FALSE(model.reference.empty());
    CHECK(result.out.find(name + " ") != std::string::npos);
    CHECK(result.out.find("reference: " + model.reference) != std::string::npos);
  }
  CHECK(scenes >= 11);
}

TEST_CASE("cli: run writes the trajectory, events and summary of spec/outputs.md") {
  const fs::path dir = temporary_directory();
  const CliResult r = run_cli(
      fmt::format("run bouncing_sphere --trajectory {0}/t.csv --events {0}/e.jsonl --summary "
                  "{0}/s.json --output-interval 0.1",
                  dir.string()),
      dir);
  REQUIRE(r.status == 0);
  // Trajectory: header, 31 output rows (0 .. 3 s by 0.1) and one row per event (31 events).
  std::ifstream trajectory(dir / "t.csv");
  std::string header;
  std::getline(trajectory, header);
  CHECK(header.rfind("t,ground.x,ground.y,ground.z,ground.qw", 0) == 0);
  CHECK(header.find("ball.vz,ball.wx,ball.wy,ball.wz,energy") != std::string::npos);
  int rows = 0;
  for (std::string line; std::getline(trajectory, line);) ++rows;
  CHECK(rows == 31 + 31);
  // Events: one JSON object per line with the documented keys.
  std::ifstream events(dir / "e.jsonl");
  int starts = 0;
  for (std::string line; std::getline(events, line);) {
    const auto event = nlohmann::json::parse(line);
    CHECK(event.contains("t"));
    if (event["kind"] == "contact_start") {
      ++starts;
      for (const char* key :
           {"crossing", "pair", "distance", "normal", "point", "v_pre", "c_res", "d_res"}) {
        CHECK(event.contains(key));
      }
      CHECK(event["pair"][0] == "ground/plate");
      CHECK(event["pair"][1] == "ball/sphere");
    }
  }
  CHECK(starts == 16);
  const auto summary = nlohmann::json::parse(read_file(dir / "s.json"));
  CHECK(summary["status"] == "ok");
  CHECK(summary["scene"] == "bouncing_sphere");
  CHECK(summary["t_end"] == 3.0);
  CHECK(summary["stats"]["contact_starts"] == 16);
  CHECK(summary["stats"]["rhs_evals"].get<long>() > 0);
  CHECK(summary["final_state"]["bodies"]["ball"]["position"][2].get<double>() < 0.1);
  // Energy: m g h = 33.51 kg * 9.81 * 1.1 m at the start (potential of the centre at z = 1.1).
  const double mass = 8000.0 * 4.0 / 3.0 * 3.14159265358979 * 1e-3;
  CHECK(summary["energy"]["initial"].get<double>() == testing::relative(mass * 9.81 * 1.1, 1e-12));
}

TEST_CASE("cli: contact results of a resting sphere carry its weight") {
  // The demo ball at rest after 3 s: one pair in contact, normal force m g along +z, no slip.
  const fs::path dir = temporary_directory();
  const CliResult r = run_cli(
      fmt::format("run bouncing_sphere --quiet --stop-time 4 --contacts {}/c.csv", dir.string()),
      dir);
  REQUIRE(r.status == 0);
  std::ifstream contacts(dir / "c.csv");
  std::string header, line, last;
  std::getline(contacts, header);
  CHECK(header.rfind("t,pair_a,pair_b,contact_id,feature_a,feature_b,penetration,", 0) == 0);
  while (std::getline(contacts, line)) last = line;
  // One point per pair (a sphere has no manifold): slot 0, made by the whole shapes.
  CHECK(last.find(",ball/sphere,0-1#0,shape,shape,") != std::string::npos);
  const auto fields = numbers_in(last.substr(last.rfind("shape,") + 6));
  REQUIRE(fields.size() == 27);
  const double mass = 8000.0 * 4.0 / 3.0 * 3.14159265358979323846 * 1e-3;
  CHECK(numbers_in(last).front() == testing::relative(4.0, 1e-15));
  CHECK(fields[5] == testing::relative(mass * 9.81, 1e-9));   // normal force
  CHECK(fields[11] == testing::relative(mass * 9.81, 1e-9));  // force on the ball, z
  CHECK(std::abs(fields[2]) + std::abs(fields[3]) < 1e-12);   // no slip
  // The witnesses: on the plate's top and on the ball's bottom, the penetration apart.
  CHECK(fields[23] - fields[26] == testing::relative(fields[0], 1e-6));
}

TEST_CASE("cli: bad input exits with status 2 and a message naming file, key and value") {
  const fs::path dir = temporary_directory();
  const std::string scene = (dir / "scene.yaml").string();
  const std::string good = R"(materials:
  Granite: {density: 8000, youngs_modulus: 2.0e11, poisson_ratio: 0.3}
contact_materials:
  - {pair: [Granite, Granite], restitution: 0.5}
bodies:
  - {name: ground, fixed: true, shapes: [{type: halfspace, material: Granite}]}
  - name: ball
    mass: 1.0
    position: [0, 0, 1]
    shapes: [{type: sphere, radius: 0.1, material: Granite}]
)";
  struct Case {
    std::string from, to, expected;
  };
  const std::vector<Case> cases = {
      {"mass: 1.0", "mas: 1.0", ":8: unknown key 'bodies[1].mas'"},
      {"mass: 1.0", "mass: -1.0", ":8: key 'bodies[1].mass' = -1.0: must be positive"},
      {"radius: 0.1", "radius: 0", ":10: key 'bodies[1].shapes[0].radius' = 0: must be positive"},
      {"position: [0, 0, 1]", "position: [0, .nan, 1]",
       ":9: key 'bodies[1].position' = .nan: must be a finite number"},
      {"radius: 0.1, material: Granite}]", "radius: 0.1, material: Wood}]",
       ":10: key 'bodies[1].shapes[0].material' = Wood: unknown material"},
      {"  - {pair: [Granite, Granite], restitution: 0.5}\n", "",
       "no entry for the pair [Granite, Granite]"},
      {"restitution: 0.5", "restitution: 0.5, normal_law: plastic",
       ":4: key 'contact_materials[0: Granite, Granite].normal_law' = plastic: must be one of"},
  };
  for (const Case& c : cases) {
    std::string text = good;
    const auto at = text.find(c.from);
    REQUIRE(at != std::string::npos);
    text.replace(at, c.from.size(), c.to);
    std::ofstream(scene) << text;
    const CliResult r = run_cli("run " + scene + " --quiet", dir);
    CAPTURE(c.to);
    CAPTURE(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(scene) != std::string::npos);
    CHECK(r.err.find(c.expected) != std::string::npos);
  }
  // Bad options and names on the command line.
  std::ofstream(scene) << good;
  CHECK(run_cli("run " + scene + " --integrator rk99", dir).err.find("unknown integrator 'rk99'") !=
        std::string::npos);
  CHECK(run_cli("run " + scene + " --integrator rk99", dir).status == 2);
  CHECK(run_cli("run " + scene + " --rtol -1", dir).status == 2);
  CHECK(run_cli("run " + scene + " --set bodies.ball.mass=abc", dir)
            .err.find("key 'bodies[1].mass' = abc: must be a number") != std::string::npos);
  CHECK(run_cli("run no_such_scene", dir).status == 2);
  CHECK(run_cli("run", dir).status == 2);
  CHECK(run_cli("run " + scene + " --summary /nonexistent/dir/s.json", dir).status == 2);
}

TEST_CASE("cli: a numerical stop exits with status 3 and keeps what was computed") {
  const fs::path dir = temporary_directory();
  const CliResult r = run_cli(
      fmt::format("run bouncing_sphere --quiet --set contact_materials.0.restitution=0.9 --set "
                  "contact_materials.0.v_small=1e-7 --set bodies.ball.shapes.sphere.radius=0.005 "
                  "--set 'bodies.ball.position=[0, 0, 1.005]' --set "
                  "contact.max_events_per_second=1000 --stop-time 20 --trajectory {0}/t.csv "
                  "--summary {0}/s.json",
                  dir.string()),
      dir);
  CHECK(r.status == 3);
  CHECK(r.err.find("Zeno guard") != std::string::npos);
  const auto summary = nlohmann::json::parse(read_file(dir / "s.json"));
  CHECK(summary["status"] == "zeno_guard");
  CHECK(summary["t_end"].get<double>() < 20.0);
  CHECK(read_file(dir / "t.csv").size() > 10000);
}

TEST_CASE("cli: --time-limit and the step budget stop a run with status 3 and complete outputs") {
  // pile_100 needs about 10 s for its 0.3 s; a wall-time limit of 0.5 s stops it, and the
  // trajectory ends at the summary's t_end with whole lines; the summary keeps the status.
  const fs::path dir = temporary_directory();
  const CliResult r =
      run_cli(fmt::format("run pile_100 --quiet --time-limit 0.5 --trajectory {0}/t.csv --summary "
                          "{0}/s.json",
                          dir.string()),
              dir);
  CHECK(r.status == 3);
  CHECK(r.err.find("time_limit: wall-time limit of 0.5 s") != std::string::npos);
  const auto summary = nlohmann::json::parse(read_file(dir / "s.json"));
  CHECK(summary["status"] == "time_limit");
  CHECK(summary["wall_time_s"].get<double>() < 5.0);
  const std::string trajectory = read_file(dir / "t.csv");
  REQUIRE(!trajectory.empty());
  CHECK(trajectory.back() == '\n');
  const std::size_t last_line = trajectory.rfind('\n', trajectory.size() - 2) + 1;
  CHECK(std::stod(trajectory.substr(last_line)) == summary["t_end"].get<double>());

  // Explicit Euler at 1e-7 s needs 1e7 steps per simulated second: a budget of 1 per second
  // (beyond the allowance of 1e6 steps) stops it.
  const CliResult budget =
      run_cli(fmt::format("run bouncing_sphere --quiet --step-budget 1 --integrator euler "
                          "--step-size 1e-7 --summary {0}/b.json",
                          dir.string()),
              dir);
  CHECK(budget.status == 3);
  CHECK(nlohmann::json::parse(read_file(dir / "b.json"))["status"] == "step_budget");
  CHECK(run_cli("run bouncing_sphere --time-limit -1", dir).status == 2);
  // The exit statuses are in the help.
  CHECK(run_cli("run --help", dir).out.find("Exit status: 0") != std::string::npos);
}

TEST_CASE("cli: outputs appear whole or not at all, and two outputs on one path are refused") {
  const fs::path dir = temporary_directory();
  // While the run goes on, and after a SIGKILL, the trajectory is only PATH.tmp: a reader never
  // sees half a file under its name.
  const std::string command = fmt::format(
      "{0} run newtons_cradle --quiet --stop-time 1000 --trajectory {1}/t.csv --summary {1}/s.json "
      "& pid=$!; for i in $(seq 200); do [ -e {1}/t.csv.tmp ] && break; sleep 0.05; done; "
      "sleep 0.3; ls {1} > {1}/during.txt; kill -KILL $pid; wait $pid",
      HYBRIDSIM_EXECUTABLE, dir.string());
  std::system(command.c_str());
  const std::string during = read_file(dir / "during.txt");
  CHECK(during.find("t.csv.tmp") != std::string::npos);
  CHECK(during.find("s.json.tmp") != std::string::npos);
  CHECK(!fs::exists(dir / "t.csv"));
  CHECK(!fs::exists(dir / "s.json"));
  // A finished run renames them and leaves no temporary behind.
  REQUIRE(run_cli(fmt::format("run bouncing_sphere --quiet --stop-time 0.1 --trajectory {0}/t.csv",
                              dir.string()),
                  dir)
              .status == 0);
  CHECK(fs::exists(dir / "t.csv"));
  CHECK(!fs::exists(dir / "t.csv.tmp"));  // the killed run's leftover was reused and renamed
  CHECK(fs::file_size(dir / "t.csv") > 100);

  const CliResult shared = run_cli(
      fmt::format("run bouncing_sphere --trajectory {0}/x.csv --events {0}/./x.csv", dir.string()),
      dir);
  CHECK(shared.status == 2);
  CHECK(shared.err.find("--trajectory and --events both name") != std::string::npos);
  // Special files may take several outputs.
  CHECK(run_cli("run bouncing_sphere --quiet --stop-time 0.1 --trajectory /dev/null --events "
                "/dev/null",
                dir)
            .status == 0);
}

TEST_CASE("cli: the demo's event log matches the golden log") {
  // Same build, same inputs: the log is reproduced; numbers are compared to 1e-9 relative (or
  // 1e-15 absolute for the sub-femtometre distances) so that a libm difference elsewhere does
  // not fail the comparison while any change of behaviour does.
  const fs::path dir = temporary_directory();
  const CliResult r = run_cli("run bouncing_sphere --log-events --quiet", dir);
  REQUIRE(r.status == 0);
  const std::string golden = read_file(fs::path(HYBRIDSIM_GOLDEN_DIR) / "bouncing_sphere.log");
  const std::regex number(R"([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)");
  CHECK(std::regex_replace(r.out, number, "#") == std::regex_replace(golden, number, "#"));
  const auto produced = numbers_in(r.out), expected = numbers_in(golden);
  REQUIRE(produced.size() == expected.size());
  for (std::size_t i = 0; i < produced.size(); ++i) {
    CHECK(std::abs(produced[i] - expected[i]) <= 1e-9 * std::abs(expected[i]) + 1e-15);
  }
}

// The demo as an independent model: ballistic flights in closed form between contacts, and each
// contact as the 1-D damped Hertz law with gravity, m delta'' = m g - K delta^1.5 (1 + d delta'),
// integrated here by classical RK4 with 400,000 steps per contact.
struct ContactOutcome {
  double duration, exit_speed;
  bool separates;
};

ContactOutcome integrate_contact(double v_pre, double mass, double stiffness, double damping,
                                 double g) {
  const auto acceleration = [&](double delta, double rate) {
    const double force = stiffness * std::pow(std::max(delta, 0.0), 1.5) * (1.0 + damping * rate);
    return g - std::max(force, 0.0) / mass;
  };
  // Time scale: the undamped Hertz duration at v_pre, 2.94 delta_max / v.
  const double delta_max = std::pow(5.0 * mass * v_pre * v_pre / (4.0 * stiffness), 0.4);
  const double dt = 3.0 * delta_max / v_pre / 400000.0;
  double t = 0.0, delta = 0.0, rate = v_pre;
  for (int i = 0; i < 4000000; ++i) {
    const double k1d = rate, k1r = acceleration(delta, rate);
    const double k2d = rate + 0.5 * dt * k1r, k2r = acceleration(delta + 0.5 * dt * k1d, k2d);
    const double k3d = rate + 0.5 * dt * k2r, k3r = acceleration(delta + 0.5 * dt * k2d, k3d);
    const double k4d = rate + dt * k3r, k4r = acceleration(delta + dt * k3d, k4d);
    const double next_delta = delta + dt / 6.0 * (k1d + 2 * k2d + 2 * k3d + k4d);
    const double next_rate = rate + dt / 6.0 * (k1r + 2 * k2r + 2 * k3r + k4r);
    if (t > 0.0 && next_delta <= 0.0) {
      // Crossing of delta = 0 by cubic Hermite interpolation over the step.
      double lo = 0.0, hi = 1.0;
      for (int k = 0; k < 60; ++k) {
        const double s = 0.5 * (lo + hi);
        const double h00 = 2 * s * s * s - 3 * s * s + 1, h10 = s * s * s - 2 * s * s + s;
        const double h01 = -2 * s * s * s + 3 * s * s, h11 = s * s * s - s * s;
        const double value =
            h00 * delta + h10 * dt * rate + h01 * next_delta + h11 * dt * next_rate;
        (value > 0.0 ? lo : hi) = s;
      }
      const double s = 0.5 * (lo + hi);
      return {t + s * dt, -(rate + s * (next_rate - rate)), true};
    }
    delta = next_delta;
    rate = next_rate;
    t += dt;
  }
  return {t, 0.0, false};
}

// Relative tolerances of the comparison: event times, contact durations, speeds and damping.
struct LogTolerances {
  double time, duration, speed;
};

void check_demo_log(const std::string& golden, const LogTolerances& tolerance) {
  // Demo parameters (models/scenes/bouncing_sphere.yaml).
  const double g = 9.81, h = 1.0, e = 0.7, v_small = 0.01, d_max = 2000.0, eps = 1e-13;
  const double radius = 0.1, mass = 8000.0 * 4.0 / 3.0 * 3.14159265358979323846 * 1e-3;
  const double c_res = 0.5 * 2.0e11 / (1.0 - 0.3 * 0.3);
  const double stiffness = c_res * 4.0 / 3.0 * std::sqrt(radius);

  // Split the log into events: time, trigger, and the numbers of the lines below.
  std::vector<std::vector<double>> events;
  std::vector<bool> is_start;
  std::istringstream lines(golden);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("State event", 0) == 0) {
      events.push_back({numbers_in(line).front()});
      is_start.push_back(line.find("z[2]") != std::string::npos);
    } else if (line.find("distance(") != std::string::npos) {
      events.back().push_back(numbers_in(line.substr(line.find('='))).front());
    } else if (line.find("contact normal") != std::string::npos) {
      for (double value : numbers_in(line)) events.back().push_back(value);
    }
  }
  REQUIRE(events.size() == 31);  // 16 starts and 15 ends, then rest

  double t_contact = std::sqrt(2.0 * h / g);  // first touch: free fall from h
  double v_pre = std::sqrt(2.0 * g * h);
  for (std::size_t k = 0; k < events.size(); k += 2) {
    CAPTURE(k);
    // Start: time, force-law distance in [-2 eps - tol, -eps), normal, point, c_res, d_res, v_pre.
    const std::vector<double>& start = events[k];
    REQUIRE(is_start[k]);
    REQUIRE(start.size() == 1 + 1 + 3 + 3 + 3);
    CHECK(start[0] == testing::relative(t_contact, tolerance.time));
    // z2 = distanceOrg + 3 eps has just crossed zero: the force-law distance distanceOrg + eps is
    // -2 eps, less the overshoot of CVODE's root location (100 uround (|t| + |h|) in time, below
    // 3e-13 m at these speeds).
    CHECK(start[1] <= -2 * eps);
    CHECK(start[1] > -5 * eps);
    CHECK(start[2] == 0.0);
    CHECK(start[3] == 0.0);
    CHECK(start[4] == 1.0);
    CHECK(std::abs(start[5]) + std::abs(start[6]) + std::abs(start[7]) < 1e-12);
    CHECK(start[8] == testing::relative(c_res, 1e-9));
    const double d = v_pre > v_small ? std::min(d_max, exact_damping_alpha(e) / v_pre) : d_max;
    CHECK(start[9] == testing::relative(d, tolerance.speed));
    CHECK(start[10] == testing::relative(v_pre, tolerance.speed));

    const ContactOutcome contact = integrate_contact(v_pre, mass, stiffness, d, g);
    if (k + 1 == events.size()) {
      // The last start is below v_small: fully damped, the ball never leaves, no event follows.
      CHECK(v_pre < v_small);
      CHECK_FALSE(contact.separates);
      break;
    }
    // End: at t_contact + duration, force-law distance in [0, eps).
    const std::vector<double>& end = events[k + 1];
    REQUIRE_FALSE(is_start[k + 1]);
    CHECK(end[0] - start[0] == testing::relative(contact.duration, tolerance.duration));
    CHECK(end[1] >= 0.0);
    CHECK(end[1] < 3 * eps);
    // Ballistic flight back to the plate: 2 v_exit / g later, arriving at v_exit.
    t_contact = end[0] + 2.0 * contact.exit_speed / g;
    v_pre = contact.exit_speed;
  }
}

TEST_CASE("golden event log: every number agrees with an independent model of the demo") {
  // The golden log is the demo at its rtol 1e-8. The integration error grows through the 16
  // impacts, the slow last ones amplifying it (the rebound speed there is sensitive to the
  // incoming one): measured 3e-9 .. 7.1e-7 in times, 4e-8 .. 1.3e-4 in durations and 3e-8 ..
  // 1.3e-3 in speeds, bounded below with a margin of about 2.
  check_demo_log(read_file(fs::path(HYBRIDSIM_GOLDEN_DIR) / "bouncing_sphere.log"),
                 {2e-6, 3e-4, 3e-3});
  // At rtol 1e-11 the same log agrees with the model to 1.2e-6 at worst (the last impact).
  const fs::path dir = temporary_directory();
  const CliResult tight = run_cli("run bouncing_sphere --log-events --quiet --rtol 1e-11", dir);
  REQUIRE(tight.status == 0);
  check_demo_log(tight.out, {1e-8, 3e-7, 3e-6});
}

TEST_CASE(
    "cli: wheels add their slip columns to the trajectory and their state to contact events") {
  const fs::path dir = temporary_directory();
  const CliResult r = run_cli(
      fmt::format("run tricycles_uphill --quiet --stop-time 2 --trajectory {0}/tri.csv --events "
                  "{0}/ev.jsonl",
                  dir.string()),
      dir);
  REQUIRE(r.status == 0);
  const std::string trajectory = read_file(dir / "tri.csv");
  const std::string header = trajectory.substr(0, trajectory.find('\n'));
  // After energy, eight columns per wheel in Model::wheels order.
  const auto energy = header.find(",energy,wheel.front.s_a,wheel.front.s_b,wheel.front.S_a,");
  CHECK(energy != std::string::npos);
  CHECK(header.find("wheel.rear_right.R_omega,wheel.rear_right.normal_force") ==
        header.size() -
            std::string("wheel.rear_right.R_omega,wheel.rear_right.normal_force").size());
  CHECK(trajectory.find("nan") == std::string::npos);
  const std::string events = read_file(dir / "ev.jsonl");
  CHECK(events.find(R"("wheel":{"R_omega":)") != std::string::npos);
  CHECK(events.find(R"("name":"rear_left")") != std::string::npos);
}

TEST_CASE(
    "cli: bilateral switches in the events, constraint wrenches and contact frames as columns") {
  const fs::path dir = temporary_directory();
  const CliResult r =
      run_cli(fmt::format("run ladder_grasp --quiet --trajectory {0}/lg.csv --events {0}/ev.jsonl "
                          "--contacts {0}/c.csv --summary {0}/s.json --constraint-wrenches "
                          "--contact-frames",
                          dir.string()),
              dir);
  REQUIRE(r.status == 0);
  const std::string trajectory = read_file(dir / "lg.csv");
  const std::string header = trajectory.substr(0, trajectory.find('\n'));
  CHECK(header.find(",energy,pivot.on,pivot.fx,pivot.fy,pivot.fz,pivot.tx,pivot.ty,pivot.tz,"
                    "grasp.on,grasp.fx") != std::string::npos);
  // At t = 1.75 s the arm hangs from the rung: the weld carries its weight m g (the arm's mass,
  // of a 3 cm sphere of the palette's steel, 7850 kg/m^3), to the multipliers' 1e-10.
  const auto row_start = trajectory.find("\n1.75,");
  REQUIRE(row_start != std::string::npos);
  std::vector<double> row;
  const auto row_end = trajectory.find('\n', row_start + 1);
  std::stringstream line(trajectory.substr(row_start + 1, row_end - row_start - 1));
  for (std::string cell; std::getline(line, cell, ',');) row.push_back(std::stod(cell));
  const double grasp_fz = row[row.size() - 4];
  const double arm_mass = 7850.0 * 4.0 / 3.0 * std::numbers::pi * 0.03 * 0.03 * 0.03;
  CHECK(grasp_fz == doctest::Approx(arm_mass * 9.81).epsilon(1e-8));
  CHECK(row[row.size() - 7] == 1.0);   // grasp.on
  CHECK(row[row.size() - 14] == 0.0);  // pivot.on (let go at 1.5 s)
  const std::string events = read_file(dir / "ev.jsonl");
  CHECK(events.find(R"("bilateral":"grasp","bodies":["rung","arm"])") != std::string::npos);
  CHECK(events.find(R"("kind":"bilateral_off")") != std::string::npos);
  CHECK(read_file(dir / "s.json").find(R"("bilateral_switches": 4)") != std::string::npos);
  const std::string contacts = read_file(dir / "c.csv");
  CHECK(contacts.find("witness_b_z,tangent1_x,tangent1_y,tangent1_z,tangent2_x,tangent2_y,"
                      "tangent2_z,mu,mu2\n") != std::string::npos);
}

TEST_CASE("cli: check prints the resolved model, names initial overlaps and fallback pairs") {
  const fs::path dir = temporary_directory();
  SUBCASE("every catalog scene checks clean (--strict: no warning)") {
    for (const CatalogEntry& entry : list_catalog()) {
      CAPTURE(entry.name);
      const CliResult r = run_cli("check --strict " + entry.name, dir);
      CHECK(r.status == 0);
      CHECK(r.out.find("warnings: 0") != std::string::npos);
    }
  }
  SUBCASE("a box 6.7 mm inside the floor: the overlap is named with its depth") {
    std::ofstream(dir / "sunk.yaml") << R"(
bodies:
  - name: floor
    fixed: true
    shapes: [{name: top, type: halfspace, material: Steel}]
  - name: crate
    position: [0, 0, 0.0433]
    shapes: [{name: block, type: box, size: [0.2, 0.2, 0.1], material: Steel}]
)";
    const CliResult text = run_cli(fmt::format("check {}/sunk.yaml", dir.string()), dir);
    CHECK(text.status == 0);  // a warning, not an error, without --strict
    CHECK(text.out.find("initial_overlap: floor/top and crate/block overlap by 0.0067 m") !=
          std::string::npos);
    CHECK(run_cli(fmt::format("check --strict {}/sunk.yaml", dir.string()), dir).status == 1);
    const CliResult json_run = run_cli(fmt::format("check --json {}/sunk.yaml", dir.string()), dir);
    REQUIRE(json_run.status == 0);
    const auto out = nlohmann::json::parse(json_run.out);
    // Four corners of the bottom face, each 6.7 mm deep (0.05 - 0.0433).
    REQUIRE(out["initial_contacts"].size() == 4);
    for (const auto& contact : out["initial_contacts"]) {
      CHECK(std::abs(contact["depth"].get<double>() - 0.0067) < 1e-12);
    }
    CHECK(out["bodies"][1]["mass"].get<double>() == doctest::Approx(7850.0 * 0.2 * 0.2 * 0.1));
  }
  SUBCASE("a missing material pair: the fallback rule with the values it produced") {
    std::ofstream(dir / "fallback.yaml") << R"(
materials:
  A: {density: 1000, youngs_modulus: 1.0e9, poisson_ratio: 0.3}
  B: {density: 1000, youngs_modulus: 1.0e9, poisson_ratio: 0.3}
contact_materials:
  - {pair: [A, A], restitution: 0.81, friction: {model: regularized_coulomb, mu_kinetic: 0.4}}
  - {pair: [B, B], restitution: 0.25, friction: {model: regularized_coulomb, mu_kinetic: 0.9}}
bodies:
  - name: floor
    fixed: true
    shapes: [{name: top, type: halfspace, material: A}]
  - name: ball
    position: [0, 0, 1]
    shapes: [{name: sphere, type: sphere, radius: 0.1, material: B}]
)";
    const CliResult r = run_cli(fmt::format("check --json {}/fallback.yaml", dir.string()), dir);
    REQUIRE(r.status == 0);
    const auto out = nlohmann::json::parse(r.out);
    REQUIRE(out["contact_materials"].size() == 1);
    const auto& pair = out["contact_materials"][0];
    CHECK(pair["from"].get<std::string>().find("fallback") != std::string::npos);
    // Geometric means: sqrt(0.81 * 0.25) = 0.45, sqrt(0.4 * 0.9) = 0.6.
    CHECK(pair["restitution"].get<double>() == doctest::Approx(0.45).epsilon(1e-12));
    CHECK(pair["friction"]["mu_kinetic"].get<double>() == doctest::Approx(0.6).epsilon(1e-12));
  }
  SUBCASE("a load error is status 2, naming the file") {
    std::ofstream(dir / "broken.yaml") << "bodies:\n  - name: ball\n    mass: -1\n";
    const CliResult r = run_cli(fmt::format("check {}/broken.yaml", dir.string()), dir);
    CHECK(r.status == 2);
    CHECK(r.err.find("broken.yaml") != std::string::npos);
  }
}

}  // namespace
}  // namespace hybridsim
