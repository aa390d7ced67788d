// SPDX-License-Identifier: Apache-2.0
#include "cpu/thread_team.hpp"

#include <system_error>

namespace ipt::cpu {

ThreadTeam::ThreadTeam(unsigned threads) {
  // Where the system refuses a thread (its limit on threads or memory), the team is the
  // threads that started: every job still runs on all of them.
  try {
    for (unsigned t = 1; t < threads; ++t) helpers_.emplace_back([this, t] { serve(t); });
  } catch (const std::system_error&) {
  } catch (...) {
    stop();
    throw;
  }
}

ThreadTeam::~ThreadTeam() { stop(); }

void ThreadTeam::stop() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    leaving_ = true;
  }
  start_.notify_all();
  for (std::thread& helper : helpers_)
    if (helper.joinable()) helper.join();
}

void ThreadTeam::serve(unsigned index) {
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(unsigned)>* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return leaving_ || round_ != seen; });
      if (leaving_) return;
      seen = round_;
      job = job_;
    }
    try {
      (*job)(index);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!failure_) failure_ = std::current_exception();
    }
    finish_job();
  }
}

void ThreadTeam::finish_job() {
  bool last = false;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    last = --busy_ == 0;
  }
  if (last) done_.notify_one();
}

void ThreadTeam::run(const std::function<void(unsigned)>& job) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    busy_ = static_cast<unsigned>(helpers_.size());
    failure_ = nullptr;
    ++round_;
  }
  start_.notify_all();
  std::exception_ptr mine;
  try {
    job(0);
  } catch (...) {
    mine = std::current_exception();
  }
  std::exception_ptr failure;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return busy_ == 0; });
    failure = mine ? mine : failure_;
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace ipt::cpu
