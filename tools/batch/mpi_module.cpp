// The mpi module (libhybridsim_mpi.so, models/optional_module.hpp): the OpenMPI calls of
// `hybridsim batch` under mpirun, loaded only by a batch that an MPI launcher started. Its entries
// take and give the batch's own types; mpi_session.cpp calls them.
#include <mpi.h>

#include <cstdio>
#include <limits>
#include <stdexcept>
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
// texts. Collective. Nothing may leave it as an exception (the caller's C++ runtime may not be
// this module's, models/optional_module.hpp), and a rank that fails here would leave the others
// waiting in the collective: a failure (the texts above MPI's 2 GiB, memory) aborts the job with
// a message.
extern "C" void hybridsim_mpi_gather(const std::string& mine,
                                     std::vector<std::string>& all) noexcept {
  try {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (mine.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw std::length_error("a rank's results exceed 2 GiB");
    }
    int length = static_cast<int>(mine.size());
    std::vector<int> lengths(rank == 0 ? size : 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(lengths.size(), 0);
    long long total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      if (total + lengths[r] > std::numeric_limits<int>::max()) {
        throw std::length_error("the ranks' results together exceed 2 GiB");
      }
      offsets[r] = static_cast<int>(total);
      total += lengths[r];
    }
    std::string joined(rank == 0 ? static_cast<std::size_t>(total) : 0, '\0');
    MPI_Gatherv(mine.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(),
                MPI_CHAR, 0, MPI_COMM_WORLD);
    all.clear();
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      all.push_back(joined.substr(static_cast<std::size_t>(offsets[r]),
                                  static_cast<std::size_t>(lengths[r])));
    }
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "hybridsim batch: gathering the ranks' results failed: %s\n",
                 failure.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

// The least of every rank's value. Collective.
extern "C" int hybridsim_mpi_all_min(int value) {
  int least = value;
  MPI_Allreduce(&value, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return least;
}
