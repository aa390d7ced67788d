// SPDX-License-Identifier: Apache-2.0
// Scratch buffers kept across calls: a finished call hands its buffer back, the next call
// takes it (dirty: its flags are those the last call left) and must zero it again, so
// every result stays exact; a larger need gets a larger buffer; ipt_clear_cache drops them.
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "helpers/fault_injection.hpp"
#include "helpers/test_support.hpp"
#include "planner/launch_plan.hpp"
#include "runtime/device_query.hpp"
#include "runtime/scratch_cache.hpp"
#include "runtime/transpose.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::ScopedEnv;
using ipt::test::session;
namespace rt = ipt::runtime;
using ipt::planner::Buffer;
using ipt::planner::Region;

namespace {

// Whether `inner` lies within `outer` (same buffer).
bool within(const Region& inner, const Region& outer) {
  return inner.buffer == outer.buffer && outer.offset <= inner.offset &&
         inner.offset + inner.bytes <= outer.offset + outer.bytes;
}

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

rt::ScratchUse use_of(const cl::CommandQueue& queue) {
  return {queue.getInfo<CL_QUEUE_CONTEXT>()(), queue(),
          (queue.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0};
}

// A marker that completes only when the returned user event is set: a command that a
// kept buffer's tag can name while it is still pending.
struct Gate {
  cl::UserEvent open;
  cl::Event marker;
  explicit Gate(const cl::CommandQueue& queue)
      : open(cl::Context(queue.getInfo<CL_QUEUE_CONTEXT>())) {
    const std::vector<cl::Event> wait{open};
    queue.enqueueMarkerWithWaitList(&wait, &marker);
  }
};

}  // namespace

TEST_CASE("calls reuse kept scratch buffers and stay exact", "[scratch-cache]") {
  ipt::test::ScopedOverrides budget("local_mem=49152");
  REQUIRE(ipt_clear_cache() == IPT_SUCCESS);
  CHECK(rt::scratch_cache_size() == 0);
  // Padded shapes (flags of three stages, restride counters, borrowed bytes), repeated
  // so that each call finds the last one's dirty buffer, then a larger one.
  for (int round = 0; round < 3; ++round) {
    CHECK(transpose_fresh(301, 1999, 10 + round) == "");
    REQUIRE(rt::scratch_cache_size() >= 1);  // handed back as the call returned
    CHECK(transpose_fresh(1999, 301, 20 + round) == "");
    REQUIRE(rt::scratch_cache_size() >= 1);
  }
  CHECK(transpose_fresh(1501, 2003, 30) == "");
  REQUIRE(rt::scratch_cache_size() >= 1);
  CHECK(transpose_fresh(301, 1999, 40) == "");
  REQUIRE(ipt_clear_cache() == IPT_SUCCESS);
  CHECK(rt::scratch_cache_size() == 0);
  CHECK(transpose_fresh(301, 1999, 50) == "");
}

TEST_CASE("take_scratch gives a kept buffer only when it is large enough", "[scratch-cache]") {
  rt::clear_scratch_cache();
  const cl::CommandQueue queue(session().queue(), true);
  const rt::ScratchUse use = use_of(queue);
  cl::Buffer small = rt::take_scratch(use, 4096).buffer;
  const cl_mem small_handle = small();
  cl::Event marker;
  queue.enqueueMarkerWithWaitList(nullptr, &marker);
  rt::give_back_scratch(marker, use, small);
  small = cl::Buffer();
  marker.wait();
  REQUIRE(rt::scratch_cache_size() == 1);
  const cl::Buffer larger = rt::take_scratch(use, 8192).buffer;  // the kept one is too small
  CHECK(larger() != small_handle);
  CHECK(larger.getInfo<CL_MEM_SIZE>() >= 8192);
  CHECK(rt::scratch_cache_size() == 1);
  const cl::Buffer reused = rt::take_scratch(use, 1000).buffer;
  CHECK(reused() == small_handle);
  CHECK(rt::scratch_cache_size() == 0);
}

TEST_CASE("scratch buffers over 16 MiB are released, not kept", "[scratch-cache]") {
  rt::clear_scratch_cache();
  const cl::CommandQueue queue(session().queue(), true);
  const rt::ScratchUse use = use_of(queue);
  for (const std::uint64_t bytes : {std::uint64_t{32} << 20, std::uint64_t{4096}}) {
    cl::Event marker;
    queue.enqueueMarkerWithWaitList(nullptr, &marker);
    rt::give_back_scratch(marker, use, rt::take_scratch(use, bytes).buffer);
    marker.wait();
  }
  CHECK(rt::scratch_cache_size() == 1);                                      // the small one
  CHECK(rt::take_scratch(use, 8192).buffer.getInfo<CL_MEM_SIZE>() == 8192);  // a new one
  CHECK(rt::take_scratch(use, 4096).buffer.getInfo<CL_MEM_SIZE>() == 4096);
  rt::clear_scratch_cache();
}

TEST_CASE("a buffer still in use goes only to later commands of the same in-order queue",
          "[scratch-cache]") {
  rt::clear_scratch_cache();
  const cl::CommandQueue queue(session().queue(), true);
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const cl::CommandQueue other(context, cl::Device(session().device(), true));
  const rt::ScratchUse use = use_of(queue), elsewhere = use_of(other);
  REQUIRE(use.in_order);
  for (const bool zero : {false, true}) {
    CAPTURE(zero);
    bool fresh = false;
    auto take = [&](const rt::ScratchUse& u) {
      rt::TakenScratch taken = zero ? rt::take_zero_scratch(u, 4096) : rt::take_scratch(u, 4096);
      fresh = taken.fresh;
      return taken.buffer;
    };
    // `was_fresh`: the buffer was new when its call took it (zero scratch only).
    auto give = [&](const cl::Event& last, const rt::ScratchUse& u, cl::Buffer b, bool was_fresh) {
      if (zero)
        rt::give_back_zero_scratch(last, u, std::move(b), was_fresh);
      else
        rt::give_back_scratch(last, u, std::move(b));
    };
    cl::Buffer first = take(use);
    const cl_mem handle = first();
    if (zero) {
      // A buffer given back new is handed out, even to its own queue, only once its tag
      // has been seen complete: its first fill might never run.
      Gate unconfirmed(queue);
      give(unconfirmed.marker, use, std::move(first), true);
      cl::Buffer not_yet = take(use);
      CHECK(not_yet() != handle);
      CHECK(fresh);
      unconfirmed.open.setStatus(CL_COMPLETE);
      queue.finish();
      first = take(use);
      CHECK(first() == handle);
      CHECK_FALSE(fresh);
    }
    Gate gate(queue);
    give(gate.marker, use, std::move(first), false);
    // Pending: another queue gets a new buffer; this queue's next commands get the kept one.
    cl::Buffer on_other = take(elsewhere);
    CHECK(on_other() != handle);
    CHECK(fresh == zero);
    cl::Buffer same_queue = take(use);
    CHECK(same_queue() == handle);
    CHECK_FALSE(fresh);
    give(gate.marker, use, std::move(same_queue), false);
    // The out-of-order rule is the completion rule: a queue that may reorder must wait.
    CHECK(take(rt::ScratchUse{use.context, use.queue, false})() != handle);
    gate.open.setStatus(CL_COMPLETE);
    queue.finish();
    const cl::Buffer after = take(elsewhere);  // completed: free for any queue
    CHECK(after() == handle);
    CHECK_FALSE(fresh);
    rt::clear_scratch_cache();
  }
}

TEST_CASE("zero scratch is handed out only after a run that completed, apart from the other kind",
          "[scratch-cache]") {
  rt::clear_scratch_cache();
  const cl::CommandQueue queue(session().queue(), true);
  const rt::ScratchUse use = use_of(queue);
  rt::TakenScratch zero = rt::take_zero_scratch(use, 4096);
  CHECK(zero.fresh);  // the pool is empty: a new buffer, which the caller fills
  cl::Event marker;
  queue.enqueueMarkerWithWaitList(nullptr, &marker);
  marker.wait();
  rt::give_back_zero_scratch(marker, use, std::move(zero.buffer), zero.fresh);
  REQUIRE(rt::scratch_cache_size() == 1);
  // Not handed out as dirty scratch, and handed out as zero scratch without a fill.
  CHECK(rt::take_scratch(use, 1000).buffer.getInfo<CL_MEM_SIZE>() == 1000);
  rt::TakenScratch again = rt::take_zero_scratch(use, 1000);
  CHECK(again.buffer.getInfo<CL_MEM_SIZE>() == 4096);
  CHECK_FALSE(again.fresh);
  CHECK(again.previous() == marker());  // its tag, for the caller to drop
  CHECK(rt::scratch_cache_size() == 0);
  // A run that ended abnormally may have left its buffer dirty: released, never handed to
  // another queue.
  const cl::CommandQueue other(cl::Context(queue.getInfo<CL_QUEUE_CONTEXT>()),
                               cl::Device(session().device(), true));
  cl_int code = CL_SUCCESS;
  cl_event failed = clCreateUserEvent(use.context, &code);
  REQUIRE(code == CL_SUCCESS);
  rt::TakenScratch doomed = rt::take_zero_scratch(use, 4096);
  // Held here, so that a new buffer cannot be given the handle of the one released.
  const cl::Buffer held = doomed.buffer;
  const cl_mem doomed_handle = held();
  rt::give_back_zero_scratch(cl::Event(failed, true), use, std::move(doomed.buffer), false);
  CHECK(rt::scratch_cache_size() == 1);
  CHECK(clSetUserEventStatus(failed, -1) == CL_SUCCESS);
  clReleaseEvent(failed);
  const rt::TakenScratch elsewhere = rt::take_zero_scratch(use_of(other), 4096);
  CHECK(elsewhere.buffer() != doomed_handle);
  CHECK(elsewhere.fresh);
  CHECK(rt::scratch_cache_size() == 0);
  rt::clear_scratch_cache();
}

TEST_CASE("a 2.2 call leaves its zero scratch zero: its last kernel clears the flags",
          "[scratch-cache]") {
  // The 0100! stage's flags, and those of a pad before it, live in the zero scratch when
  // the call's last kernel (BS or on-chip 010!) can clear them; a later call takes that
  // buffer without a fill, so it must read all zero once the call is done. Then calls
  // back to back on one queue and on another queue, each checked in full. The padded
  // shapes (prime columns, padded by one in a buffer of just the matrix: the column
  // past it kept in scratch) start with the pad.
  const cl::CommandQueue queue(session().queue(), true);
  const cl::CommandQueue other(cl::Context(queue.getInfo<CL_QUEUE_CONTEXT>()),
                               cl::Device(session().device(), true));
  struct Case {
    const char* overrides;
    std::size_t rows, cols;
    const char* last;  // how ipt_plan names the last stage's kernel
    std::size_t steps;
  };
  for (const Case& c :
       {Case{"local_mem=49152,padding=off,sequence=2.2,n=16", 300, 256, "BS tiles", 2},
        Case{"resident_groups=1,local_mem=49152,compute_units=1,padding=off,sequence=2.2,n=32",
             1000, 384, "on chip", 2},
        Case{"resident_groups=0,local_mem=49152", 401, 1019, "BS tiles", 3},
        Case{"resident_groups=1,local_mem=49152,compute_units=1", 401, 1019, "on chip", 3}}) {
    ipt::test::ScopedOverrides env(c.overrides);
    INFO(c.overrides);
    ipt_plan_info info{};
    REQUIRE(ipt_plan(session().device(), c.rows, c.cols, 4, nullptr, &info) == IPT_SUCCESS);
    REQUIRE(std::string(info.description).find(c.last) != std::string::npos);
    // The plan: no fill and no flags in call scratch (which holds only a split matrix's
    // last column); the earlier kernels' flags in the zero scratch, within the words the
    // last kernel clears.
    const auto plan = rt::plan_for_call(rt::query_device_profile(session().device()), c.rows,
                                        c.cols, 4, 0, nullptr);
    INFO(ipt::planner::describe(plan));
    REQUIRE(plan.steps.size() == c.steps);
    CHECK(plan.fill.empty());
    if (c.steps == 2) CHECK(plan.scratch_bytes == 0);
    if (c.steps == 3) {
      REQUIRE(plan.steps.front().family == ipt::planner::Family::kRestride);
      CHECK_FALSE(plan.split_tail.empty());
    }
    for (const auto& step : plan.steps) CHECK(step.flags.buffer != Buffer::kScratch);
    for (std::size_t i = 0; i + 1 < plan.steps.size(); ++i) {
      CHECK(plan.steps[i].flags.buffer == Buffer::kZeroScratch);
      CHECK(within(plan.steps[i].flags, plan.steps.back().zeroes));
    }
    rt::clear_scratch_cache();
    GuardedMatrix m(c.rows, c.cols, 4, 0, 4, c.rows);
    REQUIRE(ipt_transpose_f32(queue(), m.buffer(), 0, c.rows, c.cols, 0, nullptr, nullptr) ==
            IPT_SUCCESS);
    queue.finish();
    CHECK(m.check_transposed() == "");
    rt::TakenScratch kept = rt::take_zero_scratch(use_of(queue), 1);
    REQUIRE_FALSE(kept.fresh);
    const std::size_t bytes = kept.buffer.getInfo<CL_MEM_SIZE>();
    std::vector<unsigned char> now(bytes);
    queue.enqueueReadBuffer(kept.buffer, CL_TRUE, 0, bytes, now.data());
    CHECK(std::count(now.begin(), now.end(), 0) == static_cast<std::ptrdiff_t>(bytes));
    rt::give_back_zero_scratch(cl::Event(), use_of(queue), std::move(kept.buffer),
                               false);  // no event: dropped
    // Back to back: three calls on one queue without waiting, then one on another queue.
    std::vector<std::unique_ptr<GuardedMatrix>> matrices;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      matrices.push_back(std::make_unique<GuardedMatrix>(c.rows, c.cols, 4, 0, 4, seed));
      REQUIRE(ipt_transpose_f32(queue(), matrices.back()->buffer(), 0, c.rows, c.cols, 0, nullptr,
                                nullptr) == IPT_SUCCESS);
    }
    queue.finish();
    matrices.push_back(std::make_unique<GuardedMatrix>(c.rows, c.cols, 4, 0, 4, 4));
    REQUIRE(ipt_transpose_f32(other(), matrices.back()->buffer(), 0, c.rows, c.cols, 0, nullptr,
                              nullptr) == IPT_SUCCESS);
    other.finish();
    for (const auto& matrix : matrices) CHECK(matrix->check_transposed() == "");
  }
  rt::clear_scratch_cache();
}

TEST_CASE("a call whose first kernel is BS clears the next kernel's flags in dirty scratch",
          "[scratch-cache]") {
  // A 2.1 call's BS stage zeroes the 100! stage's flags on the way, so the call needs no
  // fill. Given a kept scratch buffer of all ones (every item "done": a 100! reading them
  // would move nothing), and then the buffer its own kernels left, every result must stay
  // exact.
  ipt::test::ScopedOverrides env("local_mem=49152,padding=off,sequence=2.1,m=16");
  const std::size_t rows = 304, cols = 300;
  const auto plan =
      rt::plan_for_call(rt::query_device_profile(session().device()), rows, cols, 4, 0, nullptr);
  INFO(ipt::planner::describe(plan));
  REQUIRE(plan.steps.size() == 2);
  CHECK(plan.fill.empty());
  CHECK(plan.steps.front().family == ipt::planner::Family::kBs);
  CHECK(plan.steps.back().flags.buffer == Buffer::kScratch);
  CHECK(within(plan.steps.back().flags, plan.steps.front().zeroes));
  REQUIRE(plan.scratch_bytes > 0);

  const cl::CommandQueue queue(session().queue(), true);
  rt::clear_scratch_cache();
  const rt::ScratchUse use = use_of(queue);
  cl::Buffer dirty = rt::take_scratch(use, plan.scratch_bytes).buffer;
  const cl_mem handle = dirty();
  queue.enqueueFillBuffer(dirty, cl_uchar{0xff}, 0, static_cast<std::size_t>(plan.scratch_bytes));
  cl::Event filled;
  queue.enqueueMarkerWithWaitList(nullptr, &filled);
  rt::give_back_scratch(filled, use, std::move(dirty));
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    GuardedMatrix m(rows, cols, 4, 0, 4, seed);
    REQUIRE(ipt_transpose_f32(queue(), m.buffer(), 0, rows, cols, 0, nullptr, nullptr) ==
            IPT_SUCCESS);
    queue.finish();
    CHECK(m.check_transposed() == "");
  }
  // The calls took the dirty buffer: it is the one kept now.
  CHECK(rt::take_scratch(use, 1).buffer() == handle);
  rt::clear_scratch_cache();
}

TEST_CASE("zero scratch whose last use failed is zeroed again, on its own queue too",
          "[scratch-cache]") {
  // A 2.2 call keeps the 0100! stage's flags in zero scratch and takes a kept buffer
  // without a fill. One whose last use ended abnormally (its tag's status negative: a
  // command cut short between setting flags and clearing them) may hold set flags, which
  // make the 0100! stage move nothing: the call must get it zeroed again (here all ones,
  // tagged with a failed user event on the call's own in-order queue).
  ipt::test::ScopedOverrides env("local_mem=49152,padding=off,sequence=2.2,n=16");
  const std::size_t rows = 300, cols = 256;
  const auto plan =
      rt::plan_for_call(rt::query_device_profile(session().device()), rows, cols, 4, 0, nullptr);
  INFO(ipt::planner::describe(plan));
  REQUIRE(plan.zero_scratch_bytes > 0);
  REQUIRE(plan.steps.front().flags.buffer == Buffer::kZeroScratch);
  const cl::CommandQueue queue(session().queue(), true);
  const rt::ScratchUse use = use_of(queue);
  REQUIRE(use.in_order);
  const auto give_dirty = [&](cl_event tag) {
    rt::TakenScratch dirty = rt::take_zero_scratch(use, plan.zero_scratch_bytes);
    queue.enqueueFillBuffer(dirty.buffer, cl_uchar{0xff}, 0,
                            static_cast<std::size_t>(plan.zero_scratch_bytes));
    queue.finish();
    rt::give_back_zero_scratch(cl::Event(tag, true), use, std::move(dirty.buffer), false);
  };
  cl_int code = CL_SUCCESS;
  cl_event failed = clCreateUserEvent(use.context, &code);
  REQUIRE(code == CL_SUCCESS);
  rt::clear_scratch_cache();
  give_dirty(failed);
  REQUIRE(clSetUserEventStatus(failed, -1) == CL_SUCCESS);
  CHECK(rt::take_zero_scratch(use, 1).fresh);  // to be filled by the caller
  CHECK(rt::scratch_cache_size() == 0);
  give_dirty(failed);
  GuardedMatrix m(rows, cols, 4, 0, 4, 19);
  REQUIRE(ipt_transpose_f32(queue(), m.buffer(), 0, rows, cols, 0, nullptr, nullptr) ==
          IPT_SUCCESS);
  queue.finish();
  CHECK(m.check_transposed() == "");
  clReleaseEvent(failed);
  rt::clear_scratch_cache();
}
