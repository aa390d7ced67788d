#include "runtime/fault_injection.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "runtime/opencl.hpp"

namespace ipt::runtime::faults {
namespace {

std::atomic<bool> armed{false};
std::atomic<bool> crowded{false};

struct State {
  std::mutex mutex;
  std::vector<std::uint64_t> failing[2];
  std::vector<const char*> passed[2];  // what each point passed since arm() stood for
};

State& state() {
  static State s;
  return s;
}

}  // namespace

void arm(std::vector<std::uint64_t> enqueues, std::vector<std::uint64_t> allocations) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.passed[0].clear();
  s.passed[1].clear();
  s.failing[0] = std::move(enqueues);
  s.failing[1] = std::move(allocations);
  armed.store(true);
}

void disarm() {
  armed.store(false);
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.failing[0].clear();
  s.failing[1].clear();
}

std::uint64_t count(Site site) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.passed[static_cast<int>(site)].size();
}

std::vector<const char*> passed(Site site) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.passed[static_cast<int>(site)];
}

void point(Site site, const char* what) {
  if (!armed.load(std::memory_order_relaxed)) return;
  State& s = state();
  const int i = static_cast<int>(site);
  bool fail = false;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.passed[i].push_back(what);
    const std::uint64_t n = s.passed[i].size();
    fail = std::find(s.failing[i].begin(), s.failing[i].end(), n) != s.failing[i].end();
  }
  if (fail)
    throw cl::Error(site == Site::kEnqueue ? CL_OUT_OF_RESOURCES : CL_MEM_OBJECT_ALLOCATION_FAILURE,
                    what);
}

void crowd_onchip_probes(bool on) { crowded.store(on); }

bool onchip_probes_crowded() { return crowded.load(std::memory_order_relaxed); }

}  // namespace ipt::runtime::faults
