// The progress bar of `hybridsim run` on stderr: redrawn by its own thread every quarter second of
// wall time from the simulated time the loop publishes after each step, so that a run that stalls
// between outputs (or inside a step) is seen to stall.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace hybridsim {

class ProgressBar {
 public:
  // Shows nothing during the first second of wall time (short runs stay quiet).
  ProgressBar(double start_time, double stop_time);
  ~ProgressBar();  // stops the thread and ends the line
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Where the loop stores its time (SimulationOptions::progress_time).
  std::atomic<double>* time() { return &time_; }
  void stop();

 private:
  void run();
  void draw(double wall_seconds);

  double start_time_, stop_time_;
  std::atomic<double> time_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool shown_ = false;
  std::thread thread_;
};

}  // namespace hybridsim
