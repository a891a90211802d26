#include "tools/progress_bar.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace hybridsim {

ProgressBar::ProgressBar(double start_time, double stop_time)
    : start_time_(start_time), stop_time_(stop_time), time_(start_time) {
  thread_ = std::thread([this] { run(); });
}

ProgressBar::~ProgressBar() {
  stop();
}

void ProgressBar::stop() {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (shown_) {
    draw(std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count());
    std::fprintf(stderr, "\n");
  }
}

void ProgressBar::run() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stopping_; })) {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    if (wall < 1.0) continue;
    draw(wall);
    shown_ = true;
  }
}

void ProgressBar::draw(double wall_seconds) {
  const double t = time_.load(std::memory_order_relaxed);
  const double fraction = std::clamp((t - start_time_) / (stop_time_ - start_time_), 0.0, 1.0);
  const int width = 40;
  const int filled = static_cast<int>(fraction * width);
  std::fprintf(stderr, "\r[%s%s] %5.1f%%  t = %.6g s  %.1f s", std::string(filled, '#').c_str(),
               std::string(width - filled, ' ').c_str(), 100.0 * fraction, t, wall_seconds);
  std::fflush(stderr);
}

}  // namespace hybridsim
