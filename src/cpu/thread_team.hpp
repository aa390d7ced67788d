// SPDX-License-Identifier: Apache-2.0
// A team of threads that runs one job after another, each on every thread at once: for
// work split into many short rounds (the host scheme's staging copies, a fraction of a
// millisecond each), where starting threads for every round would cost as much as the
// round. Pure C++.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ipt::cpu {

class ThreadTeam {
 public:
  // `threads` threads in all, the calling one among them (at least 1); fewer where the
  // system cannot start that many (size() says how many).
  explicit ThreadTeam(unsigned threads);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  unsigned size() const { return static_cast<unsigned>(helpers_.size()) + 1; }

  // Runs job(t) for t = 0 .. size() - 1, one on each thread, and returns when all are
  // done; rethrows the first exception a job threw.
  void run(const std::function<void(unsigned)>& job);

 private:
  void serve(unsigned index);
  void stop();  // the helpers leave; returns once they have
  void finish_job();

  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(unsigned)>* job_ = nullptr;
  std::uint64_t round_ = 0;  // counts jobs; a helper runs each round once
  unsigned busy_ = 0;        // helpers still running this round's job
  bool leaving_ = false;
  std::exception_ptr failure_;
};

}  // namespace ipt::cpu
