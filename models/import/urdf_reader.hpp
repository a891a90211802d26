// URDF robot descriptions (wiki.ros.org/urdf/XML) to the scene tree, read by urdfdom; a tinyxml2
// pass first checks what urdfdom reports without a line (missing links, bad masses and inertias).
#pragma once

#include <mutex>
#include <string>

#include <console_bridge/console.h>

#include <yaml-cpp/yaml.h>

#include "models/import/scene_tree.hpp"

namespace hybridsim {

YAML::Node read_urdf(const std::string& text, ImportContext& context);

// urdfdom (used by urdf_reader and inside libsdformat) reports through console_bridge, a
// process-wide logger: while one lives, it holds the logger and keeps the first error.
class CapturedConsole : public console_bridge::OutputHandler {
 public:
  CapturedConsole();
  ~CapturedConsole() override;
  CapturedConsole(const CapturedConsole&) = delete;
  CapturedConsole& operator=(const CapturedConsole&) = delete;
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override;
  std::string error;

 private:
  std::lock_guard<std::mutex> lock_;
};

}  // namespace hybridsim
