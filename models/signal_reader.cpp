#include "models/signal_reader.hpp"

namespace hybridsim {
Signal read_signal_map(MapReader& reader) {
  Signal signal;
  int kinds = 0;
  const YamlSource& source = reader.source();
  if (reader.has("constant")) {
    ++kinds;
    signal.kind = Signal::Kind::constant;
    signal.value = read_yaml_vec3(source, reader.get("constant"), reader.path_of("constant"));
  }
  if (reader.has("step") || reader.has("ramp")) {
    ++kinds;
    const bool ramp = reader.has("ramp");
    const std::string key = ramp ? "ramp" : "step";
    MapReader step(reader.get(key), reader.path_of(key), source);
    signal.kind = ramp ? Signal::Kind::ramp : Signal::Kind::step;
    signal.time = step.required_number("time");
    if (ramp) signal.duration = step.required_positive("duration");
    signal.before = read_yaml_vec3(source, step.get("before"), step.path_of("before"));
    signal.after = read_yaml_vec3(source, step.get("after"), step.path_of("after"));
    step.reject_unknown_keys();
  }
  if (reader.has("sine")) {
    ++kinds;
    MapReader sine(reader.get("sine"), reader.path_of("sine"), source);
    signal.kind = Signal::Kind::sine;
    signal.amplitude = sine.required_vec3("amplitude");
    signal.frequency = sine.required_positive("frequency");
    signal.phase = sine.number("phase", 0.0);
    signal.offset = sine.vec3("offset", Vec3::Zero());
    sine.reject_unknown_keys();
  }
  if (reader.has("table")) {
    ++kinds;
    MapReader table(reader.get("table"), reader.path_of("table"), source);
    signal.kind = Signal::Kind::table;
    const YAML::Node points = table.sequence("points");
    const std::string path = table.path_of("points");
    if (points.size() == 0) table.fail("points", "needs at least one [t, fx, fy, fz] row");
    for (std::size_t i = 0; i < points.size(); ++i) {
      const YAML::Node row = points[i];
      if (!row.IsSequence() || row.size() != 4) {
        throw_yaml_error(source, row, indexed(path, i), "must be [t, x, y, z]");
      }
      const double t = read_yaml_number(source, row[0], indexed(path, i));
      if (!signal.times.empty() && !(t > signal.times.back())) {
        throw_yaml_error(source, row, indexed(path, i), "times must increase");
      }
      signal.times.push_back(t);
      signal.values.emplace_back(read_yaml_number(source, row[1], indexed(path, i)),
                                 read_yaml_number(source, row[2], indexed(path, i)),
                                 read_yaml_number(source, row[3], indexed(path, i)));
    }
    table.reject_unknown_keys();
  }
  if (kinds != 1) reader.fail("constant", "give exactly one of constant, step, ramp, sine, table");
  reader.reject_unknown_keys();
  return signal;
}

Signal read_signal(MapReader& parent) {
  MapReader reader(parent.get("signal"), parent.path_of("signal"), parent.source());
  return read_signal_map(reader);
}

Signal read_signal_or_number(MapReader& parent, const std::string& key) {
  const YAML::Node node = parent.get(key);
  if (node.IsScalar()) {
    Signal signal;
    signal.value = Vec3(read_yaml_number(parent.source(), node, parent.path_of(key)), 0.0, 0.0);
    return signal;
  }
  MapReader reader(node, parent.path_of(key), parent.source());
  return read_signal_map(reader);
}

}  // namespace hybridsim
