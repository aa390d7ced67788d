#include "runtime/scratch_cache.hpp"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "runtime/deferred_release.hpp"

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
  cl_mem buffer;
  std::size_t bytes;
  bool zero;  // zero scratch (take_zero_scratch), never handed out as the other kind
};

std::mutex& cache_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<Kept>& kept() {
  static std::vector<Kept> buffers;
  return buffers;
}

// Keeps `mem` (a reference the caller owns) or releases it, outside the lock.
void keep_or_release(cl_mem mem, bool zero) {
  cl_context context = nullptr;
  std::size_t bytes = 0;
  if (clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof(context), &context, nullptr) != CL_SUCCESS ||
      clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof(bytes), &bytes, nullptr) != CL_SUCCESS ||
      bytes > kMaxKeptBytes) {
    clReleaseMemObject(mem);
    return;
  }
  cl_mem evicted = mem;
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    auto& buffers = kept();
    const auto alike = [&](const Kept& k) { return k.context == context && k.zero == zero; };
    const auto same =
        static_cast<std::size_t>(std::count_if(buffers.begin(), buffers.end(), alike));
    if (same < kPerContext && buffers.size() < kTotal) {
      buffers.push_back({context, mem, bytes, zero});
      evicted = nullptr;
    } else {
      // Full: keep the larger of this buffer and the smallest kept one of its kind.
      auto smallest = buffers.end();
      for (auto it = buffers.begin(); it != buffers.end(); ++it)
        if (alike(*it) && (smallest == buffers.end() || it->bytes < smallest->bytes)) smallest = it;
      if (smallest != buffers.end() && smallest->bytes < bytes) {
        evicted = smallest->buffer;
        *smallest = {context, mem, bytes, zero};
      }
    }
  }
  if (evicted != nullptr) clReleaseMemObject(evicted);
}

void CL_CALLBACK give_back(cl_event, cl_int, void* buffer) {
  keep_or_release(static_cast<cl_mem>(buffer), false);
}

void CL_CALLBACK give_back_zero(cl_event event, cl_int status, void* buffer) {
  // NVIDIA's driver (580) called back with CL_COMPLETE for a user event set to an error;
  // the event's own status is asked as well.
  cl_int now = CL_COMPLETE;
  if (clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof now, &now, nullptr) !=
      CL_SUCCESS)
    now = -1;
  if (status == CL_COMPLETE && now == CL_COMPLETE)
    keep_or_release(static_cast<cl_mem>(buffer), true);
  else
    clReleaseMemObject(static_cast<cl_mem>(buffer));
}

// The smallest kept buffer of the kind that is large enough, or none.
cl::Buffer take_kept(const cl::Context& context, std::uint64_t bytes, bool zero) {
  std::lock_guard<std::mutex> lock(cache_mutex());
  auto& buffers = kept();
  auto best = buffers.end();
  for (auto it = buffers.begin(); it != buffers.end(); ++it)
    if (it->context == context() && it->zero == zero && it->bytes >= bytes &&
        (best == buffers.end() || it->bytes < best->bytes))
      best = it;
  if (best == buffers.end()) return cl::Buffer();
  const cl_mem mem = best->buffer;
  buffers.erase(best);
  return cl::Buffer(mem);  // takes over the cache's reference
}

}  // namespace

cl::Buffer take_scratch(const cl::Context& context, std::uint64_t bytes) {
  cl::Buffer kept_buffer = take_kept(context, bytes, false);
  if (kept_buffer() != nullptr) return kept_buffer;
  return cl::Buffer(context, CL_MEM_READ_WRITE, static_cast<std::size_t>(bytes));
}

cl::Buffer take_zero_scratch(const cl::Context& context, std::uint64_t bytes, bool* fresh) {
  cl::Buffer kept_buffer = take_kept(context, bytes, true);
  *fresh = kept_buffer() == nullptr;
  if (!*fresh) return kept_buffer;
  return cl::Buffer(context, CL_MEM_READ_WRITE, static_cast<std::size_t>(bytes));
}

void give_back_scratch_when_complete(const cl::Event& done, cl::Buffer buffer) {
  when_complete(done, buffer, give_back);
}

void give_back_zero_scratch_when_complete(const cl::Event& done, cl::Buffer buffer) {
  when_complete(done, buffer, give_back_zero);
}

void clear_scratch_cache() {
  std::vector<Kept> released;
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    released.swap(kept());
  }
  for (const Kept& k : released) clReleaseMemObject(k.buffer);
}

std::size_t scratch_cache_size() {
  std::lock_guard<std::mutex> lock(cache_mutex());
  return kept().size();
}

}  // namespace ipt::runtime
