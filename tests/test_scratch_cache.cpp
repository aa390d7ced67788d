// Scratch buffers kept across calls: a finished call hands its buffer back, the next call
// takes it (dirty: its flags are those the last call left) and must zero it again, so
// every result stays exact; a larger need gets a larger buffer; ipt_clear_cache drops them.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "runtime/scratch_cache.hpp"
#include "test_support.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::ScopedEnv;
using ipt::test::session;
namespace rt = ipt::runtime;

namespace {

// Transposes a fresh random matrix in a buffer with room for padding and checks it all.
std::string transpose_fresh(std::size_t rows, std::size_t cols, std::uint64_t seed) {
  std::size_t bytes = 0;
  if (ipt_padded_size(session().device(), rows, cols, 4, &bytes) != IPT_SUCCESS)
    return "ipt_padded_size failed";
  GuardedMatrix m(rows, cols, 4, 2, bytes - rows * cols * 4 + 16, seed);
  cl_event done = nullptr;
  const ipt_status status =
      ipt_transpose_f32(session().queue(), m.buffer(), 2, rows, cols, 0, nullptr, &done);
  if (status != IPT_SUCCESS) return std::string("status ") + ipt_status_string(status);
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  return m.check_transposed();
}

// The cache is filled by a completion callback, which may run just after the wait returns.
bool cache_reaches(std::size_t at_least) {
  for (int i = 0; i < 200; ++i) {
    if (rt::scratch_cache_size() >= at_least) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

}  // namespace

TEST_CASE("calls reuse kept scratch buffers and stay exact", "[scratch-cache]") {
  ScopedEnv budget("IPT_OVERRIDES", "local_mem=49152");
  REQUIRE(ipt_clear_cache() == IPT_SUCCESS);
  CHECK(rt::scratch_cache_size() == 0);
  // Padded shapes (flags of three stages, restride counters, borrowed bytes), repeated
  // so that each call finds the last one's dirty buffer, then a larger one.
  for (int round = 0; round < 3; ++round) {
    CHECK(transpose_fresh(301, 1999, 10 + round) == "");
    REQUIRE(cache_reaches(1));
    CHECK(transpose_fresh(1999, 301, 20 + round) == "");
    REQUIRE(cache_reaches(1));
  }
  CHECK(transpose_fresh(1501, 2003, 30) == "");
  REQUIRE(cache_reaches(1));
  CHECK(transpose_fresh(301, 1999, 40) == "");
  REQUIRE(ipt_clear_cache() == IPT_SUCCESS);
  CHECK(rt::scratch_cache_size() == 0);
  CHECK(transpose_fresh(301, 1999, 50) == "");
}

TEST_CASE("take_scratch gives a kept buffer only when it is large enough", "[scratch-cache]") {
  rt::clear_scratch_cache();
  const cl::Context context(session().context(), true);
  const cl::CommandQueue queue(session().queue(), true);
  cl::Buffer small = rt::take_scratch(context, 4096);
  const cl_mem small_handle = small();
  cl::Event marker;
  queue.enqueueMarkerWithWaitList(nullptr, &marker);
  rt::give_back_scratch_when_complete(marker, small);
  small = cl::Buffer();
  marker.wait();
  REQUIRE(cache_reaches(1));
  const cl::Buffer larger = rt::take_scratch(context, 8192);  // the kept one is too small
  CHECK(larger() != small_handle);
  CHECK(larger.getInfo<CL_MEM_SIZE>() >= 8192);
  CHECK(rt::scratch_cache_size() == 1);
  const cl::Buffer reused = rt::take_scratch(context, 1000);
  CHECK(reused() == small_handle);
  CHECK(rt::scratch_cache_size() == 0);
}

TEST_CASE("scratch buffers over 16 MiB are released, not kept", "[scratch-cache]") {
  rt::clear_scratch_cache();
  const cl::Context context(session().context(), true);
  const cl::CommandQueue queue(session().queue(), true);
  for (const std::uint64_t bytes : {std::uint64_t{32} << 20, std::uint64_t{4096}}) {
    cl::Event marker;
    queue.enqueueMarkerWithWaitList(nullptr, &marker);
    rt::give_back_scratch_when_complete(marker, rt::take_scratch(context, bytes));
    marker.wait();
  }
  REQUIRE(cache_reaches(1));  // the small one (the large one is never kept)
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let both callbacks end
  CHECK(rt::scratch_cache_size() == 1);
  CHECK(rt::take_scratch(context, 8192).getInfo<CL_MEM_SIZE>() == 8192);  // a new one
  CHECK(rt::take_scratch(context, 4096).getInfo<CL_MEM_SIZE>() == 4096);
  rt::clear_scratch_cache();
}

TEST_CASE("zero scratch is kept only after a run that completed, apart from the other kind",
          "[scratch-cache]") {
  rt::clear_scratch_cache();
  const cl::Context context(session().context(), true);
  const cl::CommandQueue queue(session().queue(), true);
  bool fresh = false;
  cl::Buffer zero = rt::take_zero_scratch(context, 4096, &fresh);
  CHECK(fresh);  // the pool is empty: a new buffer, which the caller fills
  cl::Event marker;
  queue.enqueueMarkerWithWaitList(nullptr, &marker);
  marker.wait();
  rt::give_back_zero_scratch_when_complete(marker, zero);
  zero = cl::Buffer();
  REQUIRE(cache_reaches(1));
  // Not handed out as dirty scratch, and handed out as zero scratch without a fill.
  CHECK(rt::take_scratch(context, 1000).getInfo<CL_MEM_SIZE>() == 1000);
  CHECK(rt::take_zero_scratch(context, 1000, &fresh).getInfo<CL_MEM_SIZE>() == 4096);
  CHECK_FALSE(fresh);
  CHECK(rt::scratch_cache_size() == 0);
  // A run that ended abnormally may have left its buffer dirty: released, not kept.
  cl_int code = CL_SUCCESS;
  cl_event failed = clCreateUserEvent(context(), &code);
  REQUIRE(code == CL_SUCCESS);
  rt::give_back_zero_scratch_when_complete(cl::Event(failed, true),
                                           rt::take_zero_scratch(context, 4096, &fresh));
  CHECK(clSetUserEventStatus(failed, -1) == CL_SUCCESS);
  clReleaseEvent(failed);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(rt::scratch_cache_size() == 0);
  rt::clear_scratch_cache();
}
