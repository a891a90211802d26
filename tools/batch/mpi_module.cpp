// The mpi module (libhybridsim_mpi.so, models/optional_module.hpp): the OpenMPI calls of
// `hybridsim batch` under mpirun, loaded only by a batch that an MPI launcher started. Its entries
// take and give the batch's own types; mpi_session.cpp calls them.
#include <mpi.h>

#include <string>
#include <vector>

#include "hybridsim/version.h"

extern "C" const char* hybridsim_module_version() {
  return HYBRIDSIM_VERSION_STRING;
}

extern "C" void hybridsim_mpi_init(int* argc, char*** argv, int* rank, int* size) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}

extern "C" void hybridsim_mpi_finalize() {
  MPI_Finalize();
}

// Every rank's text on rank 0 (in rank order; other ranks get none): lengths first, then the
// texts. Collective.
extern "C" void hybridsim_mpi_gather(const std::string& mine, std::vector<std::string>& all) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(rank == 0 ? size : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size(), 0);
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string joined(rank == 0 ? static_cast<std::size_t>(total) : 0, '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(),
              MPI_CHAR, 0, MPI_COMM_WORLD);
  all.clear();
  for (std::size_t r = 0; r < lengths.size(); ++r)
    all.push_back(joined.substr(offsets[r], lengths[r]));
}

// The least of every rank's value. Collective.
extern "C" int hybridsim_mpi_all_min(int value) {
  int least = value;
  MPI_Allreduce(&value, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return least;
}
