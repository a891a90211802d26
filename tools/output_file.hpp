// An output file that readers never see half-written: it is written as PATH.tmp beside PATH and
// renamed to PATH by commit() once complete, so that a reader sees the old file or the whole new
// one (a run killed with SIGKILL leaves PATH.tmp and no partial PATH). Special files (a terminal,
// /dev/stdout, a pipe, /dev/full) are written in place, as they cannot be renamed onto.
#pragma once

#include <fstream>
#include <string>

namespace hybridsim {

class OutputFile : public std::ofstream {
 public:
  OutputFile() = default;
  // Opens PATH.tmp (or PATH itself for a special file); InputError naming PATH if it cannot.
  explicit OutputFile(const std::string& path, std::ios::openmode mode = std::ios::out);
  OutputFile& operator=(OutputFile&&) = default;
  // A file never committed is removed (a failed run leaves no half output behind).
  ~OutputFile() override;

  // Flushes, closes and renames onto the path. False on any write error (then PATH.tmp stays,
  // for inspection, and PATH is untouched). Nothing to do when not open.
  bool commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string temporary_;  // empty: written in place
};

}  // namespace hybridsim
