// SPDX-License-Identifier: Apache-2.0
#include "runtime/checked_plans.hpp"

#include <algorithm>
#include <iterator>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "planner/relocation.hpp"
#include "runtime/transpose.hpp"

namespace ipt::runtime {
namespace {

constexpr std::size_t kMaxEntries = 64;

struct Entry {
  CheckedPlanKey key;
  cl::Context context;  // keeps key.context from being freed and its handle reused
  std::shared_ptr<const CheckedPlan> checked;
};

// A class of offsets (find_moved_plan): key.offset is the offset modulo the period, and
// the room is not part of it.
struct MovableEntry {
  CheckedPlanKey key;
  cl::Context context;
  std::uint64_t first_offset = 0;  // the offset noted first
  bool learned = false;            // tried: `relocation` is what was found, if anything
  std::optional<planner::Relocation> relocation;
  std::shared_ptr<const CheckedPlan> checked;  // the plan `relocation` moves
};

// Entries leave the cache under its lock and are dropped after it: dropping a plan may
// release its programs and context, driver calls that may block (a thread stuck in one
// would hold every call that looks a plan up).
struct Cache {
  std::mutex mutex;
  std::vector<Entry> entries;
  std::vector<MovableEntry> movable;
  CheckedPlanStats stats;
};

// Never destroyed, as the program cache: its entries hold contexts and programs, and
// releasing them from a static destructor could call into an OpenCL driver that is
// already torn down at process exit.
Cache& cache() {
  static Cache* instance = new Cache;
  return *instance;
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
  std::shared_ptr<const CheckedPlan> replaced;
  std::vector<Entry> dropped;
  std::lock_guard<std::mutex> lock(c.mutex);
  for (Entry& entry : c.entries)
    if (entry.key == key) {  // another thread's, or one planned again (new on-chip verdicts)
      replaced = std::exchange(entry.checked, std::move(prepared));
      return;
    }
  if (c.entries.size() >= kMaxEntries) dropped.swap(c.entries);
  c.entries.push_back(Entry{key, context, std::move(prepared)});
}

namespace {

CheckedPlanKey class_key(CheckedPlanKey key) {
  key.offset %= planner::relocation_period(key.elem_size);
  key.capacity = 0;
  return key;
}

MovableEntry* find_class(Cache& c, const CheckedPlanKey& class_of) {
  for (MovableEntry& entry : c.movable)
    if (entry.key == class_of) return &entry;
  return nullptr;
}

}  // namespace

std::shared_ptr<const CheckedPlan> find_moved_plan(const CheckedPlanKey& key) {
  std::shared_ptr<const CheckedPlan> from;
  planner::Relocation relocation;
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    const MovableEntry* entry = find_class(c, class_key(key));
    if (entry == nullptr || !entry->relocation) return nullptr;
    from = entry->checked;
    relocation = *entry->relocation;
  }
  std::optional<planner::LaunchPlan> moved =
      planner::relocated(from->prepared.plan, relocation, key.offset);
  if (!moved) return nullptr;
  auto checked = std::make_shared<CheckedPlan>(CheckedPlan{
      PreparedPlan{std::move(*moved), from->prepared.programs, from->prepared.undo_programs},
      from->onchip});
  std::lock_guard<std::mutex> lock(c.mutex);
  ++c.stats.moved;
  return checked;
}

void learn_moves(const CheckedPlanKey& key, const cl::Context& context,
                 std::shared_ptr<const CheckedPlan> checked,
                 const std::function<planner::LaunchPlan(std::uint64_t offset)>& plan_at) {
  const CheckedPlanKey class_of = class_key(key);
  Cache& c = cache();
  std::vector<MovableEntry> dropped;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    MovableEntry* entry = find_class(c, class_of);
    if (entry == nullptr) {
      if (c.movable.size() >= kMaxEntries) dropped.swap(c.movable);
      c.movable.push_back(
          MovableEntry{class_of, context, key.offset, false, std::nullopt, nullptr});
      return;
    }
    if (entry->learned || entry->first_offset == key.offset) return;
    entry->learned = true;  // one thread learns; the others plan meanwhile
  }
  const std::uint64_t period = planner::relocation_period(key.elem_size);
  std::optional<planner::Relocation> relocation;
  if (key.offset <= UINT64_MAX - 2 * period) {
    try {
      relocation = planner::find_relocation(checked->prepared.plan, plan_at(key.offset + period),
                                            plan_at(key.offset + 2 * period), period);
    } catch (...) {
      // Nothing learned: the class plans every call, as calls of unknown classes do.
    }
  }
  std::shared_ptr<const CheckedPlan> replaced;
  std::lock_guard<std::mutex> lock(c.mutex);
  MovableEntry* entry = find_class(c, class_of);
  if (entry == nullptr || !relocation) return;
  entry->relocation = std::move(relocation);
  replaced = std::exchange(entry->checked, std::move(checked));
}

void forget_moves(const CheckedPlanKey& key) {
  const CheckedPlanKey class_of = class_key(key);
  Cache& c = cache();
  std::vector<MovableEntry> dropped;
  std::lock_guard<std::mutex> lock(c.mutex);
  const auto gone =
      std::stable_partition(c.movable.begin(), c.movable.end(),
                            [&](const MovableEntry& e) { return !(e.key == class_of); });
  std::move(gone, c.movable.end(), std::back_inserter(dropped));
  c.movable.erase(gone, c.movable.end());
}

void clear_checked_plans() {
  Cache& c = cache();
  std::vector<Entry> entries;
  std::vector<MovableEntry> movable;
  std::lock_guard<std::mutex> lock(c.mutex);
  entries.swap(c.entries);
  movable.swap(c.movable);
}

CheckedPlanStats checked_plan_stats() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  CheckedPlanStats stats = c.stats;
  stats.entries = c.entries.size();
  return stats;
}

}  // namespace ipt::runtime
