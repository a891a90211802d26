// The trajectory as HDF5 (--trajectory-format hdf5, through Debian's libhdf5): one 1-D dataset of
// doubles per column under /trajectory (named after the column; the group's attribute `columns`
// keeps their order, t first), and /events, a table with one row per event record: t, kind,
// pair_a, pair_b, contact_id, feature_a, feature_b, distance, v_pre, normal_x .. normal_z,
// point_x .. point_z, description. h5py reads both (`f["trajectory/ball.z"][:]`,
// `f["events"]["t"]`). Rows are kept in memory and written a chunk at a time; the file is written
// as PATH.tmp and renamed by commit(), as every output of `hybridsim run` (output_file.hpp).
// The writer lives in the hdf5 module (libhybridsim_hdf5.so, models/optional_module.hpp), so that
// libhdf5 is loaded only by runs that write HDF5: open_hdf5_trajectory loads it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/hybrid_system.hpp"

namespace hybridsim {

// A table of trajectory rows and event records written to a file. Its methods throw nothing: the
// table lives in the hdf5 module, whose C++ runtime may not be the caller's (the statically
// linked CLI), so a failure (HDF5's, or memory's) is kept and reported by commit.
class TrajectoryTable {
 public:
  virtual ~TrajectoryTable() = default;
  // One row: a value per column, in the order given when the table was opened.
  virtual void add_row(const std::vector<double>& values) noexcept = 0;
  virtual void add_event(const EventRecord& record) noexcept = 0;
  // Writes what is pending, closes, renames onto the path. False on any error (PATH.tmp then
  // stays for inspection).
  virtual bool commit() noexcept = 0;
};

// The HDF5 trajectory at `path` with these columns (t first), written by the hdf5 module.
// InputError naming `path` when the file cannot be created, or naming the module when it cannot
// be loaded.
std::unique_ptr<TrajectoryTable> open_hdf5_trajectory(const std::string& path,
                                                      const std::vector<std::string>& columns);

// The module's entry, hybridsim_hdf5_open: the table, or null with `error` set.
using Hdf5OpenFunction = TrajectoryTable*(const std::string& path,
                                          const std::vector<std::string>& columns,
                                          std::string& error);

// The writer itself (in the module).
class Hdf5Trajectory final : public TrajectoryTable {
 public:
  using Handle =
      std::int64_t;  // HDF5's hid_t (kept out of this header: only this file needs hdf5.h)

  // InputError naming `path` when the file cannot be created.
  Hdf5Trajectory(const std::string& path, const std::vector<std::string>& columns);
  ~Hdf5Trajectory() override;
  Hdf5Trajectory(const Hdf5Trajectory&) = delete;
  Hdf5Trajectory& operator=(const Hdf5Trajectory&) = delete;

  void add_row(const std::vector<double>& values) noexcept override;
  void add_event(const EventRecord& record) noexcept override;
  bool commit() noexcept override;

 private:
  void flush_rows();
  void flush_events();
  void close();

  std::string path_, temporary_;
  Handle file_ = -1;
  std::vector<Handle> columns_;            // one dataset per column
  std::vector<std::vector<double>> rows_;  // per column, the values not yet written
  unsigned long long rows_written_ = 0;    // hsize_t
  Handle events_ = -1;                     // the /events dataset
  Handle event_type_ = -1;                 // its compound type
  std::vector<EventRecord> pending_events_;
  unsigned long long events_written_ = 0;  // hsize_t
  bool failed_ = false;
};

}  // namespace hybridsim
