// SPDX-License-Identifier: Apache-2.0
// Checked plans: a call that repeats an earlier one reuses its prepared plan and skips
// planning and preparing, yet every result stays exact, and nothing stale is ever reused:
// other settings or plan options, another offset or another buffer room plan anew, and a
// call that failed its checks is not remembered. A prepared plan holds its programs.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "helpers/fault_injection.hpp"
#include "helpers/test_support.hpp"
#include "runtime/checked_plans.hpp"
#include "runtime/device_query.hpp"
#include "runtime/launcher.hpp"
#include "runtime/onchip_residency.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/transpose.hpp"
#include "support/host_reference.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::ScopedEnv;
using ipt::test::session;
namespace rt = ipt::runtime;

namespace {

// Transposes a fresh random matrix with `after` guard bytes and checks it in full.
std::string transpose_fresh(std::size_t rows, std::size_t cols, std::size_t offset,
                            std::size_t after, std::uint64_t seed) {
  GuardedMatrix m(rows, cols, 4, offset, after, seed);
  cl_event done = nullptr;
  const ipt_status status =
      ipt_transpose_f32(session().queue(), m.buffer(), offset, rows, cols, 0, nullptr, &done);
  if (status != IPT_SUCCESS) return std::string("status ") + ipt_status_string(status);
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  return m.check_transposed();
}

std::size_t padded_room(std::size_t rows, std::size_t cols) {
  std::size_t bytes = 0;
  REQUIRE(ipt_padded_size(session().device(), rows, cols, 4, &bytes) == IPT_SUCCESS);
  REQUIRE(bytes > rows * cols * 4);  // the shapes below are padded when there is room
  return bytes - rows * cols * 4;
}

}  // namespace

TEST_CASE("a repeated call reuses its checked plan, and its result is exact", "[plan-cache]") {
  // Regular plans: on a GPU the padded shapes below fit the on-chip plan, which never pads.
  ipt::test::ScopedOverrides regular("onchip=off");
  rt::clear_caches();
  CHECK(rt::checked_plan_stats().entries == 0);
  const auto before = rt::checked_plan_stats();
  CHECK(transpose_fresh(300, 211, 3, 8, 1) == "");  // planned and checked
  CHECK(transpose_fresh(300, 211, 3, 8, 2) == "");  // reused
  CHECK(transpose_fresh(300, 211, 3, 8, 3) == "");  // reused
  auto now = rt::checked_plan_stats();
  CHECK(now.misses == before.misses + 1);
  CHECK(now.hits == before.hits + 2);
  CHECK(now.entries == 1);

  // A padded plan: the same room each time (the bytes beyond the matrix are checked).
  const std::size_t room = padded_room(997, 601);
  CHECK(transpose_fresh(997, 601, 0, room, 4) == "");
  CHECK(transpose_fresh(997, 601, 0, room, 5) == "");
  now = rt::checked_plan_stats();
  CHECK(now.misses == before.misses + 2);
  CHECK(now.hits == before.hits + 3);
}

TEST_CASE("another offset, room or setting is planned anew", "[plan-cache]") {
  // Regular plans: on a GPU the padded shapes below fit the on-chip plan, which never pads.
  // Through the environment, as a user sets it: the test is that its text is in the key.
  ScopedEnv regular("IPT_OVERRIDES", "onchip=off");
  rt::clear_caches();
  const auto before = rt::checked_plan_stats();
  CHECK(transpose_fresh(997, 601, 0, 8, 10) == "");                      // no room to pad
  CHECK(transpose_fresh(997, 601, 0, padded_room(997, 601), 11) == "");  // room to pad
  CHECK(transpose_fresh(997, 601, 5, 8, 12) == "");                      // another offset
  CHECK(rt::checked_plan_stats().misses == before.misses + 3);
  {
    // Settings that change the plan (a smaller local memory, a forced sequence) or the
    // kernels (build options) are part of the key.
    ScopedEnv overrides("IPT_OVERRIDES", "local_mem=32768,simd=64");
    CHECK(transpose_fresh(997, 601, 0, 8, 13) == "");
    ScopedEnv sequence("IPT_OVERRIDES", "sequence=1");
    CHECK(transpose_fresh(997, 601, 0, 8, 14) == "");
    ScopedEnv options("IPT_BUILD_OPTIONS", "-DIPT_UNUSED_MACRO=1");
    CHECK(transpose_fresh(997, 601, 0, 8, 15) == "");
  }
  CHECK(transpose_fresh(997, 601, 0, 8, 16) == "");  // the first key again
  const auto now = rt::checked_plan_stats();
  CHECK(now.misses == before.misses + 6);
  CHECK(now.hits == before.hits + 1);
}

TEST_CASE("a call with plan options reuses its plan, and the options are part of the key",
          "[plan-cache]") {
  ipt::test::ScopedOverrides regular("onchip=off");
  rt::clear_caches();
  ipt_plan_options one_stage{}, three{}, no_padding{};
  one_stage.sequence = IPT_SEQUENCE_ONE_STAGE;
  three.sequence = IPT_SEQUENCE_3_1;
  no_padding.padding = IPT_PADDING_OFF;
  const std::size_t rows = 360, cols = 250;
  // Each call on a fresh random matrix, checked in full; `options` null: ipt_transpose.
  const auto call = [&](const ipt_plan_options* options, std::uint64_t seed) {
    GuardedMatrix m(rows, cols, 4, 0, 16, seed);
    cl_event done = nullptr;
    const ipt_status status =
        options == nullptr
            ? ipt_transpose(session().queue(), m.buffer(), 0, rows, cols, 0, nullptr, &done, 4)
            : ipt_transpose_with_options(session().queue(), m.buffer(), 0, rows, cols, 4, options,
                                         0, nullptr, &done);
    if (status != IPT_SUCCESS) return std::string("status ") + ipt_status_string(status);
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    return m.check_transposed();
  };
  const auto before = rt::checked_plan_stats();
  CHECK(call(&one_stage, 1) == "");  // planned and checked
  CHECK(call(&one_stage, 2) == "");  // reused
  CHECK(call(nullptr, 3) == "");     // the same shape without options: its own plan
  CHECK(call(&three, 4) == "");      // other options: their own plan
  CHECK(call(&no_padding, 5) == "");
  CHECK(call(&three, 6) == "");  // reused
  CHECK(call(nullptr, 7) == "");
  CHECK(call(&one_stage, 8) == "");
  const auto now = rt::checked_plan_stats();
  CHECK(now.misses == before.misses + 4);
  CHECK(now.hits == before.hits + 4);
  CHECK(now.entries == 4);
}

TEST_CASE("a loop over the matrices of one buffer moves one plan between offsets, exactly",
          "[plan-cache]") {
  // Matrices back to back whose sizes are whole periods (planner/relocation.hpp), so that
  // every offset of a loop is in one class: the first call is noted, the second learns,
  // the others are moved. `lead` puts the class off every alignment or on 64 elements.
  struct Loop {
    std::size_t rows, cols, elem_size, lead;
  };
  const std::vector<Loop> loops = {{64, 100, 4, 3},  {64, 100, 4, 64},  {64, 100, 1, 3},
                                   {64, 100, 1, 64}, {96, 100, 2, 3},   {96, 100, 2, 64},
                                   {300, 256, 4, 3}, {1000, 64, 4, 64}, {128, 1000, 4, 3},
                                   {256, 256, 4, 3}, {120, 120, 8, 64}, {1000, 64, 8, 3}};
  constexpr std::size_t kMatrices = 6;
  std::uint64_t seed = 40;
  for (const Loop& loop : loops) {
    CAPTURE(loop.rows, loop.cols, loop.elem_size, loop.lead);
    rt::clear_caches();
    const std::size_t size = loop.rows * loop.cols;
    GuardedMatrix m(kMatrices * loop.rows, loop.cols, loop.elem_size, loop.lead, 64, ++seed);
    const auto transpose_all = [&](std::size_t rows, std::size_t cols, bool backwards) {
      for (std::size_t i = 0; i < kMatrices; ++i) {
        const std::size_t k = backwards ? kMatrices - 1 - i : i;
        REQUIRE(ipt_transpose(session().queue(), m.buffer(), loop.lead + k * size, rows, cols, 0,
                              nullptr, nullptr, loop.elem_size) == IPT_SUCCESS);
      }
      REQUIRE(clFinish(session().queue()) == CL_SUCCESS);
    };
    const std::size_t moved = rt::checked_plan_stats().moved;
    transpose_all(loop.rows, loop.cols, false);
    CHECK(m.check_holds(ipt::support::permute_010(m.matrix_before(), kMatrices, loop.rows,
                                                  loop.cols, loop.elem_size)) == "");
    CHECK(rt::checked_plan_stats().moved - moved == kMatrices - 2);
    // Back, the last matrix first: the transposed shape's plan moves below its base. A
    // square's is the same shape: the two offsets planned on the way there are kept, the
    // moved plans are not (a loop over a buffer would push every other plan out).
    const std::size_t hits = rt::checked_plan_stats().hits;
    transpose_all(loop.cols, loop.rows, true);
    CHECK(m.check_holds(m.matrix_before()) == "");
    CHECK(rt::checked_plan_stats().moved - moved == 2 * (kMatrices - 2));
    CHECK(rt::checked_plan_stats().hits - hits == (loop.rows == loop.cols ? 2 : 0));
  }
}

TEST_CASE("a call that fails its checks is not remembered and leaves the buffer", "[plan-cache]") {
  rt::clear_caches();
  {
    // Kernels that cannot build: preparing fails before anything is enqueued.
    ScopedEnv options("IPT_BUILD_OPTIONS", "-DIPT_ELEM_BYTES=3");
    GuardedMatrix m(300, 211, 4, 0, 8, 20);
    CHECK(ipt_transpose_f32(session().queue(), m.buffer(), 0, 300, 211, 0, nullptr, nullptr) !=
          IPT_SUCCESS);
    CHECK(m.check_unchanged() == "");
    CHECK(rt::checked_plan_stats().entries == 0);
    // The same call again is checked again (and fails again), not served from the cache.
    CHECK(ipt_transpose_f32(session().queue(), m.buffer(), 0, 300, 211, 0, nullptr, nullptr) !=
          IPT_SUCCESS);
    CHECK(m.check_unchanged() == "");
  }
  CHECK(transpose_fresh(300, 211, 0, 8, 21) == "");
  CHECK(rt::checked_plan_stats().entries == 1);
}

TEST_CASE("a checked plan keeps its programs when only the program cache is cleared",
          "[plan-cache]") {
  rt::clear_caches();
  CHECK(transpose_fresh(300, 211, 3, 8, 30) == "");
  rt::clear_program_cache();
  CHECK(rt::program_cache_size() == 0);
  const auto before = rt::checked_plan_stats();
  const auto built = rt::program_cache_stats();
  CHECK(transpose_fresh(300, 211, 3, 8, 31) == "");  // the prepared plan and its programs
  CHECK(rt::checked_plan_stats().hits == before.hits + 1);
  CHECK(rt::program_cache_stats().source_builds == built.source_builds);
  CHECK(rt::program_cache_stats().disk_loads == built.disk_loads);
  CHECK(rt::program_cache_size() == 0);
  rt::clear_caches();
  CHECK(rt::checked_plan_stats().entries == 0);
}

TEST_CASE("a program's on-chip launch is probed once, not once per shape", "[plan-cache][onchip]") {
  // Each on-chip program is probed once (runtime/onchip_residency.hpp: its launch, which
  // NVIDIA's driver under-reports the work-group limit of, and whether its groups all run
  // at once); a new shape whose on-chip program was probed before must not pay for
  // another probe.
  rt::clear_caches();
  ipt_plan_options onchip{};
  onchip.sequence = IPT_SEQUENCE_ON_CHIP;
  // The on-chip programs (steps and undo) a forced on-chip call of rows x cols prepares.
  const auto programs = [](std::uint64_t rows, std::uint64_t cols) {
    ipt::planner::PlanRequest request;  // IPT_SEQUENCE_ON_CHIP's (api/plan_options.cpp)
    request.onchip = ipt::planner::OnChip::kForce;
    const auto plan =
        rt::plan_for_call(rt::query_device_profile(session().device()), rows, cols, 4, 0, &request);
    std::set<std::string> options;
    for (const auto* steps : {&plan.steps, &plan.undo})
      for (const auto& step : *steps)
        if (step.family == ipt::planner::Family::kOnChip) options.insert(step.options);
    return options;
  };
  const auto first = programs(150, 170), second = programs(170, 150);
  REQUIRE(!first.empty());
  REQUIRE(std::includes(first.begin(), first.end(), second.begin(), second.end()));

  const auto call = [&](std::size_t rows, std::size_t cols, std::uint64_t seed) {
    GuardedMatrix m(rows, cols, 4, 0, 16, seed);
    cl_event done = nullptr;
    const ipt_status status = ipt_transpose_with_options(session().queue(), m.buffer(), 0, rows,
                                                         cols, 4, &onchip, 0, nullptr, &done);
    if (status != IPT_SUCCESS) return std::string("status ") + ipt_status_string(status);
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    return m.check_transposed();
  };
  const std::size_t before = rt::onchip_probe_count();
  CHECK(call(150, 170, 11) == "");
  const std::size_t after_first = rt::onchip_probe_count();
  CHECK(after_first - before <= first.size());
  CHECK(call(170, 150, 12) == "");
  CHECK(call(150, 170, 13) == "");  // its plan reused
  CHECK(rt::onchip_probe_count() == after_first);
}
