// `hybridsim run`'s trajectory selection (tools/trajectory_columns.hpp): the columns, the instants
// and the event-row rate cap each write a subset of the full trajectory, value for value, and bad
// selections exit 2 before the run naming the flag.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace hybridsim {
namespace {

using testing::read_file;
using testing::run_cli;

using Table = std::vector<std::vector<std::string>>;  // the header first, fields as text

Table read_table(const std::filesystem::path& path) {
  Table table;
  std::istringstream text(read_file(path));
  for (std::string line; std::getline(text, line);) {
    std::vector<std::string> fields;
    std::istringstream row(line);
    for (std::string field; std::getline(row, field, ',');) fields.push_back(field);
    table.push_back(fields);
  }
  return table;
}

std::size_t column(const Table& table, const std::string& name) {
  for (std::size_t i = 0; i < table.front().size(); ++i) {
    if (table.front()[i] == name) return i;
  }
  FAIL("no column " << name);
  return 0;
}

TEST_CASE("trajectory selection: columns, output instants and the event-row cap are subsets") {
  const auto dir = testing::temporary_directory();
  // The steel sphere's 15 bounces in 3 s, closer and closer: 30 event rows between the outputs.
  const std::string run = "run bouncing_sphere --quiet --stop-time 3 --output-interval 0.05 ";
  const auto write = [&](const std::string& name, const std::string& flags) {
    REQUIRE(run_cli(run + "--trajectory " + (dir / name).string() + " " + flags, dir).status == 0);
    return read_table(dir / name);
  };
  const Table full = write("full.csv", "");
  const Table some = write("some.csv", "--trajectory-columns 'ball.z,ball.v*,energy'");
  const Table outputs = write("outputs.csv", "--trajectory-instants outputs");
  const Table capped = write("capped.csv", "--trajectory-max-rate 10");

  // Columns: t first (always), then those matched, in the file's order; every value as in full.
  CHECK(some.front() ==
        std::vector<std::string>{"t", "ball.z", "ball.vx", "ball.vy", "ball.vz", "energy"});
  REQUIRE(some.size() == full.size());
  for (std::size_t r = 1; r < full.size(); ++r) {
    for (std::size_t c = 0; c < some.front().size(); ++c) {
      CHECK(some[r][c] == full[r][column(full, some.front()[c])]);
    }
  }

  // Instants: the 61 outputs of 3 s at 0.05 s, each a row of full; full has the event rows too.
  REQUIRE(outputs.size() == 1 + 61);
  std::set<std::vector<std::string>> full_rows(full.begin() + 1, full.end());
  for (std::size_t r = 1; r < outputs.size(); ++r) {
    CHECK(std::abs(std::stod(outputs[r][0]) - 0.05 * static_cast<double>(r - 1)) < 1e-12);
    CHECK(full_rows.count(outputs[r]) == 1);
  }
  CHECK(full.size() > outputs.size() + 20);

  // The cap: every output row, and of the full file's event rows those 0.1 s or more after the
  // event row kept before them, rebuilt here from the full file by that rule.
  const std::set<std::vector<std::string>> output_rows(outputs.begin() + 1, outputs.end());
  Table expected(1, capped.front());
  double last_kept = -1e300;
  for (std::size_t r = 1; r < full.size(); ++r) {
    const bool event_row = output_rows.count(full[r]) == 0;
    if (event_row && std::stod(full[r][0]) - last_kept < 0.1) continue;
    if (event_row) last_kept = std::stod(full[r][0]);
    expected.push_back(full[r]);
  }
  CHECK(capped == expected);
  const std::size_t event_rows = capped.size() - outputs.size();
  CHECK(event_rows >= 2);
  CHECK(event_rows <= 30);  // at most 10 a simulated second
  CHECK(event_rows < full.size() - outputs.size());

  // Bad selections: exit 2 before the run, naming the flag and the value; no file left.
  const auto refused = [&](const std::string& flags, const std::string& message) {
    CAPTURE(flags);
    const auto result =
        run_cli(run + "--trajectory " + (dir / "bad.csv").string() + " " + flags, dir);
    CHECK(result.status == 2);
    CHECK(result.err.find(message) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "bad.csv"));
  };
  refused("--trajectory-columns 't,wheel.*'", "--trajectory-columns: 'wheel.*' matches no column");
  refused("--trajectory-columns 'ball.x,,energy'",
          "--trajectory-columns 'ball.x,,energy': an "
          "empty pattern");
  refused("--trajectory-instants events", "--trajectory-instants 'events': expected all");
  refused("--trajectory-max-rate 0", "--trajectory-max-rate 0: must be above 0");
  // A selection without a trajectory to apply it to is a mistake, not a silent no-op.
  for (const std::string flags : {"--trajectory-columns 'ball.z'", "--trajectory-instants outputs",
                                  "--trajectory-max-rate 10", "--trajectory-format hdf5"}) {
    CAPTURE(flags);
    const auto result = run_cli(run + flags, dir);
    CHECK(result.status == 2);
    const std::string flag = flags.substr(0, flags.find(' '));
    CHECK(result.err.find(flag + " applies to the trajectory: give --trajectory FILE or --out "
                                 "DIR as well") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hybridsim
