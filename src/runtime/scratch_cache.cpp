// SPDX-License-Identifier: Apache-2.0
#include "runtime/scratch_cache.hpp"

#include <algorithm>
#include <mutex>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include "runtime/deferred_release.hpp"
#include "runtime/fault_seam.hpp"

namespace ipt::runtime {
namespace {

// Enough for a few threads transposing on one context at once; small, so that buffers of
// an old large shape do not stay long (a kept buffer holds at most the flags and 0.5% of a
// matrix).
constexpr std::size_t kPerContext = 4;
constexpr std::size_t kTotal = 16;
// Larger buffers (the borrowed bytes of matrices over about 3·10^9 bytes) are released:
// their calls are long enough for 20 us not to matter, and the memory would stay taken.
constexpr std::size_t kMaxKeptBytes = std::size_t{16} << 20;

struct Kept {
  cl_context context;
  cl_mem buffer;  // the cache's reference
  std::size_t bytes;
  bool zero;               // zero scratch (take_zero_scratch), never handed out as the other kind
  cl_event last;           // the cache's reference to the last command that used it
  cl_command_queue queue;  // where `last` was enqueued (not retained: see the header)
  bool in_order;
  // Zero scratch only: known zero once `last` completes. A new buffer's first fill may
  // never run (its call's wait list failed), so a buffer given back fresh is handed out
  // only after its tag has been seen complete, even on its own queue.
  bool confirmed;
};

// Never destroyed, as the program cache: a call from another thread while the process
// exits must find them still there (the entries' handles are released by calls only).
std::mutex& cache_mutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}

std::vector<Kept>& kept() {
  static std::vector<Kept>* buffers = new std::vector<Kept>;
  return *buffers;
}

// CL_COMPLETE (0), a positive status while the command is pending, a negative one when it
// ended abnormally (or the event cannot be asked).
cl_int status_of(cl_event event) {
  cl_int status = CL_COMPLETE;
  if (clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr) !=
      CL_SUCCESS)
    return -1;
  return status;
}

// Drops the cache's references of an entry taken out of the list; a buffer that a pending
// command still uses is released when the command completes (releasing it now would
// block: deferred_release.hpp). `after`, when given, is a command the caller has just
// enqueued: an idle buffer is then released once that completes, since freeing device
// memory waits for all the device's pending work on NVIDIA's driver (a new shape's call
// that replaced a kept buffer returned only after its own kernels had run, 2 ms for
// 12297 x 17213 floats).
// The cache's own references are handed on, never retained again: a retain can fail,
// and this runs after a call's last command, when nothing may fail the call (nor stop
// ipt_clear_cache half-way).
void release_kept(const Kept& k, const cl::Event& after = cl::Event()) {
  const cl::Event last(k.last);  // the cache's reference, dropped when this goes
  if (status_of(k.last) > CL_COMPLETE)
    release_when_complete(last, cl::Buffer(k.buffer));
  else if (after() != nullptr)
    release_when_complete(after, cl::Buffer(k.buffer));
  else
    clReleaseMemObject(k.buffer);
}

// The smallest kept buffer of the kind that is large enough and free for `use`, or none.
// The status of a tag is asked for a buffer last used on another queue, and for zero
// scratch: the answer costs a driver call, so a call that repeats on one queue asks it of
// the one zero buffer it takes (whose last use may have ended abnormally) and of no
// other.
TakenScratch take_kept(const ScratchUse& use, std::uint64_t bytes, bool zero) {
  std::vector<Kept> dirty;
  std::optional<Kept> taken;
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    auto& buffers = kept();
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < buffers.size(); ++i)
      if (buffers[i].context == use.context && buffers[i].zero == zero && buffers[i].bytes >= bytes)
        candidates.push_back(i);
    std::sort(candidates.begin(), candidates.end(),
              [&](std::size_t a, std::size_t b) { return buffers[a].bytes < buffers[b].bytes; });
    std::vector<std::size_t> dropped;
    for (const std::size_t i : candidates) {
      const Kept& k = buffers[i];
      const bool same_queue = use.in_order && k.in_order && k.queue == use.queue;
      if (same_queue && !zero) {
        taken = k;  // runs after its tag
      } else {
        const cl_int status = status_of(k.last);
        if (zero && status < 0) {  // its command may have stopped half-way: maybe dirty
          dropped.push_back(i);
          continue;
        }
        // Still in use: only later commands of its own in-order queue run after it, and a
        // zero buffer given back new only once its first fill has been seen to run.
        if (status > CL_COMPLETE && !(same_queue && k.confirmed)) continue;
        taken = k;
      }
      dropped.push_back(i);
      break;
    }
    std::sort(dropped.rbegin(), dropped.rend());
    for (const std::size_t i : dropped) {
      if (!taken || buffers[i].buffer != taken->buffer) dirty.push_back(buffers[i]);
      buffers.erase(buffers.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  for (const Kept& k : dirty) release_kept(k);
  TakenScratch result;
  if (!taken) return result;
  result.buffer = cl::Buffer(taken->buffer);  // takes over the cache's references
  result.previous = cl::Event(taken->last);
  return result;
}

void keep(const cl::Event& last, const ScratchUse& use, cl::Buffer buffer, bool zero,
          bool confirmed) {
  if (buffer() == nullptr || last() == nullptr) return;
  std::size_t bytes = 0;
  const auto retained = [&] {  // the entry's reference to `last`; none: nothing is kept
    try {
      faults::point(faults::Site::kKeep, "clRetainEvent");
      return clRetainEvent(last()) == CL_SUCCESS;
    } catch (const cl::Error&) {
      return false;
    }
  };
  if (clGetMemObjectInfo(buffer(), CL_MEM_SIZE, sizeof bytes, &bytes, nullptr) != CL_SUCCESS ||
      bytes > kMaxKeptBytes || !retained()) {
    release_when_complete(last, std::move(buffer));
    return;
  }
  const Kept entry{use.context, buffer(), bytes, zero, last(), use.queue, use.in_order, confirmed};
  buffer() = nullptr;  // the entry holds the reference now
  std::optional<Kept> evicted = entry;
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    auto& buffers = kept();
    const auto alike = [&](const Kept& k) { return k.context == use.context && k.zero == zero; };
    const auto same =
        static_cast<std::size_t>(std::count_if(buffers.begin(), buffers.end(), alike));
    if (same < kPerContext && buffers.size() < kTotal) {
      try {
        buffers.push_back(entry);
        evicted.reset();
      } catch (const std::bad_alloc&) {
        // Not kept (released below): this runs after the call's last command, when
        // nothing may fail the call.
      }
    } else {
      // Full: keep the larger of this buffer and the smallest kept one of its kind.
      auto smallest = buffers.end();
      for (auto it = buffers.begin(); it != buffers.end(); ++it)
        if (alike(*it) && (smallest == buffers.end() || it->bytes < smallest->bytes)) smallest = it;
      if (smallest != buffers.end() && smallest->bytes < bytes) {
        evicted = *smallest;
        *smallest = entry;
      }
    }
  }
  if (evicted) release_kept(*evicted, last);
}

}  // namespace

TakenScratch take_scratch(const ScratchUse& use, std::uint64_t bytes) {
  TakenScratch taken = take_kept(use, bytes, false);
  if (taken.buffer() == nullptr) {
    faults::point(faults::Site::kAllocation, "clCreateBuffer");
    taken.buffer = cl::Buffer(Borrowed<cl::Context>(use.context), CL_MEM_READ_WRITE,
                              static_cast<std::size_t>(bytes));
  }
  return taken;
}

TakenScratch take_zero_scratch(const ScratchUse& use, std::uint64_t bytes) {
  TakenScratch taken = take_kept(use, bytes, true);
  taken.fresh = taken.buffer() == nullptr;
  if (taken.fresh) {
    faults::point(faults::Site::kAllocation, "clCreateBuffer");
    taken.buffer = cl::Buffer(Borrowed<cl::Context>(use.context), CL_MEM_READ_WRITE,
                              static_cast<std::size_t>(bytes));
  }
  return taken;
}

void give_back_scratch(const cl::Event& last, const ScratchUse& use, cl::Buffer buffer) {
  keep(last, use, std::move(buffer), false, true);
}

void give_back_zero_scratch(const cl::Event& last, const ScratchUse& use, cl::Buffer buffer,
                            bool fresh) {
  keep(last, use, std::move(buffer), true, !fresh);
}

void clear_scratch_cache() {
  std::vector<Kept> released;
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    released.swap(kept());
  }
  for (const Kept& k : released) release_kept(k);
}

std::size_t scratch_cache_size() {
  std::lock_guard<std::mutex> lock(cache_mutex());
  return kept().size();
}

}  // namespace ipt::runtime
