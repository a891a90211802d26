#include "tools/replay/replay_recording.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace hybridsim {
namespace {

std::vector<ReplayRecording::ContactArrow> contact_arrows(MultibodySystem& system,
                                                          const VectorX& x) {
  std::vector<ReplayRecording::ContactArrow> arrows;
  for (const ContactResult& contact : system.compute_contact_results(x)) {
    arrows.push_back(
        {contact.point_W, contact.normal_force * contact.normal_W, contact.friction_force_W});
  }
  return arrows;
}

// A CSV file of numbers with a header row (the trajectory and contacts files: no quoted fields).
struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  int column(const std::string& name) const {
    const auto found = std::find(header.begin(), header.end(), name);
    return found == header.end() ? -1 : static_cast<int>(found - header.begin());
  }
};

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma - start));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

CsvTable read_csv(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw InputError(fmt::format("{}: cannot open", path));
  CsvTable table;
  std::string line;
  if (!std::getline(file, line)) throw InputError(fmt::format("{}: empty file", path));
  table.header = split_fields(line);
  for (int number = 2; std::getline(file, line); ++number) {
    if (line.empty()) continue;
    table.rows.push_back(split_fields(line));
    if (table.rows.back().size() != table.header.size()) {
      throw InputError(fmt::format("{}:{}: {} fields, the header has {}", path, number,
                                   table.rows.back().size(), table.header.size()));
    }
  }
  return table;
}

double parse_number(const std::string& text, const std::string& path, std::size_t row,
                    const std::string& column) {
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw InputError(
        fmt::format("{}:{}: column {} = '{}' is not a number", path, row + 2, column, text));
  }
  return value;
}

}  // namespace

std::vector<BodyPose> body_poses(const Model& model, ConstVectorRef x) {
  std::vector<BodyPose> poses;
  poses.reserve(model.bodies.size());
  for (const Body& body : model.bodies) {
    if (body.state_offset < 0) {
      poses.push_back({body.p_WB.x(), body.p_WB.y(), body.p_WB.z(), body.q_WB.w(), body.q_WB.x(),
                       body.q_WB.y(), body.q_WB.z()});
      continue;
    }
    BodyPose pose{};
    for (int k = 0; k < 7; ++k) pose[static_cast<std::size_t>(k)] = x[body.state_offset + k];
    poses.push_back(pose);
  }
  return poses;
}

std::vector<int> event_bodies(const Model& model, const nlohmann::json& record) {
  std::set<int> bodies;
  const auto add_named = [&](const nlohmann::json& names, bool shape_labels) {
    for (const auto& name : names) {
      if (!name.is_string()) continue;
      std::string body = name.get<std::string>();
      if (shape_labels) body = body.substr(0, body.rfind('/'));
      const int index = model.find_body(body);
      if (index >= 0 && !model.bodies[static_cast<std::size_t>(index)].fixed) bodies.insert(index);
    }
  };
  if (record.contains("pair")) add_named(record["pair"], true);
  if (record.contains("bodies")) add_named(record["bodies"], false);
  return {bodies.begin(), bodies.end()};
}

std::vector<ReplayRecording::BodyKey> body_track(const ReplayRecording& recording, int body) {
  std::vector<ReplayRecording::BodyKey> track;
  for (std::size_t f = 0; f < recording.frame_times.size(); ++f) {
    track.push_back(
        {recording.frame_times[f], body, recording.frame_poses[f][static_cast<std::size_t>(body)]});
  }
  for (const auto& key : recording.event_keys) {
    if (key.body == body) track.push_back(key);
  }
  // Stable: a key sorts after the frame of its time, and the later of equal times wins below.
  std::stable_sort(track.begin(), track.end(),
                   [](const auto& a, const auto& b) { return a.t < b.t; });
  std::vector<ReplayRecording::BodyKey> unique;
  for (const auto& key : track) {
    if (!unique.empty() && unique.back().t == key.t) {
      unique.back() = key;
    } else {
      unique.push_back(key);
    }
  }
  return unique;
}

void ReplayRecorder::on_output(double t, const VectorX& x) {
  // An output at the time of the frame before (the stop after an event there) adds nothing.
  if (!recording_.frame_times.empty() && recording_.frame_times.back() == t) return;
  recording_.frame_times.push_back(t);
  recording_.frame_poses.push_back(body_poses(system_.model(), x));
  recording_.frame_contacts.push_back(
      record_contacts_ ? contact_arrows(system_, x) : std::vector<ReplayRecording::ContactArrow>{});
  recording_.has_contacts = record_contacts_;
}

void ReplayRecorder::on_event_record(const nlohmann::json& record, const VectorX& x) {
  const double t = record.at("t").get<double>();
  recording_.events.push_back({t, record.at("kind").get<std::string>(), record.dump()});
  const std::vector<BodyPose> poses = body_poses(system_.model(), x);
  for (const int body : event_bodies(system_.model(), record)) {
    recording_.event_keys.push_back({t, body, poses[static_cast<std::size_t>(body)]});
  }
}

void ReplayRecorder::on_warning(const nlohmann::json& warning) {
  recording_.warnings.push_back(
      {warning.at("t").get<double>(), warning.at("kind").get<std::string>(), warning.dump()});
}

ReplayRecording read_replay_recording(const Model& model, const std::string& trajectory_path,
                                      const std::string& events_path,
                                      const std::string& contacts_path,
                                      const std::string& summary_path) {
  ReplayRecording recording;

  // Events first: the trajectory rows at their times are event keys.
  std::map<double, std::vector<int>> bodies_at_event;
  if (!events_path.empty()) {
    std::ifstream file(events_path);
    if (!file) throw InputError(fmt::format("{}: cannot open", events_path));
    std::string line;
    for (int number = 1; std::getline(file, line); ++number) {
      if (line.empty()) continue;
      nlohmann::json record;
      try {
        record = nlohmann::json::parse(line);
        const double t = record.at("t").get<double>();
        recording.events.push_back({t, record.at("kind").get<std::string>(), line});
        auto& bodies = bodies_at_event[t];
        for (const int body : event_bodies(model, record)) bodies.push_back(body);
      } catch (const nlohmann::json::exception& error) {
        throw InputError(fmt::format("{}:{}: {}", events_path, number, error.what()));
      }
    }
  }

  // The trajectory: a pose per body per row.
  const CsvTable trajectory = read_csv(trajectory_path);
  const int time_column = trajectory.column("t");
  if (time_column < 0) throw InputError(fmt::format("{}: no column t", trajectory_path));
  std::vector<std::array<int, 7>> pose_columns;
  for (const Body& body : model.bodies) {
    std::array<int, 7> columns{};
    const char* names[] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    for (std::size_t k = 0; k < 7; ++k) {
      columns[k] = trajectory.column(body.name + "." + names[k]);
      if (columns[k] < 0) {
        throw InputError(fmt::format("{}: no column {}.{} (the trajectory of another scene?)",
                                     trajectory_path, body.name, names[k]));
      }
    }
    pose_columns.push_back(columns);
  }
  for (std::size_t row = 0; row < trajectory.rows.size(); ++row) {
    const auto& fields = trajectory.rows[row];
    const auto number = [&](int column) {
      return parse_number(fields[static_cast<std::size_t>(column)], trajectory_path, row,
                          trajectory.header[static_cast<std::size_t>(column)]);
    };
    const double t = number(time_column);
    const auto number_at = [&](std::size_t other) {
      return parse_number(trajectory.rows[other][static_cast<std::size_t>(time_column)],
                          trajectory_path, other, "t");
    };
    std::vector<BodyPose> poses;
    for (const auto& columns : pose_columns) {
      BodyPose pose{};
      for (std::size_t k = 0; k < 7; ++k) pose[k] = number(columns[k]);
      poses.push_back(pose);
    }
    // A row at an event's time gives the poses of the bodies the event names. It is also a frame
    // when it is the first or last row, when an output fell on that instant too (two rows of
    // the same time: the later is the frame), or when the event names no body (a time event).
    const auto event = bodies_at_event.find(t);
    if (event != bodies_at_event.end()) {
      for (const int body : event->second) {
        recording.event_keys.push_back({t, body, poses[static_cast<std::size_t>(body)]});
      }
      const bool first_or_last = row == 0 || row + 1 == trajectory.rows.size();
      const bool output_too = row > 0 && number_at(row - 1) == t;
      if (!first_or_last && !output_too && !event->second.empty()) continue;
    }
    if (!recording.frame_times.empty() && recording.frame_times.back() >= t) {
      if (recording.frame_times.back() > t) continue;
      recording.frame_poses.back() = std::move(poses);  // the later row of one instant
      continue;
    }
    recording.frame_times.push_back(t);
    recording.frame_poses.push_back(std::move(poses));
  }
  recording.frame_contacts.assign(recording.frame_times.size(), {});
  if (recording.frame_times.empty()) {
    throw InputError(fmt::format("{}: no rows", trajectory_path));
  }

  // Contacts at output times, onto the frames of the same time.
  if (!contacts_path.empty()) {
    const CsvTable contacts = read_csv(contacts_path);
    std::vector<int> columns;
    for (const char* name : {"t", "normal_force", "point_x", "point_y", "point_z", "normal_x",
                             "normal_y", "normal_z", "friction_x", "friction_y", "friction_z"}) {
      columns.push_back(contacts.column(name));
      if (columns.back() < 0)
        throw InputError(fmt::format("{}: no column {}", contacts_path, name));
    }
    for (std::size_t row = 0; row < contacts.rows.size(); ++row) {
      std::array<double, 11> v{};
      for (std::size_t k = 0; k < v.size(); ++k) {
        v[k] = parse_number(contacts.rows[row][static_cast<std::size_t>(columns[k])], contacts_path,
                            row, contacts.header[static_cast<std::size_t>(columns[k])]);
      }
      const auto frame =
          std::lower_bound(recording.frame_times.begin(), recording.frame_times.end(), v[0]);
      if (frame == recording.frame_times.end() || *frame != v[0]) continue;
      recording.frame_contacts[static_cast<std::size_t>(frame - recording.frame_times.begin())]
          .push_back(
              {Vec3(v[2], v[3], v[4]), v[1] * Vec3(v[5], v[6], v[7]), Vec3(v[8], v[9], v[10])});
    }
    recording.has_contacts = true;
  }

  // Warnings from the summary.
  if (!summary_path.empty()) {
    std::ifstream file(summary_path);
    if (!file) throw InputError(fmt::format("{}: cannot open", summary_path));
    try {
      const nlohmann::json summary = nlohmann::json::parse(file);
      if (summary.contains("warnings")) {
        for (const auto& warning : summary["warnings"]) {
          recording.warnings.push_back(
              {warning.value("t", 0.0), warning.value("kind", "warning"), warning.dump()});
        }
      }
    } catch (const nlohmann::json::exception& error) {
      throw InputError(fmt::format("{}: {}", summary_path, error.what()));
    }
  }
  return recording;
}

}  // namespace hybridsim
