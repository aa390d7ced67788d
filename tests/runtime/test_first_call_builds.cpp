// SPDX-License-Identifier: Apache-2.0
// What a process's first call compiles: the programs of its own plan and nothing else
// (a GPU whose driver cache is cold takes 0.1-3 s per program), however many other
// programs its element size has; IPT_KERNEL_SET=all brings back the whole set.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "helpers/test_support.hpp"
#include "ipt/ipt.h"
#include "planner/kernel_variants.hpp"
#include "planner/launch_plan.hpp"
#include "runtime/device_query.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/transpose.hpp"

namespace rt = ipt::runtime;
namespace planner = ipt::planner;
using ipt::test::GuardedMatrix;
using ipt::test::ScopedEnv;
using ipt::test::session;

namespace {

std::size_t source_builds() { return rt::program_cache_stats().source_builds; }

// The distinct programs of the plan a call of `call` makes on the session's device.
std::vector<planner::KernelVariant> plan_programs(const planner::CallShape& call) {
  const auto profile = rt::query_device_profile(session().device());
  const planner::LaunchPlan plan = planner::plan_call(profile, call);
  std::vector<planner::KernelVariant> variants;
  for (const auto* steps : {&plan.steps, &plan.undo})
    for (const planner::Step& step : *steps) variants.push_back(planner::variant_of(step));
  std::sort(variants.begin(), variants.end());
  variants.erase(std::unique(variants.begin(), variants.end()), variants.end());
  return variants;
}

}  // namespace

TEST_CASE("a first call builds the programs of its plan and no other", "[warmup][kernel_set]") {
  ScopedEnv no_disk("IPT_CACHE_DISABLE", "1");
  ScopedEnv used("IPT_KERNEL_SET", nullptr);
  struct Case {
    const char* plan_class;
    std::size_t rows, cols, elem_size;
  };
  // One shape per plan class on an exact buffer: a square, a skinny matrix on chip, a
  // 2.x sequence, a prime shape (padded, its tail kept in scratch), 1- and 8-byte elements.
  for (const Case& c : std::vector<Case>{{"square", 96, 96, 4},
                                         {"on chip", 1000, 5, 4},
                                         {"two passes", 720, 540, 4},
                                         {"padded", 1009, 997, 4},
                                         {"1-byte words", 600, 150, 1},
                                         {"doubles", 311, 1301, 8}}) {
    INFO(c.plan_class << ": " << c.rows << " x " << c.cols << ", " << c.elem_size
                      << "-byte elements");
    rt::clear_caches();
    planner::CallShape call;
    call.rows = c.rows;
    call.cols = c.cols;
    call.elem_size = c.elem_size;
    const auto programs = plan_programs(call);
    const auto before = source_builds();
    GuardedMatrix m(c.rows, c.cols, c.elem_size, 0, 16, c.rows + c.cols);
    REQUIRE(ipt_transpose(session().queue(), m.buffer(), 0, c.rows, c.cols, 0, nullptr, nullptr,
                          c.elem_size) == IPT_SUCCESS);
    CHECK(m.check_transposed() == "");
    CHECK(m.check_guards() == "");
    // Every program the plan launches was built (the call ran), and no more than those:
    // at most 5 of the element size's few dozen.
    const auto built = source_builds() - before;
    const auto set =
        planner::kernel_variants(rt::query_device_profile(session().device()), c.elem_size, false);
    INFO(built << " built, " << programs.size() << " in the plan, " << set.size()
               << " in the element size's set");
    CHECK(built == programs.size());
    CHECK(rt::program_cache_size() == programs.size());
    CHECK(programs.size() <= 5);
    CHECK(set.size() > programs.size());
  }
  rt::clear_caches();
}

TEST_CASE("IPT_KERNEL_SET=all: a first call builds its element size's whole set",
          "[warmup][kernel_set]") {
  ScopedEnv no_disk("IPT_CACHE_DISABLE", "1");
  ScopedEnv all("IPT_KERNEL_SET", "all");
  rt::clear_caches();
  const auto before = source_builds();
  GuardedMatrix square(40, 40, 16, 0, 16, 76);
  REQUIRE(ipt_transpose(session().queue(), square.buffer(), 0, 40, 40, 0, nullptr, nullptr, 16) ==
          IPT_SUCCESS);
  CHECK(square.check_transposed() == "");
  const auto profile = rt::query_device_profile(session().device());
  CHECK(source_builds() - before == planner::kernel_variants(profile, 16, false).size());
  const auto first = source_builds();
  GuardedMatrix m(1009, 997, 16, 0, 16, 77);
  REQUIRE(ipt_transpose(session().queue(), m.buffer(), 0, 1009, 997, 0, nullptr, nullptr, 16) ==
          IPT_SUCCESS);
  CHECK(m.check_transposed() == "");
  CHECK(source_builds() == first);
  rt::clear_caches();
}

TEST_CASE("a call while ipt_warmup runs on another thread", "[warmup][kernel_set]") {
  // ipt_warmup has no non-blocking form of its own: a caller overlaps it with its own
  // start-up by calling it on a thread, and calls meanwhile wait only for the programs
  // their plans launch. Each program is built once between them.
  ScopedEnv no_disk("IPT_CACHE_DISABLE", "1");
  rt::clear_caches();
  const auto before = source_builds();
  ipt_status warmed = IPT_INTERNAL_ERROR;
  std::thread warming(
      [&warmed] { warmed = ipt_warmup(session().context(), session().device(), 16); });
  GuardedMatrix m(311, 1301, 16, 0, 16, 78);
  const ipt_status called =
      ipt_transpose(session().queue(), m.buffer(), 0, 311, 1301, 0, nullptr, nullptr, 16);
  warming.join();
  REQUIRE(called == IPT_SUCCESS);
  CHECK(m.check_transposed() == "");
  CHECK(m.check_guards() == "");
  CHECK(warmed == IPT_SUCCESS);
  const auto profile = rt::query_device_profile(session().device());
  CHECK(source_builds() - before == planner::kernel_variants(profile, 16).size());
  rt::clear_caches();
}
