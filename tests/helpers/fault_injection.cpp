// SPDX-License-Identifier: Apache-2.0
// The strong definitions of the library's seam (runtime/fault_seam.hpp), and the
// controls of fault_injection.hpp.
#include "helpers/fault_injection.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "runtime/opencl.hpp"

namespace ipt::runtime::faults {
namespace {

std::atomic<bool> armed{false};
std::atomic<planner::ProbeGroups> probe_groups{planner::ProbeGroups::kAll};
std::atomic<long long> recheck_age_ms{-1};  // -1: unset

struct State {
  std::mutex mutex;
  std::vector<std::uint64_t> failing[4];
  std::vector<const char*> passed[4];  // what each point passed since arm() stood for
  std::vector<std::pair<Site, const char*>> sequence;
};

State& state() {
  static State s;
  return s;
}

}  // namespace

void arm(std::vector<std::uint64_t> enqueues, std::vector<std::uint64_t> allocations,
         std::vector<std::uint64_t> calls, std::vector<std::uint64_t> keeps) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto& list : s.passed) list.clear();
  s.sequence.clear();
  s.failing[0] = std::move(enqueues);
  s.failing[1] = std::move(allocations);
  s.failing[2] = std::move(calls);
  s.failing[3] = std::move(keeps);
  armed.store(true);
}

void disarm() {
  armed.store(false);
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto& list : s.failing) list.clear();
}

std::vector<std::pair<Site, const char*>> sequence() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.sequence;
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
    s.sequence.emplace_back(site, what);
    const std::uint64_t n = s.passed[i].size();
    fail = std::find(s.failing[i].begin(), s.failing[i].end(), n) != s.failing[i].end();
  }
  if (!fail) return;
  switch (site) {
    case Site::kEnqueue:
      throw cl::Error(CL_OUT_OF_RESOURCES, what);
    case Site::kAllocation:
      throw cl::Error(CL_MEM_OBJECT_ALLOCATION_FAILURE, what);
    case Site::kCall:
      throw cl::Error(CL_OUT_OF_HOST_MEMORY, what);
    case Site::kKeep:
      throw cl::Error(CL_OUT_OF_RESOURCES, what);
  }
}

void steer_onchip_probes(planner::ProbeGroups groups) { probe_groups.store(groups); }

planner::ProbeGroups onchip_probe_groups() { return probe_groups.load(std::memory_order_relaxed); }

void recheck_crowded_at(std::optional<std::chrono::milliseconds> age) {
  recheck_age_ms.store(age ? age->count() : -1);
}

namespace {

std::mutex steering_mutex;
std::optional<std::string> steered_text;

}  // namespace

void steer_overrides(std::optional<std::string> text) {
  std::lock_guard<std::mutex> lock(steering_mutex);
  steered_text = std::move(text);
}

std::optional<std::string> overrides_steered_now() {
  std::lock_guard<std::mutex> lock(steering_mutex);
  return steered_text;
}

std::optional<std::string> steered_overrides() { return overrides_steered_now(); }

std::optional<std::chrono::milliseconds> crowded_recheck_age() {
  const long long ms = recheck_age_ms.load(std::memory_order_relaxed);
  if (ms < 0) return std::nullopt;
  return std::chrono::milliseconds(ms);
}

}  // namespace ipt::runtime::faults
