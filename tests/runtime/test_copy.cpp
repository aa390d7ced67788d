// SPDX-License-Identifier: Apache-2.0
// The element copy between buffers (kernels/copy.cl), which saves and restores the bytes a
// padded plan borrows beyond the caller's matrix, its steps run alone: every element size,
// offsets on both sides, both ways between the matrix and scratch, counts below a
// work-group and beyond one grid (the grid-stride loop), the bytes around both ranges
// unchanged, and the words it zeroes on the way.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <utility>
#include <vector>

#include "helpers/step_check.hpp"
#include "helpers/test_support.hpp"
#include "helpers/words_to_zero.hpp"
#include "planner/launch_plan.hpp"
#include "runtime/error.hpp"
#include "runtime/executor.hpp"
#include "runtime/opencl.hpp"
#include "support/step_run.hpp"

using ipt::planner::Buffer;
using ipt::test::GuardedMatrix;
using ipt::test::session;
using ipt::test::site_of;

namespace {

// Bytes `bytes` of `now` from `at` equal those of `source` from `from`, and every other
// byte of `now` equals `before`: empty, else what differs.
std::string holds_only(const std::vector<unsigned char>& now,
                       const std::vector<unsigned char>& before, std::size_t at,
                       const std::vector<unsigned char>& source, std::size_t from,
                       std::size_t bytes) {
  if (std::memcmp(&now[at], &source[from], bytes) != 0) return "the copied range differs";
  if (std::memcmp(now.data(), before.data(), at) != 0) return "bytes before the range changed";
  if (std::memcmp(&now[at + bytes], &before[at + bytes], now.size() - at - bytes) != 0)
    return "bytes after the range changed";
  return "";
}

}  // namespace

TEST_CASE("copy moves exactly its range between the matrix and scratch", "[copy]") {
  const cl::CommandQueue queue(session().queue(), true);
  for (std::size_t elem_size : {1, 2, 4, 8, 16}) {
    for (std::uint64_t count : {1ull, 7ull, 256ull, 1000ull, 300000ull}) {
      CAPTURE(elem_size, count);
      // The matrix `offset` elements into its buffer, the range `at` elements past its
      // start (a padded plan's borrowed bytes lie past the matrix's end); `scratch_at`
      // elements into the scratch buffer.
      const std::size_t offset = count % 5 + 1, at = count % 4, scratch_at = count % 3;
      const auto site = site_of(elem_size, offset);
      for (const bool to_scratch : {true, false}) {
        CAPTURE(to_scratch);
        GuardedMatrix matrix(1, at + count, elem_size, offset, 5 * elem_size, count + elem_size);
        GuardedMatrix scratch(1, count, elem_size, scratch_at, 3 * elem_size,
                              count * 3 + elem_size);
        const cl::Buffer buffer(matrix.buffer(), true), scratch_buffer(scratch.buffer(), true);
        const auto step = to_scratch ? ipt::planner::copy_step(site, Buffer::kMatrix, at,
                                                               Buffer::kScratch, scratch_at, count)
                                     : ipt::planner::copy_step(site, Buffer::kScratch, scratch_at,
                                                               Buffer::kMatrix, at, count);
        ipt::runtime::EnqueueOptions options;
        options.scratch = &scratch_buffer;
        ipt::support::run_steps(queue, buffer, {step}, elem_size, offset, {}, options).wait();
        const std::size_t bytes = count * elem_size;
        const std::size_t matrix_at = (offset + at) * elem_size;
        const std::size_t in_scratch = scratch_at * elem_size;
        if (to_scratch) {
          CHECK(matrix.check_unchanged() == "");
          CHECK(holds_only(scratch.read_all(), scratch.initial(), in_scratch, matrix.initial(),
                           matrix_at, bytes) == "");
        } else {
          CHECK(scratch.check_unchanged() == "");
          CHECK(holds_only(matrix.read_all(), matrix.initial(), matrix_at, scratch.initial(),
                           in_scratch, bytes) == "");
        }
      }
    }
  }
}

TEST_CASE("a copy of nothing, a prepared copy not enqueued, copies without an event", "[copy]") {
  const cl::CommandQueue queue(session().queue(), true);
  GuardedMatrix m(1, 3 * 64, 4, 0, 4, 1);
  const cl::Buffer buffer(m.buffer(), true);
  const auto site = site_of(4, 0);
  // Nothing to copy: no step, and a marker that callers may wait on.
  const auto nothing = ipt::planner::copy_step(site, Buffer::kMatrix, 0, Buffer::kMatrix, 64, 0);
  CHECK(nothing.noop());
  cl::Event marker = ipt::support::run_steps(queue, buffer, {nothing}, 4, 0);
  REQUIRE(marker() != nullptr);
  marker.wait();
  CHECK(m.check_unchanged() == "");
  // Prepared (built and checked) but not enqueued: nothing moves.
  const auto first = ipt::planner::copy_step(site, Buffer::kMatrix, 0, Buffer::kMatrix, 64, 64);
  const auto second = ipt::planner::copy_step(site, Buffer::kMatrix, 64, Buffer::kMatrix, 128, 64);
  const auto prepared =
      ipt::runtime::prepare_plan(queue, ipt::planner::plan_of_steps({first, second}, 4, 0));
  queue.finish();
  CHECK(m.check_unchanged() == "");
  // On an in-order queue only the last step carries an event: the second copy reads what
  // the first wrote, so the queue's order is all that makes it right.
  cl::Event last = ipt::runtime::enqueue_plan(queue, buffer, prepared, {});
  REQUIRE(last() != nullptr);
  last.wait();
  auto expected = m.matrix_before();
  std::copy(expected.begin(), expected.begin() + 64 * 4, expected.begin() + 64 * 4);
  std::copy(expected.begin(), expected.begin() + 64 * 4, expected.begin() + 128 * 4);
  CHECK(m.check_holds(expected) == "");
  // Every step's event when asked for, the last one returned.
  GuardedMatrix again(1, 3 * 64, 4, 0, 4, 2);
  const cl::Buffer again_buffer(again.buffer(), true);
  std::vector<cl::Event> events;
  ipt::runtime::EnqueueOptions options;
  options.step_events = &events;
  last = ipt::runtime::enqueue_plan(queue, again_buffer, prepared, {}, options);
  REQUIRE(events.size() == 2);
  CHECK(events[0]() != nullptr);
  CHECK(events[1]() == last());
  last.wait();
  expected = again.matrix_before();
  std::copy(expected.begin(), expected.begin() + 64 * 4, expected.begin() + 64 * 4);
  std::copy(expected.begin(), expected.begin() + 64 * 4, expected.begin() + 128 * 4);
  CHECK(again.check_holds(expected) == "");
}

TEST_CASE("a copy also zeroes the words it is given, and nothing around them", "[copy]") {
  // A padded call's save of the borrowed bytes clears the call's flags in the same
  // command: the words must end all zero, the bytes around them as they were, and the
  // range copied.
  const cl::CommandQueue queue(session().queue(), true);
  for (std::uint64_t words : {1ull, 255ull, 70000ull, 300000ull}) {  // below and beyond a grid
    for (std::uint64_t count : {0ull, 5ull, 1000ull}) {
      CAPTURE(words, count);
      const ipt::test::WordsToZero zero(queue, words);
      GuardedMatrix src(1, count + 1, 4, 0, 4, words + count), dst(1, count + 1, 4, 0, 4, 9);
      const cl::Buffer from(src.buffer(), true), to(dst.buffer(), true);
      const auto step = ipt::planner::copy_step(site_of(4, 0), Buffer::kMatrix, 1, Buffer::kScratch,
                                                0, count, zero.region());
      auto options = zero.options();
      options.scratch = &to;
      ipt::support::run_steps(queue, from, {step}, 4, 0, {}, options).wait();
      CHECK(zero.wrong_bytes(queue) == 0);
      CHECK(src.check_unchanged() == "");
      const auto after = dst.read_all(), source = src.initial();
      CHECK(std::memcmp(after.data(), &source[4], count * 4) == 0);
      CHECK(std::memcmp(&after[count * 4], &dst.initial()[count * 4], after.size() - count * 4) ==
            0);
    }
  }
}
