// `hybridsim run --checkpoint FILE` and `--resume FILE`: a run continued by another process.
//  - The bouncing sphere stopped in flight with a checkpoint, then resumed to its stop time: the
//    next impact comes when ballistic flight from the checkpoint's state says, and every later
//    event is the uninterrupted run's; the counters carry on (their sums match that run's).
//  - A box resting on a slab, checkpointed while its contact is in contactDict: the resumed run
//    keeps it (no event, the box rests where the uninterrupted run's does).
//  - Bad checkpoints (another scene, malformed JSON, a missing or wrong key) exit with status 2
//    and a message naming the file, the key and the value.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "core/rigid_body.hpp"
#include "models/scene_loader.hpp"

namespace hybridsim {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::read_file;
using testing::run_cli;
using testing::temporary_directory;

std::vector<nlohmann::json> read_events(const fs::path& path) {
  std::vector<nlohmann::json> events;
  std::istringstream lines(read_file(path));
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) events.push_back(nlohmann::json::parse(line));
  }
  return events;
}

// `hybridsim run SCENE --stop-time STOP`, writing a checkpoint after every event and at the end.
void run_with_checkpoints(const std::string& scene, double stop_time, const std::string& path,
                          const fs::path& dir) {
  REQUIRE(run_cli(fmt::format("run {} --quiet --stop-time {} --checkpoint {} "
                              "--checkpoint-interval 0",
                              scene, stop_time, path),
                  dir)
              .status == 0);
}

// The events of `all` after time t.
std::vector<nlohmann::json> events_after(const std::vector<nlohmann::json>& all, double t) {
  std::vector<nlohmann::json> later;
  for (const nlohmann::json& event : all) {
    if (event["t"].get<double>() > t) later.push_back(event);
  }
  return later;
}

// The resumed run's events against the uninterrupted run's: the same kinds and pairs, at times
// within `time_tolerance` s.
void check_same_events(const std::vector<nlohmann::json>& resumed,
                       const std::vector<nlohmann::json>& reference, double time_tolerance) {
  REQUIRE(resumed.size() == reference.size());
  for (std::size_t i = 0; i < resumed.size(); ++i) {
    CAPTURE(i);
    CHECK(resumed[i]["kind"] == reference[i]["kind"]);
    CHECK(resumed[i]["pair"] == reference[i]["pair"]);
    CHECK(std::abs(resumed[i]["t"].get<double>() - reference[i]["t"].get<double>()) <
          time_tolerance);
  }
}

TEST_CASE("checkpoint: the bouncing sphere resumed in flight lands where ballistics says") {
  const fs::path dir = temporary_directory();
  const std::string checkpoint = (dir / "c.json").string();
  REQUIRE(run_cli(fmt::format("run bouncing_sphere --quiet --events {} --summary {}",
                              (dir / "full.jsonl").string(), (dir / "full.json").string()),
                  dir)
              .status == 0);
  // Stopped at 1.3 s, in the flight after the second bounce: the checkpoint at the end of the run
  // (the ones after each event before it are overwritten).
  run_with_checkpoints("bouncing_sphere", 1.3, checkpoint, dir);
  const auto saved = nlohmann::json::parse(read_file(checkpoint));
  const double t_checkpoint = saved["t"].get<double>();
  CHECK(t_checkpoint == 1.3);
  CHECK(saved["contact_points"].empty());  // in flight
  CHECK(saved["counters"]["contact_ends"] == 2);
  const double z = saved["x"][2].get<double>();
  const double v = saved["x"][kFreeBodyVelocityOffset + 2].get<double>();

  const CliResult resumed = run_cli(
      fmt::format("run bouncing_sphere --quiet --resume {} --events {} --summary {}", checkpoint,
                  (dir / "resumed.jsonl").string(), (dir / "resumed.json").string()),
      dir);
  REQUIRE(resumed.status == 0);
  const std::vector<nlohmann::json> events = read_events(dir / "resumed.jsonl");
  REQUIRE(!events.empty());

  // Ballistic flight from the checkpoint's height z and speed v down to the plate (its top at
  // z = 0, the sphere's radius 0.1 m; the contact starts 3e-13 m deeper, negligible): it lands
  // after (v + sqrt(v^2 + 2 g (z - r))) / g at the speed sqrt(v^2 + 2 g (z - r)). The event is
  // located to the root finder's tolerance at rtol 1e-8 (far below 1e-9 s) and the flight is
  // integrated to rtol 1e-8, so 1e-7 s and 1e-7 relative in speed leave room for both.
  const double g = -load_scene_file("bouncing_sphere").gravity_W.z();
  const double v_land = std::sqrt(v * v + 2.0 * g * (z - 0.1));
  CHECK(events[0]["kind"] == "contact_start");
  CHECK(std::abs(events[0]["t"].get<double>() - (t_checkpoint + (v + v_land) / g)) < 1e-7);
  CHECK(std::abs(events[0]["v_pre"].get<double>() - v_land) < 1e-7 * v_land);

  // The rest is the uninterrupted run's. Not to round-off: the run that wrote the checkpoint
  // stopped at 1.3 s, and the smallest step scales with the stop time, so its events came up to
  // 1e-7 s from the 3 s run's; that difference grows through the ever slower bounces (the
  // restitution falls to 0 below v_small) to under 1e-6 s by the last one, so 1e-5 s.
  check_same_events(events, events_after(read_events(dir / "full.jsonl"), t_checkpoint), 1e-5);
  const auto full = nlohmann::json::parse(read_file(dir / "full.json"));
  const auto summary = nlohmann::json::parse(read_file(dir / "resumed.json"));
  CHECK(summary["resumed_at"] == t_checkpoint);
  CHECK(summary["t_end"] == full["t_end"]);
  for (const char* counter : {"contact_starts", "contact_ends", "state_events", "restarts"}) {
    CAPTURE(counter);
    CHECK(summary["stats"][counter] == full["stats"][counter]);
  }
  // Steps: the same but for the resume's own restart in flight (CVODE's ramp from a first step
  // of 2.5e-5 s: 20 steps to the landing where the uninterrupted run took 5) and a step or so per
  // later contact that the round-off moves (31 events, 2,582 steps; measured 38 more): 2%.
  CHECK(std::abs(summary["stats"]["steps"].get<double>() - full["stats"]["steps"].get<double>()) <
        0.02 * full["stats"]["steps"].get<double>());
  CHECK(summary["energy"]["initial"] == full["energy"]["initial"]);
  CHECK(summary["wall_time_total_s"].get<double>() >= summary["wall_time_s"].get<double>());
}

TEST_CASE("checkpoint: contacts in contactDict at the checkpoint carry on after the resume") {
  // The seed's one point per pair, and the manifold's four corners (slots 0 to 3).
  for (const auto& entry : {std::pair{"single", 1}, std::pair{"manifold", 4}}) {
    // Not a structured binding: clang 14 cannot capture one in a lambda (CAPTURE does).
    const auto& points = std::get<0>(entry);
    const auto& count = std::get<1>(entry);
    CAPTURE(points);
    const std::string scene = fmt::format("box_resting_flat --set contact.points={}", points);
    const fs::path dir = temporary_directory();
    const std::string checkpoint = (dir / "c.json").string();
    REQUIRE(run_cli(fmt::format("run {} --quiet --summary {}", scene, (dir / "full.json").string()),
                    dir)
                .status == 0);
    // The box's last bounce ends in a contact start near 0.19 s, after which it rests on the slab:
    // the last checkpoint before 0.45 s holds that contact.
    run_with_checkpoints(scene, 0.45, checkpoint, dir);
    const auto saved = nlohmann::json::parse(read_file(checkpoint));
    // One pair, slab and box, face on face: its points, 14 numbers each.
    REQUIRE(saved["contact_points"].size() == 14u * static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k) {
      CHECK(saved["contact_points"][14 * k + 2].get<double>() == k);    // slot
      CHECK(saved["contact_points"][14 * k + 11].get<double>() > 0.0);  // stored pre-impact speed
    }

    REQUIRE(run_cli(fmt::format("run {} --quiet --resume {} --events {} --summary {}", scene,
                                checkpoint, (dir / "resumed.jsonl").string(),
                                (dir / "resumed.json").string()),
                    dir)
                .status == 0);
    // Resting on the contact it had: no event at all (without the pair the box would sink through
    // the 3e-13 m band and start a contact again), and it ends at the height where the
    // uninterrupted run's box ends: its static penetration under its weight, which no history
    // changes (1e-9 m: the resting state to rtol, far below the penetration). Where it slid to
    // does depend on the bounces, which the two runs took 1e-4 s apart (the checkpointing run's
    // other stop time), so x and y are not compared.
    CHECK(read_events(dir / "resumed.jsonl").empty());
    const auto full = nlohmann::json::parse(read_file(dir / "full.json"));
    const auto resumed = nlohmann::json::parse(read_file(dir / "resumed.json"));
    const auto& box_full = full["final_state"]["bodies"]["cube"];
    const auto& box_resumed = resumed["final_state"]["bodies"]["cube"];
    CHECK(std::abs(box_resumed["position"][2].get<double>() -
                   box_full["position"][2].get<double>()) < 1e-9);
    for (int i = 0; i < 3; ++i) {
      CHECK(std::abs(box_resumed["linear_velocity"][i].get<double>()) < 1e-6);
    }
  }
}

TEST_CASE("checkpoint: a run resumed while a bilateral contact holds keeps it and its frame") {
  // ladder_grasp stopped at 1.7 s hangs from the rung by the weld alone; resumed, it must still
  // hang until the weld's off time (2 s) and then fall as the uninterrupted run's arm does. A
  // weld lost at the resume would drop the arm 0.3 s early: 1.7 m lower at 2.5 s.
  const fs::path dir = temporary_directory();
  const std::string checkpoint = (dir / "c.json").string();
  REQUIRE(
      run_cli(fmt::format("run ladder_grasp --quiet --summary {}", (dir / "full.json").string()),
              dir)
          .status == 0);
  run_with_checkpoints("ladder_grasp", 1.7, checkpoint, dir);
  const auto saved = nlohmann::json::parse(read_file(checkpoint));
  // The gripper's contact with the rung (14 numbers), then two bilateral contacts (22 each).
  REQUIRE(saved["contact_points"].size() == 14u + 2u * 22u);
  CHECK(saved["contact_points"][14].get<double>() == 0.0);       // pivot: off since 1.5 s
  CHECK(saved["contact_points"][14 + 22].get<double>() == 1.0);  // grasp: on
  REQUIRE(run_cli(fmt::format("run ladder_grasp --quiet --resume {} --events {} --summary {}",
                              checkpoint, (dir / "resumed.jsonl").string(),
                              (dir / "resumed.json").string()),
                  dir)
              .status == 0);
  const std::vector<nlohmann::json> events = read_events(dir / "resumed.jsonl");
  REQUIRE(!events.empty());
  CHECK(events.front()["kind"] == "bilateral_off");
  CHECK(events.front()["bilateral"] == "grasp");
  CHECK(events.front()["t"].get<double>() == 2.0);
  // The same free fall from the same rest position: to the integrators' 1e-8 m.
  const auto full = nlohmann::json::parse(read_file(dir / "full.json"));
  const auto resumed = nlohmann::json::parse(read_file(dir / "resumed.json"));
  for (int i = 0; i < 3; ++i) {
    CHECK(std::abs(resumed["final_state"]["bodies"]["arm"]["position"][i].get<double>() -
                   full["final_state"]["bodies"]["arm"]["position"][i].get<double>()) < 1e-8);
  }
  CHECK(resumed["stats"]["bilateral_switches"].get<long>() == 4);
}

TEST_CASE("checkpoint: stick-slip patches carry on after the resume, sticking and sliding") {
  // Drake's push ramp with true stiction (push_ramp_stick_slip): P = t N, mu_s m g = 4.905 N,
  // then sliding with mu_k until the speed returns to zero at 13.0499159021 s (the scene's closed
  // form). Checkpointed while stuck (3 s) and while sliding (8 s), each resumed run must break
  // away and stick again at the closed-form instants; a patch lost or reset at the resume would
  // stick again at once (at 8 s) or break away at the resume (at 3 s). Tolerances: the force
  // at the root is as accurate as the run (rtol 1e-10 of mu_s m g, 4.9e-10 N at 1 N/s: 4.9e-10 s),
  // and the resumed run restarts at order 1, so 5e-9 s for the break-away; the scene test's 1e-8 s
  // for the stop.
  const fs::path dir = temporary_directory();
  for (const double stop : {3.0, 8.0}) {
    CAPTURE(stop);
    const std::string checkpoint = (dir / fmt::format("c{}.json", stop)).string();
    run_with_checkpoints("push_ramp_stick_slip", stop, checkpoint, dir);
    const fs::path events_path = dir / fmt::format("resumed{}.jsonl", stop);
    REQUIRE(run_cli(fmt::format("run push_ramp_stick_slip --quiet --resume {} --events {}",
                                checkpoint, events_path.string()),
                    dir)
                .status == 0);
    std::vector<nlohmann::json> switches;
    for (const nlohmann::json& event : read_events(events_path)) {
      if (event["kind"] == "stick" || event["kind"] == "slip") switches.push_back(event);
    }
    REQUIRE(switches.size() == (stop < 4.905 ? 2u : 1u));
    if (stop < 4.905) {
      CHECK(switches[0]["kind"] == "slip");
      CHECK(std::abs(switches[0]["t"].get<double>() - 4.905) < 5e-9);
    }
    CHECK(switches.back()["kind"] == "stick");
    CHECK(std::abs(switches.back()["t"].get<double>() - 13.0499159021) < 1e-8);
  }
}

TEST_CASE("checkpoint: a spin held by torsional stick is still held after the resume") {
  // A sphere spinning in place (the catalog's torsional_stick_top): its spin stops
  // and sticks at 0.2039 s; a twist rising at 1 N m/s from 0.3 s breaks it away when it reaches
  // mu_t R m g = 0.04905 N m, at 0.34905 s. Checkpointed at 0.25 s while held, the resumed run
  // must break away at that instant (1e-9 s); a spin row lost at the resume would turn at once.
  const fs::path dir = temporary_directory();
  const std::string checkpoint = (dir / "top.json").string();
  run_with_checkpoints("torsional_stick_top", 0.25, checkpoint, dir);
  REQUIRE(run_cli(fmt::format("run torsional_stick_top --quiet --resume {} --events {}", checkpoint,
                              (dir / "resumed.jsonl").string()),
                  dir)
              .status == 0);
  const std::vector<nlohmann::json> events = read_events(dir / "resumed.jsonl");
  std::vector<nlohmann::json> switches;
  for (const nlohmann::json& event : events) {
    if (event["kind"] == "stick" || event["kind"] == "slip") switches.push_back(event);
  }
  REQUIRE(switches.size() == 1);
  CHECK(switches[0]["kind"] == "slip");
  CHECK(std::abs(switches[0]["t"].get<double>() - 0.34905) < 1e-9);
}

TEST_CASE("checkpoint: a rolling ball resumes rolling and stops under rolling stick") {
  // The catalog's rolling_stick_ball: held at its moving contact point, its rolling slows under
  // the rolling resistance and sticks at v0 / a = 2.85421838 s (the scene's closed form).
  // Checkpointed at 1.5 s, while it rolls, the resumed run must stop at that instant (1e-9 s): a
  // rolling direction or a rolling hold lost at the resume would stop it elsewhere or not at all.
  const fs::path dir = temporary_directory();
  const std::string checkpoint = (dir / "ball.json").string();
  run_with_checkpoints("rolling_stick_ball", 1.5, checkpoint, dir);
  REQUIRE(run_cli(fmt::format("run rolling_stick_ball --quiet --resume {} --events {}", checkpoint,
                              (dir / "resumed.jsonl").string()),
                  dir)
              .status == 0);
  std::vector<nlohmann::json> switches;
  for (const nlohmann::json& event : read_events(dir / "resumed.jsonl")) {
    if (event["kind"] == "stick" || event["kind"] == "slip") switches.push_back(event);
  }
  REQUIRE(switches.size() == 1);
  CHECK(switches[0]["kind"] == "stick");
  CHECK(std::abs(switches[0]["t"].get<double>() - 2.854218377166) < 1e-9);

  // The same with torsional stick as well (the spin held at zero does not change the rolling):
  // both parts' numbers in the checkpoint, the rolling's first, read back in that order.
  std::string scene = read_file(fs::path(HYBRIDSIM_MODELS_DIR) / "scenes/rolling_stick_ball.yaml");
  scene.replace(scene.find("rolling_stick: true"), 19,
                "rolling_stick: true, torsional_stick: true");
  scene.replace(scene.find("    rolling_resistance"), 0, "    torsional_friction: 0.1\n");
  const fs::path both = dir / "both.yaml";
  std::ofstream(both) << scene;
  const std::string both_checkpoint = (dir / "both.json").string();
  run_with_checkpoints(both.string(), 1.5, both_checkpoint, dir);
  REQUIRE(run_cli(fmt::format("run {} --quiet --resume {} --events {}", both.string(),
                              both_checkpoint, (dir / "both.jsonl").string()),
                  dir)
              .status == 0);
  switches.clear();
  for (const nlohmann::json& event : read_events(dir / "both.jsonl")) {
    if (event["kind"] == "stick" || event["kind"] == "slip") switches.push_back(event);
  }
  REQUIRE(switches.size() == 1);
  CHECK(std::abs(switches[0]["t"].get<double>() - 2.854218377166) < 1e-9);
}

TEST_CASE("checkpoint: a version 1 file (one point per pair) is read as one point per pair") {
  // The demo ball resting on the plate at 3 s, its checkpoint written back in the first layout:
  // `contact_pairs` with the two shapes, v_pre and d_res. The resumed run keeps the contact (no
  // event) and ends where the uninterrupted one does.
  const fs::path dir = temporary_directory();
  const std::string checkpoint = (dir / "c.json").string();
  run_with_checkpoints("bouncing_sphere", 3.0, checkpoint, dir);
  auto saved = nlohmann::json::parse(read_file(checkpoint));
  const auto points = saved["contact_points"];
  REQUIRE(points.size() == 14);
  saved.erase("contact_points");
  saved["version"] = 1;
  saved["contact_pairs"] = {points[0], points[1], points[11], points[12]};
  const std::string old = (dir / "old.json").string();
  std::ofstream(old) << saved.dump();
  REQUIRE(
      run_cli(fmt::format("run bouncing_sphere --quiet --stop-time 3.5 --resume {} --events {} "
                          "--summary {}",
                          old, (dir / "resumed.jsonl").string(), (dir / "resumed.json").string()),
              dir)
          .status == 0);
  CHECK(read_events(dir / "resumed.jsonl").empty());
  const auto resumed = nlohmann::json::parse(read_file(dir / "resumed.json"));
  // At rest on the plate at the static Hertz depth (3.7e-6 m below 0.1 m).
  const double z = resumed["final_state"]["bodies"]["ball"]["position"][2].get<double>();
  CHECK(z < 0.1);
  CHECK(z > 0.1 - 1e-5);
}

TEST_CASE("checkpoint: contact points whose features do not fit their shapes are refused") {
  // The manifold box resting on the slab: four points (reference: the slab's top face, kind 3 =
  // a face of A, face 5; each point the slab's face and a cube vertex). Each corruption is one
  // the manifold never makes, and would index outside a face or a vertex list if evaluated.
  const fs::path dir = temporary_directory();
  const std::string checkpoint = (dir / "c.json").string();
  const std::string scene = "box_resting_flat --set contact.points=manifold";
  run_with_checkpoints(scene, 0.45, checkpoint, dir);
  const auto saved = nlohmann::json::parse(read_file(checkpoint));
  REQUIRE(saved["contact_points"].size() == 4 * 14);
  REQUIRE(saved["contact_points"][3].get<double>() == 3.0);
  const auto resume_with = [&](int index, double value) {
    nlohmann::json wrong = saved;
    wrong["contact_points"][index] = value;
    const std::string path = (dir / "bad.json").string();
    std::ofstream(path) << wrong.dump();
    return run_cli(fmt::format("run {} --resume {}", scene, path), dir);
  };
  // The cube's vertex 999 (it has 8); an edge on the cube against the slab's face (not a pair
  // the clipping makes); a face of 99 for the reference; a negative validity offset; the second
  // point under another reference than the first.
  for (const auto& entry : {std::pair{9, 999.0}, std::pair{8, 2.0}, std::pair{4, 99.0},
                            std::pair{13, -1.0}, std::pair{14 + 3, 4.0}}) {
    // Not a structured binding: clang 14 cannot capture one in a lambda (CAPTURE does).
    const auto& index = std::get<0>(entry);
    const auto& value = std::get<1>(entry);
    CAPTURE(index);
    const CliResult r = resume_with(index, value);
    CHECK(r.status == 2);
    CHECK(r.err.find("contact_points") != std::string::npos);
  }
  // Unchanged, it resumes.
  CHECK(resume_with(9, saved["contact_points"][9].get<double>()).status == 0);
}

TEST_CASE("checkpoint: a terrain point under a polytope's reference kind is refused, no crash") {
  // A ball on a heightmap is a terrain point (reference kind 5). Named a polytope pair's kind
  // instead (1 closest, 2 half-space, 3 and 4 a face of A or B), it would index the vertex and
  // face lists a ball and a heightmap do not have: the resume must stop with status 2.
  const fs::path dir = temporary_directory();
  const std::string checkpoint = (dir / "c.json").string();
  run_with_checkpoints("heightmap_hills", 1.0, checkpoint, dir);
  const auto saved = nlohmann::json::parse(read_file(checkpoint));
  REQUIRE(saved["contact_points"].size() >= 14u);
  REQUIRE(saved["contact_points"][3].get<double>() == 5.0);
  for (const double kind : {1.0, 2.0, 3.0, 4.0}) {
    CAPTURE(kind);
    nlohmann::json wrong = saved;
    wrong["contact_points"][3] = kind;
    wrong["contact_points"][4] = 0.0;  // a face index a polytope would have
    const std::string path = (dir / "bad.json").string();
    std::ofstream(path) << wrong.dump();
    const CliResult r = run_cli(fmt::format("run heightmap_hills --resume {}", path), dir);
    CHECK(r.status == 2);
    CHECK(r.err.find("contact_points") != std::string::npos);
  }
}

TEST_CASE("checkpoint: a bad checkpoint exits with status 2 naming the file, key and value") {
  const fs::path dir = temporary_directory();
  const std::string checkpoint = (dir / "c.json").string();
  run_with_checkpoints("bouncing_sphere", 1.3, checkpoint, dir);
  const auto saved = nlohmann::json::parse(read_file(checkpoint));

  // Another scene's checkpoint.
  CliResult r = run_cli(fmt::format("run box_resting_flat --resume {}", checkpoint), dir);
  CHECK(r.status == 2);
  CHECK(r.err.find(checkpoint) != std::string::npos);
  CHECK(r.err.find("'scene'") != std::string::npos);
  CHECK(r.err.find("bouncing_sphere") != std::string::npos);

  const auto write_and_resume = [&](const std::string& text) {
    const std::string path = (dir / "bad.json").string();
    std::ofstream(path) << text;
    return run_cli(fmt::format("run bouncing_sphere --resume {}", path), dir);
  };
  r = write_and_resume(saved.dump().substr(0, 40));
  CHECK(r.status == 2);
  CHECK(r.err.find("bad.json") != std::string::npos);
  CHECK(r.err.find("malformed JSON") != std::string::npos);

  nlohmann::json wrong = saved;
  wrong["x"][0] = "high";
  r = write_and_resume(wrong.dump());
  CHECK(r.status == 2);
  CHECK(r.err.find("'x'") != std::string::npos);
  CHECK(r.err.find("\"high\"") != std::string::npos);

  wrong = saved;
  wrong.erase("counters");
  r = write_and_resume(wrong.dump());
  CHECK(r.status == 2);
  CHECK(r.err.find("'counters'") != std::string::npos);

  wrong = saved;
  // A shape the scene does not have.
  wrong["contact_points"] = {0, 99, 0, 0, -1, 0, 0, 0, 0, 0, 0, 1.0, 0.5, 0.0};
  r = write_and_resume(wrong.dump());
  CHECK(r.status == 2);
  CHECK(r.err.find("99") != std::string::npos);

  // Found by fuzzing (tools/fuzz.sh): a number beyond a double escaped the JSON reader as an
  // out_of_range exception (exit 3, "error:") instead of bad input naming the file.
  std::string text = saved.dump();
  text.replace(text.find("\"t\":") + 4, 1, "0.17E771,\"t_was\":");
  r = write_and_resume(text);
  CHECK(r.status == 2);
  CHECK(r.err.find("not a checkpoint (malformed JSON") != std::string::npos);
}

TEST_CASE(
    "checkpoint: a run killed by SIGTERM keeps its outputs and resumes from where it stopped") {
  // Newton's cradle asked for 1,000 s is stopped by SIGTERM 0.5 s of wall time after its first
  // checkpoint: it exits with 128 + 15, its summary says "interrupted" at the time it reached, its
  // trajectory ends there, and its checkpoint continues it. The continued run ends where an
  // uninterrupted run to the same time does (the restart takes other steps: agreement to the
  // tolerances, rtol 1e-10). The wait for the first checkpoint matters under sanitizers: a
  // signal sent before the run has started integrating (and installed its handler) kills it.
  const fs::path dir = temporary_directory();
  const std::string interrupted_run = fmt::format(
      "sh -c '{0} run newtons_cradle --quiet --stop-time 1000 --checkpoint {1}/cp.json "
      "--checkpoint-interval 0 --summary {1}/killed.json --trajectory {1}/killed.csv "
      "2>{1}/killed.err & pid=$!; "
      "while [ ! -s {1}/cp.json ] && kill -0 $pid 2>/dev/null; do sleep 0.005; done; "
      "sleep 0.5; kill -TERM $pid; wait $pid'",
      HYBRIDSIM_EXECUTABLE, dir.string());
  const int raw = std::system(interrupted_run.c_str());
  REQUIRE(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 128 + 15);
  const auto killed = nlohmann::json::parse(read_file(dir / "killed.json"));
  CHECK(killed["status"] == "interrupted");
  const double t_stop = killed["t_end"].get<double>();
  REQUIRE(t_stop > 0.0);
  REQUIRE(t_stop < 1000.0);
  // The trajectory's last row is at or before the stop (outputs up to the last step's end).
  std::istringstream rows(read_file(dir / "killed.csv"));
  std::string row, last;
  while (std::getline(rows, row)) last = row;
  CHECK(std::stod(last.substr(0, last.find(','))) <= t_stop);
  CHECK(std::stod(last.substr(0, last.find(','))) > t_stop - 0.01 - 1e-12);

  const double t_end = t_stop + 0.1;
  const CliResult resumed =
      run_cli(fmt::format("run newtons_cradle --quiet --stop-time {:.17g} --resume {}/cp.json "
                          "--summary {}/resumed.json",
                          t_end, dir.string(), dir.string()),
              dir);
  REQUIRE(resumed.status == 0);
  const CliResult whole =
      run_cli(fmt::format("run newtons_cradle --quiet --stop-time {:.17g} --summary {}/whole.json",
                          t_end, dir.string()),
              dir);
  REQUIRE(whole.status == 0);
  const auto a = nlohmann::json::parse(read_file(dir / "resumed.json"));
  const auto b = nlohmann::json::parse(read_file(dir / "whole.json"));
  CHECK(a["resumed_at"].get<double>() == t_stop);
  const auto& bodies_b = b["final_state"]["bodies"];
  REQUIRE(a["final_state"]["bodies"].size() == bodies_b.size());
  for (const auto& entry : a["final_state"]["bodies"].items()) {
    // Not a structured binding: clang 14 cannot capture one in a lambda (CAPTURE does).
    const std::string name = entry.key();
    const auto& body = entry.value();
    CAPTURE(name);
    for (int k = 0; k < 3; ++k) {
      CHECK(std::abs(body["position"][k].get<double>() -
                     bodies_b[name]["position"][k].get<double>()) < 1e-6);
    }
  }
}

}  // namespace
TEST_CASE("checkpoint: runs killed by SIGKILL at three random instants resume bit-identical") {
  // Newton's cradle over 60 s (about 1.2 s of wall time) with a checkpoint after every event,
  // killed without warning at a random instant; the run resumed from its last checkpoint ends
  // with the very state and counters of an uninterrupted run: every restart re-initialises the
  // integrator, and the checkpoint holds the state there bit for bit (17 significant digits).
  const fs::path dir = temporary_directory();
  REQUIRE(run_cli(fmt::format("run newtons_cradle --quiet --stop-time 60 --summary {}/whole.json",
                              dir.string()),
                  dir)
              .status == 0);
  const auto whole = nlohmann::json::parse(read_file(dir / "whole.json"));
  std::mt19937 random(std::random_device{}());
  // Counted from the first checkpoint's appearance, so that a slow start (a sanitised build takes
  // longer than the whole window to start) still leaves a checkpoint to resume from.
  std::uniform_real_distribution<double> instant(0.05, 0.75);  // s of wall time
  for (int k = 0; k < 3; ++k) {
    const double kill_after = instant(random);
    CAPTURE(kill_after);
    const std::string killed_run = fmt::format(
        "{0} run newtons_cradle --quiet --stop-time 60 --checkpoint {1}/ck{2}.json "
        "--checkpoint-interval 0 & pid=$!; "
        "while [ ! -s {1}/ck{2}.json ] && kill -0 $pid 2>/dev/null; do sleep 0.005; done; "
        "sleep {3:.3f}; kill -KILL $pid; wait $pid",
        HYBRIDSIM_EXECUTABLE, dir.string(), k, kill_after);
    std::system(killed_run.c_str());
    const auto checkpoint = nlohmann::json::parse(read_file(dir / fmt::format("ck{}.json", k)));
    CAPTURE(checkpoint["t"].get<double>());
    REQUIRE(checkpoint["t"].get<double>() < 60.0);
    REQUIRE(run_cli(fmt::format("run newtons_cradle --quiet --stop-time 60 --resume {0}/ck{1}.json "
                                "--summary {0}/resumed{1}.json",
                                dir.string(), k),
                    dir)
                .status == 0);
    const auto resumed = nlohmann::json::parse(read_file(dir / fmt::format("resumed{}.json", k)));
    CHECK(resumed["final_state"] == whole["final_state"]);
    CHECK(resumed["stats"] == whole["stats"]);
  }
}

}  // namespace hybridsim
