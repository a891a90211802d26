#include "tools/batch/mpi_session.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "models/optional_module.hpp"

namespace hybridsim::batch {
namespace {

// The mpi module's entries (mpi_module.cpp).
using InitFunction = void(int* argc, char*** argv, int* rank, int* size);
using FinalizeFunction = void();
using GatherFunction = void(const std::string& mine, std::vector<std::string>& all) noexcept;
using AllMinFunction = int(int value);

template <typename Function>
Function* mpi_function(const char* symbol) {
  return optional_module_function<Function>("mpi", symbol, "hybridsim batch under mpirun");
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (size == nullptr) size = std::getenv("PMI_SIZE");
  if (size == nullptr) return;
  InitFunction* init = nullptr;
  try {
    init = mpi_function<InitFunction>("hybridsim_mpi_init");
  } catch (const InputError& error) {
    // Under mpirun every process would run the whole experiment into the same folder.
    if (std::string(size) == "1") return;
    throw InputError(fmt::format(
        "{} (this hybridsim was built without MPI: install libopenmpi-dev and rebuild); run the "
        "batch without mpirun, with -j or --shard",
        error.what()));
  }
  init(argc, argv, &rank_, &size_);
  active_ = true;
}

MpiSession::~MpiSession() {
  finalize();
}

void MpiSession::finalize() {
  if (!active_) return;
  active_ = false;
  mpi_function<FinalizeFunction>("hybridsim_mpi_finalize")();
}

std::vector<Row> MpiSession::gather(const std::vector<Row>& rows) {
  if (!active_ || size_ == 1) return rows;
  // Each rank's rows as one JSON text.
  std::vector<std::string> texts;
  mpi_function<GatherFunction>("hybridsim_mpi_gather")(nlohmann::ordered_json(rows).dump(), texts);
  std::vector<Row> gathered;
  for (const std::string& text : texts) {
    for (auto& row : nlohmann::ordered_json::parse(text)) gathered.push_back(std::move(row));
  }
  std::sort(gathered.begin(), gathered.end(), [](const Row& a, const Row& b) {
    return a["index"].get<int>() < b["index"].get<int>();
  });
  return gathered;
}

bool MpiSession::all_succeeded(bool succeeded) {
  if (!active_) return succeeded;
  return mpi_function<AllMinFunction>("hybridsim_mpi_all_min")(succeeded ? 1 : 0) == 1;
}

}  // namespace hybridsim::batch
