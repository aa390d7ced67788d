// SPDX-License-Identifier: Apache-2.0
// Thread safety as ipt.h states it: concurrent calls on different queues and buffers of
// one context and of different contexts, in-order and out-of-order, with ipt_clear_cache
// racing them, on shapes whose plans use scratch, borrowed bytes, cached plans and the
// on-chip kernel. Run under ThreadSanitizer in CI (tools/setup.sh test).
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "helpers/test_support.hpp"
#include "support/host_reference.hpp"
#include "support/random_data.hpp"

using ipt::support::random_bytes;
using ipt::support::separate_neighbours;
using ipt::support::transpose_reference;
using ipt::test::ScopedEnv;

namespace {

// A small local memory makes these shapes take plans of several kernels on any device,
// and resident_groups the on-chip kernel for those that fit it.
constexpr const char* kOverrides = "local_mem=8192,resident_groups=1,compute_units=4";

struct Shape {
  std::size_t rows, cols, elem_size;
  bool room;  // a buffer of ipt_padded_size bytes, else exactly the matrix
};

// 3.1 and 2.x plans with flags in scratch; padded plans split into scratch and
// borrowing room; the whole matrix on chip; a square.
const Shape kShapes[] = {{96, 80, 4, false},   {150, 37, 4, false},  {37, 150, 8, false},
                         {503, 499, 2, false}, {131, 997, 8, true},  {401, 409, 1, true},
                         {211, 307, 2, false}, {120, 126, 1, false}, {64, 64, 16, false}};

// Guard bytes around the matrix: they must come back untouched.
constexpr std::size_t kGuard = 512;  // a sub-buffer origin on most devices

std::size_t room_bytes(cl_device_id device, const Shape& s) {
  std::size_t bytes = s.rows * s.cols * s.elem_size;
  if (s.room && ipt_padded_size(device, s.rows, s.cols, s.elem_size, &bytes) != IPT_SUCCESS)
    return 0;
  return bytes;
}

// A call's result: empty when `back` (the whole buffer) holds the transpose of `data`'s
// matrix and the guards are unchanged.
std::string check(const std::vector<unsigned char>& data, const std::vector<unsigned char>& back,
                  const Shape& s, int calls) {
  const std::size_t bytes = s.rows * s.cols * s.elem_size;
  std::vector<unsigned char> expected = data;
  const std::vector<unsigned char> matrix(data.begin() + kGuard, data.begin() + kGuard + bytes);
  // An odd number of calls transposes, an even one restores.
  const std::vector<unsigned char> moved =
      calls % 2 == 1 ? transpose_reference(matrix, s.rows, s.cols, s.elem_size) : matrix;
  std::copy(moved.begin(), moved.end(), expected.begin() + kGuard);
  if (back == expected) return "";
  return std::to_string(s.rows) + " x " + std::to_string(s.cols) + " of " +
         std::to_string(s.elem_size) + " bytes after " + std::to_string(calls) +
         " call(s): wrong bytes";
}

// Transposes `rounds` random matrices of kShapes on `queue`; each round makes `calls`
// calls back to back (each on the previous one's result, the shape swapping), the host
// waiting only for the last. Between two calls a read without blocking keeps what the
// first left, so that every call is checked against the host reference: an even number
// of calls alone is a round trip, which calls that do nothing pass. Out-of-order queues
// chain the calls and reads by their events. Returns what went wrong.
std::vector<std::string> transpose_rounds(cl_context context, cl_device_id device,
                                          cl_command_queue queue, bool out_of_order, unsigned seed,
                                          int rounds, int calls) {
  std::vector<std::string> problems;
  for (int round = 0; round < rounds; ++round) {
    const Shape& s = kShapes[(seed * 7 + static_cast<unsigned>(round)) % std::size(kShapes)];
    const std::size_t room = room_bytes(device, s);
    if (room == 0) {
      problems.push_back("ipt_padded_size failed");
      continue;
    }
    auto data = random_bytes(kGuard + room + kGuard, seed * 1000u + round);
    // The matrix's neighbours differ: equal 1-byte ones would hide a misplaced element.
    separate_neighbours(data.data() + kGuard, s.rows * s.cols, s.elem_size, s.cols);
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size(),
                                   const_cast<unsigned char*>(data.data()), &code);
    if (code != CL_SUCCESS) {
      problems.push_back("clCreateBuffer: " + std::to_string(code));
      continue;
    }
    // A sub-buffer, so that the guard after the room is outside what the call may use.
    cl_buffer_region region{kGuard, room};
    cl_mem matrix =
        clCreateSubBuffer(buffer, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &code);
    if (code != CL_SUCCESS) {
      // Sub-buffer origins must be aligned on some devices: fall back to an offset.
      matrix = nullptr;
    }
    cl_event last = nullptr, read = nullptr;
    // The buffer after each call but the last (a vector's bytes stay put when it moves).
    std::vector<std::vector<unsigned char>> between;
    std::vector<cl_event> reads;
    std::size_t rows = s.rows, cols = s.cols;
    for (int call = 0; call < calls; ++call) {
      // After the previous call and the read of its result (which this call overwrites).
      std::vector<cl_event> wait;
      for (cl_event e : {last, read})
        if (e != nullptr) wait.push_back(e);
      const cl_uint count = static_cast<cl_uint>(wait.size());
      const cl_event* list = wait.empty() ? nullptr : wait.data();
      cl_event event = nullptr;
      const ipt_status status =
          matrix != nullptr
              ? ipt_transpose(queue, matrix, 0, rows, cols, count, list, &event, s.elem_size)
              : ipt_transpose(queue, buffer, kGuard / s.elem_size, rows, cols, count, list, &event,
                              s.elem_size);
      if (last != nullptr) clReleaseEvent(last);
      last = event;
      if (status != IPT_SUCCESS) {
        problems.push_back(std::string("ipt_transpose: ") + ipt_status_string(status) + ": " +
                           ipt_last_error_message());
        break;
      }
      std::swap(rows, cols);
      if (call + 1 == calls) break;
      between.emplace_back(data.size());
      read = nullptr;
      code = clEnqueueReadBuffer(queue, buffer, CL_FALSE, 0, data.size(), between.back().data(), 1,
                                 &last, &read);
      if (code != CL_SUCCESS) {
        problems.push_back("clEnqueueReadBuffer (between calls): " + std::to_string(code));
        between.pop_back();
        break;
      }
      reads.push_back(read);
    }
    std::vector<unsigned char> back(data.size());
    code = clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, back.size(), back.data(),
                               last && out_of_order ? 1 : 0, last && out_of_order ? &last : nullptr,
                               nullptr);
    if (last != nullptr) clReleaseEvent(last);
    if (!reads.empty() &&
        clWaitForEvents(static_cast<cl_uint>(reads.size()), reads.data()) != CL_SUCCESS)
      problems.push_back("a read between calls failed");
    for (cl_event e : reads) clReleaseEvent(e);
    for (std::size_t k = 0; k < between.size(); ++k)
      if (std::string bad = check(data, between[k], s, static_cast<int>(k) + 1); !bad.empty())
        problems.push_back(bad);
    if (code != CL_SUCCESS)
      problems.push_back("clEnqueueReadBuffer: " + std::to_string(code));
    else if (std::string bad = check(data, back, s, calls); !bad.empty())
      problems.push_back(bad);
    if (matrix != nullptr) clReleaseMemObject(matrix);
    clReleaseMemObject(buffer);
  }
  return problems;
}

// Runs `body(t)` on `count` threads at once and gathers what they report.
template <typename Body>
std::vector<std::string> on_threads(unsigned count, Body body) {
  std::vector<std::vector<std::string>> found(count);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < count; ++t)
    threads.emplace_back([&, t] {
      try {
        found[t] = body(t);
      } catch (const std::exception& e) {
        found[t].push_back(std::string("exception: ") + e.what());
      }
    });
  for (auto& thread : threads) thread.join();
  std::vector<std::string> all;
  for (auto& f : found) all.insert(all.end(), f.begin(), f.end());
  return all;
}

// ipt_clear_cache every few milliseconds until destroyed.
class CacheClearer {
 public:
  CacheClearer()
      : thread_([this] {
          while (!done_) {
            if (ipt_clear_cache() != IPT_SUCCESS) ++failures_;
            std::this_thread::sleep_for(std::chrono::milliseconds(3));
          }
        }) {}
  ~CacheClearer() { stop(); }
  int stop() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
    return failures_;
  }

 private:
  std::atomic<bool> done_{false};
  std::atomic<int> failures_{0};
  std::thread thread_;
};

cl_command_queue new_queue(cl_context context, cl_device_id device, bool out_of_order) {
  cl_int code = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue(
      context, device, out_of_order ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, &code);
  return code == CL_SUCCESS ? queue : nullptr;
}

// Rounds per thread of the 16-thread cases. The sanitized builds, whose job is the races
// and memory errors of these paths, take half as many: under ThreadSanitizer on the 2-core
// CI machine the two cases took 160 s, a tenth of that build's budget; half the rounds of
// 16 threads still interleave every call with the others' and with the cache's clearing.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kRoundsScale = 2;
#else
constexpr int kRoundsScale = 1;
#endif

// PoCL before 6.0 can abort the process ("pocl_release_dlhandle_cache: Assertion
// `found->ref_count > 0' failed") when a program is built while kernels built from the
// same source run from another program object. The two cases below do that on purpose:
// every context builds its own programs, and ipt_clear_cache makes them be built again
// while other threads' kernels run. With PoCL's generic work-group functions it does not
// happen: a standalone program of that pattern aborted in 5 of 5 runs, and in none of 30
// with this variable. It changes only how PoCL compiles; other platforms ignore it.
constexpr const char* kPoclGenericWorkGroups = "POCL_WORK_GROUP_SPECIALIZATION";

}  // namespace

TEST_CASE("16 threads transpose on their own queues of one context, the cache cleared meanwhile",
          "[threads]") {
  ScopedEnv env("IPT_OVERRIDES", kOverrides);
  ScopedEnv generic(kPoclGenericWorkGroups, "0");
  auto& session = ipt::test::session();
  CacheClearer clearer;
  // Even threads use out-of-order queues; each round makes one, two or three calls back
  // to back.
  const auto problems = on_threads(16, [&](unsigned t) {
    const bool out_of_order = t % 2 == 1;
    cl_command_queue queue = new_queue(session.context(), session.device(), out_of_order);
    if (queue == nullptr) return std::vector<std::string>{"clCreateCommandQueue failed"};
    auto found = transpose_rounds(session.context(), session.device(), queue, out_of_order, t,
                                  10 / kRoundsScale, 1 + static_cast<int>(t % 3));
    clReleaseCommandQueue(queue);
    return found;
  });
  CHECK(clearer.stop() == 0);
  for (const std::string& p : problems) FAIL_CHECK(p);
  CHECK(problems.empty());
}

TEST_CASE("16 threads with their own contexts, the cache cleared meanwhile", "[threads]") {
  ScopedEnv env("IPT_OVERRIDES", kOverrides);
  ScopedEnv generic(kPoclGenericWorkGroups, "0");
  CacheClearer clearer;
  const auto problems = on_threads(16, [&](unsigned t) {
    ipt::support::Session own;
    return transpose_rounds(own.context(), own.device(), own.queue(), false, 100 + t,
                            4 / kRoundsScale, 1 + static_cast<int>(t % 2));
  });
  CHECK(clearer.stop() == 0);
  for (const std::string& p : problems) FAIL_CHECK(p);
  CHECK(problems.empty());
}

TEST_CASE("threads share one in-order queue", "[threads]") {
  // The calls of different threads interleave on the queue; each thread's own calls stay
  // in order.
  ScopedEnv env("IPT_OVERRIDES", kOverrides);
  auto& session = ipt::test::session();
  const auto problems = on_threads(8, [&](unsigned t) {
    return transpose_rounds(session.context(), session.device(), session.queue(), false, 200 + t, 6,
                            3);
  });
  for (const std::string& p : problems) FAIL_CHECK(p);
  CHECK(problems.empty());
}

TEST_CASE("the last error message is per thread", "[threads][api]") {
  std::string seen_by_other;
  CHECK(ipt_transpose_f32(nullptr, nullptr, 0, 1, 1, 0, nullptr, nullptr) ==
        IPT_INVALID_COMMAND_QUEUE);
  std::thread other([&] { seen_by_other = ipt_last_error_message(); });
  other.join();
  CHECK(seen_by_other.empty());
  CHECK_FALSE(std::string(ipt_last_error_message()).empty());
}
