// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernel_set.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "planner/kernel_variants.hpp"
#include "runtime/environment.hpp"
#include "runtime/error.hpp"
#include "runtime/kernel_sources.hpp"
#include "runtime/program_cache.hpp"

namespace ipt::runtime {
namespace {

using SetKey = std::tuple<cl_context, cl_device_id, std::size_t, bool>;

struct BuiltSets {
  std::mutex mutex;
  std::set<SetKey> done;
};

// Never destroyed, like the program cache it describes.
BuiltSets& built_sets() {
  static BuiltSets* instance = new BuiltSets;
  return *instance;
}

// The threads a build may start besides the caller's: hardware_concurrency reads a file
// of /sys on every call (about 5 us), so once.
unsigned build_threads() {
  static const unsigned threads = std::max(2u, std::thread::hardware_concurrency());
  return threads;
}

}  // namespace

void build_programs(const cl::Context& context, const cl::Device& device,
                    const std::vector<planner::KernelVariant>& all) {
  // Most calls find every program built (a lookup each); only the rest take threads.
  std::vector<planner::KernelVariant> variants;
  for (const planner::KernelVariant& v : all)
    if (!program_built(context, device, planner::family_source(v.family), v.options,
                       v.groups_per_unit))
      variants.push_back(v);
  // A driver compiles each program on the calling thread; the program cache lets
  // different programs build at once (and the same one once).
  const std::size_t threads = std::min<std::size_t>(variants.size(), build_threads());
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  const auto work = [&] {
    for (std::size_t i = next++; i < variants.size(); i = next++) {
      try {
        get_program(context, device, planner::family_source(variants[i].family),
                    variants[i].options, variants[i].groups_per_unit);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = variants.size();
      }
    }
  };
  std::vector<std::thread> pool;
  try {
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  } catch (const std::system_error&) {
    // Fewer threads than asked for: the ones started and this one do the work.
  }
  work();
  for (std::thread& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
}

void build_kernel_set(const cl::Context& context, const cl::Device& device,
                      const planner::DeviceProfile& profile, std::size_t elem_size, bool index64) {
  build_programs(context, device, planner::kernel_variants(profile, elem_size, index64));
}

bool builds_whole_set() {
  // Sources being edited (IPT_KERNEL_DIR): build what is used, from the files as they are.
  if (kernel_sources_from_files()) return false;
  const char* choice = variable(Variable::kKernelSet);
  return choice != nullptr && std::strcmp(choice, "all") == 0;
}

void ensure_kernel_set(const cl::Context& context, const cl::Device& device,
                       const planner::DeviceProfile& profile, std::size_t elem_size, bool index64) {
  const SetKey key{context(), device(), elem_size, index64};
  {
    std::lock_guard<std::mutex> lock(built_sets().mutex);
    if (built_sets().done.count(key) != 0) return;
  }
  if (builds_whole_set()) {
    try {
      build_kernel_set(context, device, profile, elem_size, index64);
    } catch (const Error&) {
      // A program the call does not launch is not its failure: the call builds its own
      // programs next and reports what goes wrong with them.
    }
  }
  std::lock_guard<std::mutex> lock(built_sets().mutex);
  built_sets().done.insert(key);
}

void clear_kernel_sets() {
  std::lock_guard<std::mutex> lock(built_sets().mutex);
  built_sets().done.clear();
}

}  // namespace ipt::runtime
