// MPI for `hybridsim batch` under mpirun: rank and size, and the gathering of every rank's rows
// on rank 0. Without an MPI launcher (or in a build without MPI) it is one rank of one.
#pragma once

#include <vector>

#include "tools/batch/batch_runner.hpp"

namespace hybridsim::batch {

class MpiSession {
 public:
  // Initialises MPI when the process was started by an MPI launcher (mpirun sets
  // OMPI_COMM_WORLD_SIZE or PMI_SIZE); InputError under a launcher in a build without MPI.
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Every rank's rows on rank 0, ordered by run index (other ranks get none). Collective.
  std::vector<Row> gather(const std::vector<Row>& rows);
  // Whether every rank succeeded (a rank that failed passes false). Collective.
  bool all_succeeded(bool succeeded);
  // Ends MPI early (before rank 0 starts the plot script, a child process).
  void finalize();

 private:
  bool active_ = false;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace hybridsim::batch
