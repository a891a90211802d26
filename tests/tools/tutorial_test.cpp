// docs/tutorial.md runs as written: every `<!-- file: NAME -->` block is written to a fresh
// folder, every `$ ` command of a console block is run there (`hybridsim` being the built
// program), and each line the tutorial shows under a command must appear in (be part of a line
// of) what the command prints.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "models/scene_loader.hpp"

namespace hybridsim {
namespace {

namespace fs = std::filesystem;

struct Command {
  std::string line;                   // after "$ "
  std::vector<std::string> expected;  // the lines shown under it
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

TEST_CASE("docs/tutorial.md: every file and command runs and prints what the page shows") {
  const std::string page =
      testing::read_file(fs::path(HYBRIDSIM_MODELS_DIR) / ".." / "docs" / "tutorial.md");
  const fs::path dir = testing::temporary_directory();
  const std::vector<std::string> lines = lines_of(page);
  int files = 0;
  std::vector<Command> commands;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.rfind("<!-- file: ", 0) == 0) {
      const std::string name = line.substr(11, line.find(" -->") - 11);
      REQUIRE(lines.at(i + 1).rfind("```", 0) == 0);
      std::ofstream file(dir / name);
      for (i += 2; lines.at(i) != "```"; ++i) file << lines[i] << '\n';
      ++files;
    } else if (line == "```console") {
      for (++i; lines.at(i) != "```"; ++i) {
        if (lines[i].rfind("$ ", 0) == 0) {
          commands.push_back({lines[i].substr(2), {}});
        } else {
          REQUIRE(!commands.empty());
          commands.back().expected.push_back(lines[i]);
        }
      }
    }
  }
  CHECK(files == 4);
  CHECK(commands.size() >= 9);
  for (const Command& command : commands) {
    CAPTURE(command.line);
    std::string shell = command.line;
    if (shell.rfind("hybridsim ", 0) == 0) {
      shell = std::string(HYBRIDSIM_EXECUTABLE) + shell.substr(9);
    }
    const std::string full = fmt::format("cd '{}' && {} >out.txt 2>err.txt", dir.string(), shell);
    CHECK(std::system(full.c_str()) == 0);
    const std::vector<std::string> printed = lines_of(testing::read_file(dir / "out.txt"));
    for (const std::string& expected : command.expected) {
      CAPTURE(expected);
      bool found = false;
      for (const std::string& actual : printed) {
        if (actual.find(expected) != std::string::npos) found = true;
      }
      CHECK(found);
    }
  }
}

TEST_CASE("docs/gallery.md: every catalog scene with its picture, reference and command") {
  // Regenerate with: /usr/bin/python3 tools/make_gallery.py build/tools/hybridsim
  const fs::path docs = fs::path(HYBRIDSIM_MODELS_DIR) / ".." / "docs";
  const std::string page = testing::read_file(docs / "gallery.md");
  for (const CatalogEntry& entry : list_catalog()) {
    CAPTURE(entry.name);
    CHECK(page.find("\n## " + entry.name + "\n") != std::string::npos);
    CHECK(page.find("(gallery/" + entry.name + ".png)") != std::string::npos);
    CHECK(page.find("`build/tools/hybridsim run " + entry.name + " ") != std::string::npos);
    if (!entry.reference.empty()) CHECK(page.find(entry.reference) != std::string::npos);
    CHECK(fs::file_size(docs / "gallery" / (entry.name + ".png")) > 1000);
  }
}

}  // namespace
}  // namespace hybridsim
