#include "tools/batch/batch_output.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "tools/python_script.hpp"

namespace hybridsim::batch {
namespace fs = std::filesystem;
namespace {

// A CSV field: numbers with 17 significant digits, null empty, text quoted when it must be.
std::string csv_field(const nlohmann::ordered_json& value) {
  if (value.is_null()) return "";
  if (value.is_number_float()) return fmt::format("{:.17g}", value.get<double>());
  if (value.is_number()) return value.dump();
  const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

void write_results(const std::string& directory, const ResultHeader& header,
                   const std::vector<Row>& rows) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) {
    throw InputError(
        fmt::format("{}: cannot create the output folder: {}", directory, error.message()));
  }
  const fs::path csv_path = fs::path(directory) / "results.csv";
  std::ofstream csv(csv_path);
  if (!csv) throw InputError(fmt::format("{}: cannot open for writing", csv_path.string()));
  const auto& columns = row_columns();
  for (std::size_t i = 0; i < columns.size(); ++i) csv << (i ? "," : "") << columns[i];
  csv << "\n";
  for (const Row& row : rows) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      csv << (i ? "," : "") << csv_field(row.at(columns[i]));
    }
    csv << "\n";
  }

  nlohmann::ordered_json json;
  json["experiment"] = header.experiment;
  json["source"] = header.source;
  json["total_runs"] = header.total_runs;
  json["slice"] = fmt::format("{}/{}", header.slice.index, header.slice.count);
  json["columns"] = columns;
  json["runs"] = rows;
  const fs::path json_path = fs::path(directory) / "results.json";
  std::ofstream out(json_path);
  if (!out) throw InputError(fmt::format("{}: cannot open for writing", json_path.string()));
  out << json.dump(1) << "\n";
}

std::pair<ResultHeader, std::vector<Row>> read_results(const std::string& directory) {
  const fs::path path = fs::path(directory) / "results.json";
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: no result set here (results.json)", path.string()));
  try {
    const nlohmann::ordered_json json = nlohmann::ordered_json::parse(in);
    ResultHeader header;
    header.experiment = json.at("experiment").get<std::string>();
    header.source = json.at("source").get<std::string>();
    header.total_runs = json.at("total_runs").get<int>();
    const std::string slice = json.at("slice").get<std::string>();
    if (std::sscanf(slice.c_str(), "%d/%d", &header.slice.index, &header.slice.count) != 2) {
      throw InputError(fmt::format("slice '{}' is not i/N", slice));
    }
    std::vector<Row> rows;
    for (const auto& row : json.at("runs")) rows.push_back(row);
    return {header, rows};
  } catch (const std::exception& error) {
    throw InputError(
        fmt::format("{}: not a hybridsim result set: {}", path.string(), error.what()));
  }
}

bool make_plots(const std::string& directory) {
  const std::string script = python_script_path("plot_batch.py", HYBRIDSIM_PLOT_SCRIPT);
  if (run_python_script(script, {directory}) != 0) {
    std::fprintf(stderr,
                 "hybridsim batch: the plots and report were not made (%s failed; it needs "
                 "python3 with matplotlib); the results are written\n",
                 script.c_str());
    return false;
  }
  return true;
}

}  // namespace hybridsim::batch
