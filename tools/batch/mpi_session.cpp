#include "tools/batch/mpi_session.hpp"

#include "core/errors.hpp"

#include <cstdlib>
#include <string>

#ifdef HYBRIDSIM_WITH_MPI
#include <mpi.h>
#endif

namespace hybridsim::batch {

#ifdef HYBRIDSIM_WITH_MPI

MpiSession::MpiSession(int* argc, char*** argv) {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr && std::getenv("PMI_SIZE") == nullptr) return;
  MPI_Init(argc, argv);
  active_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  finalize();
}

void MpiSession::finalize() {
  if (!active_) return;
  active_ = false;
  MPI_Finalize();
}

std::vector<Row> MpiSession::gather(const std::vector<Row>& rows) {
  if (!active_ || size_ == 1) return rows;
  // Each rank's rows as one JSON text: lengths first, then the texts.
  const std::string text = nlohmann::ordered_json(rows).dump();
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(rank_ == 0 ? size_ : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size(), 0);
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(rank_ == 0 ? static_cast<std::size_t>(total) : 0, '\0');
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, MPI_COMM_WORLD);
  std::vector<Row> gathered;
  if (rank_ != 0) return gathered;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    for (auto& row : nlohmann::ordered_json::parse(all.substr(offsets[r], lengths[r]))) {
      gathered.push_back(std::move(row));
    }
  }
  std::sort(gathered.begin(), gathered.end(), [](const Row& a, const Row& b) {
    return a["index"].get<int>() < b["index"].get<int>();
  });
  return gathered;
}

bool MpiSession::all_succeeded(bool succeeded) {
  if (!active_) return succeeded;
  int mine = succeeded ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

#else

MpiSession::MpiSession(int* /*argc*/, char*** /*argv*/) {
  // Under mpirun every process would run the whole experiment into the same folder.
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (size == nullptr) size = std::getenv("PMI_SIZE");
  if (size != nullptr && std::string(size) != "1") {
    throw InputError(
        "this hybridsim was built without MPI (install libopenmpi-dev and rebuild); "
        "run the batch without mpirun, with -j or --shard");
  }
}
MpiSession::~MpiSession() = default;
void MpiSession::finalize() {}
std::vector<Row> MpiSession::gather(const std::vector<Row>& rows) {
  return rows;
}
bool MpiSession::all_succeeded(bool succeeded) {
  return succeeded;
}

#endif

}  // namespace hybridsim::batch
