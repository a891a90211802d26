#include "tools/hdf5_trajectory.hpp"

#include <hdf5.h>

#include <array>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <type_traits>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "hybridsim/version.h"

namespace hybridsim {

static_assert(std::is_same_v<hid_t, Hdf5Trajectory::Handle> &&
                  std::is_same_v<hsize_t, unsigned long long>,
              "HDF5 1.10: hid_t is int64_t, hsize_t unsigned long long");

namespace {

// Rows a chunk holds and written at once: 1024 doubles, 8 kB a column (a 100-body scene keeps
// 10 MB of rows in memory and HDF5 as much in its chunk caches).
constexpr hsize_t kChunkRows = 1024;

// One event as the compound type lays it out (variable-length strings as char pointers).
struct EventRow {
  double t;
  const char* kind;
  const char* pair_a;
  const char* pair_b;
  const char* contact_id;
  const char* feature_a;
  const char* feature_b;
  double distance;
  double v_pre;
  std::array<double, 3> normal;
  std::array<double, 3> point;
  const char* description;
};

hid_t make_event_type() {
  const hid_t text = H5Tcopy(H5T_C_S1);
  H5Tset_size(text, H5T_VARIABLE);
  H5Tset_cset(text, H5T_CSET_UTF8);
  const hid_t type = H5Tcreate(H5T_COMPOUND, sizeof(EventRow));
  H5Tinsert(type, "t", HOFFSET(EventRow, t), H5T_NATIVE_DOUBLE);
  H5Tinsert(type, "kind", HOFFSET(EventRow, kind), text);
  H5Tinsert(type, "pair_a", HOFFSET(EventRow, pair_a), text);
  H5Tinsert(type, "pair_b", HOFFSET(EventRow, pair_b), text);
  H5Tinsert(type, "contact_id", HOFFSET(EventRow, contact_id), text);
  H5Tinsert(type, "feature_a", HOFFSET(EventRow, feature_a), text);
  H5Tinsert(type, "feature_b", HOFFSET(EventRow, feature_b), text);
  H5Tinsert(type, "distance", HOFFSET(EventRow, distance), H5T_NATIVE_DOUBLE);
  H5Tinsert(type, "v_pre", HOFFSET(EventRow, v_pre), H5T_NATIVE_DOUBLE);
  const char* normal[] = {"normal_x", "normal_y", "normal_z"};
  const char* point[] = {"point_x", "point_y", "point_z"};
  for (std::size_t i = 0; i < 3; ++i) {
    H5Tinsert(type, normal[i], HOFFSET(EventRow, normal) + i * sizeof(double), H5T_NATIVE_DOUBLE);
    H5Tinsert(type, point[i], HOFFSET(EventRow, point) + i * sizeof(double), H5T_NATIVE_DOUBLE);
  }
  H5Tinsert(type, "description", HOFFSET(EventRow, description), text);
  H5Tclose(text);
  return type;
}

// An extendible 1-D dataset of `type`, chunked by kChunkRows.
hid_t make_extendible(hid_t parent, const char* name, hid_t type) {
  const hsize_t start = 0, unlimited = H5S_UNLIMITED;
  const hid_t space = H5Screate_simple(1, &start, &unlimited);
  const hid_t properties = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(properties, 1, &kChunkRows);
  // Each write fills whole chunks (kChunkRows rows at once): no chunk cache, which would hold a
  // chunk per column (a 1000-body scene has 13,000 columns).
  const hid_t access = H5Pcreate(H5P_DATASET_ACCESS);
  H5Pset_chunk_cache(access, 0, 0, 1.0);
  const hid_t dataset = H5Dcreate2(parent, name, type, space, H5P_DEFAULT, properties, access);
  H5Pclose(access);
  H5Pclose(properties);
  H5Sclose(space);
  return dataset;
}

// Appends `count` elements at `data` to a dataset that holds `written`; false on an error.
bool append(hid_t dataset, hid_t type, hsize_t written, hsize_t count, const void* data) {
  const hsize_t size = written + count;
  if (H5Dset_extent(dataset, &size) < 0) return false;
  const hid_t file_space = H5Dget_space(dataset);
  H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &written, nullptr, &count, nullptr);
  const hid_t memory_space = H5Screate_simple(1, &count, nullptr);
  const herr_t status = H5Dwrite(dataset, type, memory_space, file_space, H5P_DEFAULT, data);
  H5Sclose(memory_space);
  H5Sclose(file_space);
  return status >= 0;
}

}  // namespace

Hdf5Trajectory::Hdf5Trajectory(const std::string& path, const std::vector<std::string>& columns)
    : path_(path), temporary_(path + ".tmp") {
  // Checked before anything is written: HDF5 names a dataset by a path, and the file is written
  // beside the path and renamed, which a device (/dev/null) must not be.
  for (const std::string& column : columns) {
    if (column.find('/') != std::string::npos) {
      throw InputError(
          fmt::format("{}: the column '{}' holds a '/', which HDF5 reads as a group: "
                      "rename the body or joint, or write CSV",
                      path, column));
    }
  }
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw InputError(fmt::format("{}: an HDF5 trajectory needs a regular file", path));
  }
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors are ours to report, not printed by HDF5
  // The 1.8 format on: attributes above 64 kB (the names of 13,000 columns) are stored densely.
  const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_libver_bounds(access, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
  file_ = H5Fcreate(temporary_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access);
  H5Pclose(access);
  if (file_ < 0) {
    throw InputError(fmt::format("{}: cannot write the HDF5 trajectory here", path));
  }
  const hid_t group = H5Gcreate2(file_, "trajectory", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) failed_ = true;
  // The columns' order, which a group does not keep: a string attribute per name.
  std::vector<const char*> names;
  for (const std::string& column : columns) names.push_back(column.c_str());
  const hid_t text = H5Tcopy(H5T_C_S1);
  H5Tset_size(text, H5T_VARIABLE);
  H5Tset_cset(text, H5T_CSET_UTF8);
  const hsize_t count = names.size();
  const hid_t space = H5Screate_simple(1, &count, nullptr);
  const hid_t attribute = H5Acreate2(group, "columns", text, space, H5P_DEFAULT, H5P_DEFAULT);
  if (attribute < 0 || H5Awrite(attribute, text, names.data()) < 0) failed_ = true;
  if (attribute >= 0) H5Aclose(attribute);
  H5Sclose(space);
  H5Tclose(text);
  for (const std::string& column : columns) {
    columns_.push_back(make_extendible(group, column.c_str(), H5T_NATIVE_DOUBLE));
    if (columns_.back() < 0) failed_ = true;
  }
  if (group >= 0) H5Gclose(group);
  rows_.resize(columns.size());
  event_type_ = make_event_type();
  events_ = make_extendible(file_, "events", event_type_);
  if (events_ < 0) failed_ = true;
}

Hdf5Trajectory::~Hdf5Trajectory() {
  const bool open = file_ >= 0;
  close();
  if (open) std::remove(temporary_.c_str());  // never committed: no half output left behind
}

void Hdf5Trajectory::add_row(const std::vector<double>& values) noexcept {
  if (failed_) return;
  try {
    for (std::size_t i = 0; i < rows_.size(); ++i) rows_[i].push_back(values[i]);
    if (rows_.front().size() >= kChunkRows) flush_rows();
  } catch (...) {
    failed_ = true;  // out of memory: commit reports it
  }
}

void Hdf5Trajectory::add_event(const EventRecord& record) noexcept {
  if (failed_) return;
  try {
    pending_events_.push_back(record);
    if (pending_events_.size() >= kChunkRows) flush_events();
  } catch (...) {
    failed_ = true;
  }
}

void Hdf5Trajectory::flush_rows() {
  if (rows_.empty() || rows_.front().empty()) return;
  const hsize_t count = rows_.front().size();
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (!append(columns_[i], H5T_NATIVE_DOUBLE, rows_written_, count, rows_[i].data())) {
      failed_ = true;
    }
    rows_[i].clear();
  }
  rows_written_ += count;
}

void Hdf5Trajectory::flush_events() {
  if (pending_events_.empty()) return;
  std::vector<EventRow> rows;
  rows.reserve(pending_events_.size());
  std::vector<std::string> kinds;  // null-terminated; reserved so that no pointer moves
  kinds.reserve(pending_events_.size());
  for (const EventRecord& r : pending_events_) {
    kinds.emplace_back(to_string(r.kind));
    rows.push_back(EventRow{r.t,
                            kinds.back().c_str(),
                            r.pair_a.c_str(),
                            r.pair_b.c_str(),
                            r.contact_id.c_str(),
                            r.feature_a.c_str(),
                            r.feature_b.c_str(),
                            r.distance,
                            r.pre_impact_velocity,
                            {r.normal_W.x(), r.normal_W.y(), r.normal_W.z()},
                            {r.point_W.x(), r.point_W.y(), r.point_W.z()},
                            r.description.c_str()});
  }
  if (!append(events_, event_type_, events_written_, rows.size(), rows.data())) failed_ = true;
  events_written_ += rows.size();
  pending_events_.clear();
}

void Hdf5Trajectory::close() {
  for (Handle& dataset : columns_) {
    if (dataset >= 0) H5Dclose(dataset);
  }
  columns_.clear();
  if (events_ >= 0) H5Dclose(events_);
  if (event_type_ >= 0) H5Tclose(event_type_);
  events_ = event_type_ = H5I_INVALID_HID;
  if (file_ >= 0 && H5Fclose(file_) < 0) failed_ = true;
  file_ = H5I_INVALID_HID;
}

bool Hdf5Trajectory::commit() noexcept {
  if (file_ < 0) return !failed_;
  // After a failure the pending rows may be ragged (a row cut short by memory): none is written.
  if (!failed_) {
    try {
      flush_rows();
      flush_events();
    } catch (...) {
      failed_ = true;
    }
  }
  close();
  if (!failed_ && std::rename(temporary_.c_str(), path_.c_str()) != 0) failed_ = true;
  return !failed_;
}

}  // namespace hybridsim

// The module's entries (models/optional_module.hpp). Exceptions do not cross its edge.
extern "C" const char* hybridsim_module_version() {
  return HYBRIDSIM_VERSION_STRING;
}

extern "C" hybridsim::TrajectoryTable* hybridsim_hdf5_open(const std::string& path,
                                                           const std::vector<std::string>& columns,
                                                           std::string& error) noexcept {
  try {
    return new hybridsim::Hdf5Trajectory(path, columns);
  } catch (const std::exception& failure) {
    error = failure.what();
  }
  return nullptr;
}
