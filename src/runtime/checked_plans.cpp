// SPDX-License-Identifier: Apache-2.0
#include "runtime/checked_plans.hpp"

#include <mutex>
#include <vector>

namespace ipt::runtime {
namespace {

constexpr std::size_t kMaxEntries = 64;

struct Entry {
  CheckedPlanKey key;
  cl::Context context;  // keeps key.context from being freed and its handle reused
  std::shared_ptr<const CheckedPlan> checked;
};

struct Cache {
  std::mutex mutex;
  std::vector<Entry> entries;
  CheckedPlanStats stats;
};

Cache& cache() {
  static Cache instance;
  return instance;
}

}  // namespace

bool CheckedPlanKey::operator==(const CheckedPlanKey& other) const {
  return context == other.context && device == other.device && rows == other.rows &&
         cols == other.cols && capacity == other.capacity && offset == other.offset &&
         batch == other.batch && elem_size == other.elem_size && environment == other.environment &&
         operation == other.operation;
}

std::shared_ptr<const CheckedPlan> find_checked_plan(const CheckedPlanKey& key) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (const Entry& entry : c.entries) {
    if (entry.key == key) {
      ++c.stats.hits;
      return entry.checked;
    }
  }
  ++c.stats.misses;
  return nullptr;
}

void remember_checked_plan(const CheckedPlanKey& key, const cl::Context& context,
                           std::shared_ptr<const CheckedPlan> prepared) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (Entry& entry : c.entries)
    if (entry.key == key) {  // another thread's, or one planned again (new on-chip verdicts)
      entry.checked = std::move(prepared);
      return;
    }
  if (c.entries.size() >= kMaxEntries) c.entries.clear();
  c.entries.push_back(Entry{key, context, std::move(prepared)});
}

void clear_checked_plans() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.entries.clear();
}

CheckedPlanStats checked_plan_stats() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  CheckedPlanStats stats = c.stats;
  stats.entries = c.entries.size();
  return stats;
}

}  // namespace ipt::runtime
