// SPDX-License-Identifier: Apache-2.0
// The host model of launch plans (plan_model.hpp): its moves on hand-made cases,
// then every plan the planner makes checked by it, on 10^5 random shapes as an
// NVIDIA-like and an AMD-like device would get them, on each sequence of the papers
// forced, on padded and on-chip plans, and the model failing plans that were broken on
// purpose.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "helpers/plan_model.hpp"
#include "helpers/random_shapes.hpp"
#include "helpers/test_profiles.hpp"
#include "helpers/test_seed.hpp"
#include "planner/launch_plan.hpp"

using namespace ipt::planner;
using ipt::test::any_magnitude;
using ipt::test::in_range;
using ipt::test::random_call;

namespace {

using u64 = std::uint64_t;

constexpr u64 kUnlimited = ~u64{0};  // a buffer with room for any padding
constexpr std::size_t kElemSizes[] = {1, 2, 4, 8, 16};

Position matrix(u64 index) { return {Buffer::kMatrix, index}; }
Position scratch(u64 index) { return {Buffer::kScratch, index}; }

std::string call_text(const char* profile, const CallShape& call) {
  return std::string(profile) + ", " + std::to_string(call.rows) + " x " +
         std::to_string(call.cols) + ", elem_size " + std::to_string(call.elem_size) + ", offset " +
         std::to_string(call.offset) + ", capacity " +
         (call.capacity == kUnlimited ? std::string("unlimited") : std::to_string(call.capacity));
}

// Empty if the model finds the plan right, else the problem with the call and the plan.
std::string plan_problem(const char* profile, const LaunchPlan& plan, const CallShape& call,
                         u64 max_full, u64 samples, u64 seed = 1) {
  const std::string problem =
      check_plan(plan, call.rows, call.cols, call.capacity, max_full, samples, seed);
  if (problem.empty()) return "";
  return problem + "\n  in " + call_text(profile, call) + "\n  " + describe(plan);
}

// Checks every element: for the hand-picked plans below.
std::string full_problem(const char* profile, const LaunchPlan& plan, const CallShape& call) {
  return plan_problem(profile, plan, call, kUnlimited, 0);
}

// plan_call, or nothing where it refuses with ResourceError: kernels count items in 32
// bits (SoA-ASTA refuses more than 2^36), which only matrices far beyond 2^32 elements
// reach; the runtime reports IPT_OUT_OF_RESOURCES for them.
std::optional<LaunchPlan> plan_or_refusal(const DeviceProfile& device, const CallShape& call,
                                          const PlanOverrides& overrides = {}) {
  try {
    return plan_call(device, call, overrides);
  } catch (const ResourceError& e) {
    INFO(e.what());
    CHECK(call.rows * call.cols > (u64{1} << 32));
    return std::nullopt;
  }
}

PlanOverrides forced(Sequence sequence) {
  PlanOverrides overrides;
  overrides.request.auto_sequence = false;
  overrides.request.sequence = sequence;
  return overrides;
}

}  // namespace

TEST_CASE("the model moves values as each kind of step does", "[planner][model]") {
  SECTION("0100! on (I, A, B, C) swaps A and B within each instance") {
    Move move;
    move.kind = Move::Kind::kPermute;
    move.I = 2, move.A = 3, move.B = 4, move.C = 5;
    // (i, a, b, c) = (1, 2, 3, 4) -> (i, b, a, c) = (1, 3, 2, 4).
    CHECK(forward(move, matrix(((1 * 3 + 2) * 4 + 3) * 5 + 4)) ==
          matrix(((1 * 4 + 3) * 3 + 2) * 5 + 4));
    CHECK(forward(move, matrix(0)) == matrix(0));
    CHECK(forward(move, matrix(120)) == matrix(120));  // past I*A*B*C
    CHECK(forward(move, scratch(7)) == scratch(7));
  }
  SECTION("a padding restride spreads rows and overwrites what lies under them") {
    Move move;
    move.kind = Move::Kind::kRestride;
    move.rows = 3, move.len = 2, move.s_in = 2, move.s_out = 4;
    CHECK(forward(move, matrix(3)) == matrix(5));     // row 1, column 1
    CHECK(forward(move, matrix(5)) == matrix(9));     // row 2, column 1
    CHECK(forward(move, matrix(6)) == std::nullopt);  // under the new rows
    CHECK(forward(move, matrix(9)) == std::nullopt);
    // Each layout ends with its last row's last element: the gap after it is not touched.
    CHECK(forward(move, matrix(10)) == matrix(10));
    CHECK(forward(move, matrix(12)) == matrix(12));  // past both layouts
  }
  SECTION("an unpadding restride closes rows up and drops their gaps") {
    Move move;
    move.kind = Move::Kind::kRestride;
    move.rows = 2, move.len = 2, move.s_in = 4, move.s_out = 2;
    CHECK(forward(move, matrix(5)) == matrix(3));
    CHECK(forward(move, matrix(2)) == std::nullopt);  // a gap
    CHECK(forward(move, matrix(4)) == matrix(2));
    CHECK(forward(move, matrix(6)) == matrix(6));  // the last row's gap: past both layouts
    CHECK(forward(move, matrix(8)) == matrix(8));
  }
  SECTION("a copy moves its source and overwrites its destination") {
    Move move;
    move.kind = Move::Kind::kCopy;
    move.from = Buffer::kMatrix, move.from_at = 10;
    move.to = Buffer::kScratch, move.to_at = 0;
    move.count = 4;
    CHECK(forward(move, matrix(11)) == scratch(1));
    CHECK(forward(move, matrix(14)) == matrix(14));
    CHECK(forward(move, scratch(2)) == std::nullopt);
    CHECK(forward(move, scratch(4)) == scratch(4));
  }
}

TEST_CASE("the model loses values that a step's scratch overwrites", "[planner][model]") {
  // A copy out into scratch, then a step whose flags sit on the kept elements.
  LaunchPlan plan;
  plan.elem_size = 4;
  plan.scratch_bytes = 256;
  Step keep;
  keep.move.kind = Move::Kind::kCopy;
  keep.move.from = Buffer::kMatrix, keep.move.from_at = 100;
  keep.move.to = Buffer::kScratch, keep.move.to_at = 0;
  keep.move.count = 8;
  Step clobber;
  clobber.flags = {Buffer::kScratch, 16, 16};  // elements 4 to 7 of the scratch
  plan.steps = {keep, clobber};
  const auto ends = track(plan, {matrix(100), matrix(103), matrix(104), matrix(107), matrix(99)});
  REQUIRE(ends.size() == 5);
  CHECK(ends[0] == scratch(0));
  CHECK(ends[1] == scratch(3));
  CHECK(ends[2] == std::nullopt);
  CHECK(ends[3] == std::nullopt);
  CHECK(ends[4] == matrix(99));
}

TEST_CASE("plans of 10^5 random shapes transpose", "[planner][model][large]") {
  // Each call is checked with its buffer exactly the matrix and with room for any padding;
  // on samples of each matrix (all of the small ones): the plans below check every
  // element of a few hundred shapes.
  constexpr u64 kShapes = 100000, kMaxFull = 4096, kSamples = 256;
  const auto devices = ipt::test::gpu_profiles();
  const u64 per_combination = kShapes / (devices.size() * std::size(kElemSizes));
  IPT_TEST_SEED(seed, 20240611);
  std::mt19937_64 random(seed);
  u64 checked = 0, refused = 0;
  for (const ipt::test::NamedProfile& profile : devices) {
    for (std::size_t elem_size : kElemSizes) {
      for (u64 k = 0; k < per_combination; ++k) {
        CallShape call = random_call(random, elem_size);
        for (u64 capacity : {call.rows * call.cols, kUnlimited}) {
          call.capacity = capacity;
          const std::optional<LaunchPlan> plan = plan_or_refusal(profile.device, call);
          if (!plan) {
            ++refused;
            continue;
          }
          REQUIRE(plan_problem(profile.name, *plan, call, kMaxFull, kSamples, k) == "");
          ++checked;
        }
      }
    }
  }
  CHECK(checked + refused == 2 * per_combination * devices.size() * std::size(kElemSizes));
  CHECK(refused * 100 < checked);
}

TEST_CASE("plans of a few hundred random shapes transpose, every element", "[planner][model]") {
  IPT_TEST_SEED(seed, 7);
  std::mt19937_64 random(seed);
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles()) {
    for (int k = 0; k < 150; ++k) {
      CallShape call;
      call.elem_size = kElemSizes[random() % std::size(kElemSizes)];
      call.rows = any_magnitude(random, 20000);
      call.cols = in_range(random, 1, 1000000 / call.rows + 1);
      if (random() % 2 == 0) std::swap(call.rows, call.cols);
      call.offset = random() % 3;
      call.capacity = random() % 2 == 0 ? 0 : kUnlimited;
      const LaunchPlan plan = plan_call(profile.device, call);
      REQUIRE(full_problem(profile.name, plan, call) == "");
    }
  }
}

TEST_CASE("square plans transpose", "[planner][model]") {
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles())
    for (std::size_t elem_size : kElemSizes)
      for (u64 n : {1, 2, 3, 31, 64, 100, 257, 1000, 1023}) {
        const CallShape call{n, n, elem_size, 0, 0};
        const LaunchPlan plan = plan_call(profile.device, call);
        if (n > 1) CHECK(plan.transpose.sequence == Sequence::kSquare);
        REQUIRE(full_problem(profile.name, plan, call) == "");
      }
}

TEST_CASE("each sequence of the papers, forced, transposes", "[planner][model]") {
  const Sequence sequences[] = {Sequence::kOneStage, Sequence::k21, Sequence::k22, Sequence::k31,
                                Sequence::k32,       Sequence::k41, Sequence::k42};
  struct Case {
    u64 rows, cols;
    std::size_t elem_size;
  };
  // The papers' 7200 x 1800 once (13 M elements), smaller shapes with factors at every
  // element size.
  std::vector<Case> cases{{7200, 1800, 4}};
  for (std::size_t elem_size : kElemSizes)
    for (auto [rows, cols] : {std::pair<u64, u64>{1000, 600}, {96, 80}, {60, 84}, {36, 2000}})
      cases.push_back({rows, cols, elem_size});
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles()) {
    for (Sequence sequence : sequences) {
      INFO("sequence " << sequence_name(sequence));
      int planned = 0;
      for (const Case& c : cases) {
        if (c.rows == 7200 && std::string(profile.name) != "NVIDIA-like") continue;
        const CallShape call{c.rows, c.cols, c.elem_size, 3, 0};
        LaunchPlan plan;
        try {
          plan = plan_call(profile.device, call, forced(sequence));
        } catch (const std::invalid_argument&) {
          continue;  // no factors whose tiles fit this element size
        }
        CHECK(plan.transpose.sequence == sequence);
        REQUIRE(full_problem(profile.name, plan, call) == "");
        ++planned;
      }
      CHECK(planned >= 10);
    }
  }
}

TEST_CASE("padded plans transpose and give the borrowed elements back", "[planner][model]") {
  // Prime sides have no factors: a buffer with room gets a padded plan. Without the
  // on-chip kernel (it would take the smaller ones whole) every shape here pads.
  PlanOverrides no_onchip;
  no_onchip.request.onchip = OnChip::kOff;
  // (Below 10^6 elements or with little padding: borrowing that would pass the bound on
  // extra memory is not taken, and 1009 x 997 keeps its padding in scratch.)
  const std::pair<u64, u64> shapes[] = {{1009, 991},  {991, 1009},  {2003, 1999},
                                        {10007, 211}, {211, 10007}, {4001, 4003}};
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles()) {
    for (std::size_t elem_size : {std::size_t{1}, std::size_t{4}, std::size_t{16}}) {
      for (auto [rows, cols] : shapes) {
        if (rows == 4001 && (elem_size != 4 || std::string(profile.name) != "NVIDIA-like"))
          continue;  // 16 M elements: once is enough
        const CallShape call{rows, cols, elem_size, 5, kUnlimited};
        const LaunchPlan plan = plan_call(profile.device, call, no_onchip);
        CHECK(plan.transpose.padded());
        CHECK(plan.borrowed_bytes > 0);
        REQUIRE(full_problem(profile.name, plan, call) == "");
      }
    }
  }
}

TEST_CASE("padded plans of a single row or column launch every step", "[planner][model]") {
  // Restriding one row (or closing up rows of one element) moves nothing: such a step
  // must not be in the plan (LaunchPlan::steps holds no noop; the runtime enqueues each).
  PlanOverrides padded;
  padded.request.padded_rows = 328;
  padded.request.padded_cols = 2;
  const CallShape column{327, 1, 1, 0, kUnlimited};
  CHECK(full_problem("NVIDIA-like", plan_call(ipt::test::nvidia_like(), column, padded), column) ==
        "");
  padded.request.padded_rows = 2;
  padded.request.padded_cols = 328;
  const CallShape row{1, 327, 1, 0, kUnlimited};
  CHECK(full_problem("NVIDIA-like", plan_call(ipt::test::nvidia_like(), row, padded), row) == "");
  // The planner's own choices, as the AMD-like device gets them.
  for (const CallShape& call :
       {CallShape{1, 578152, 2, 0, kUnlimited}, CallShape{355492, 1, 1, 0, kUnlimited}})
    CHECK(full_problem("AMD-like", plan_call(ipt::test::amd_like(), call), call) == "");
}

TEST_CASE("a split matrix's 010! stage moves its instances before the split unsplit",
          "[planner][model]") {
  // A padded plan in a buffer of just the matrix splits it (its padding in scratch); the
  // instances of its 010! stage that lie wholly before the split run in a kernel without
  // the split (1- and 2-byte elements then in words or blocks), the others in a second.
  const DeviceProfile device = ipt::test::nvidia_like();
  const auto stage_kernels = [](const LaunchPlan& plan) {
    std::vector<const Step*> kernels;
    for (const Step& step : plan.steps)
      if (step.family == Family::kOnChip || step.family == Family::kBs) kernels.push_back(&step);
    return kernels;
  };
  for (const auto& [rows, cols, elem_size] : std::vector<std::tuple<u64, u64, std::size_t>>{
           {19101, 15761, 1}, {19101, 15761, 2}, {12148, 17029, 4}, {9781, 5102, 1}}) {
    const CallShape call{rows, cols, elem_size, 0, 0};
    const LaunchPlan plan = plan_call(device, call);
    INFO(call_text("NVIDIA-like", call) << "\n  " << describe(plan));
    REQUIRE(plan.split == rows * cols);
    const std::vector<const Step*> kernels = stage_kernels(plan);
    REQUIRE(kernels.size() == 2);
    const Step &head = *kernels[0], &rest = *kernels[1];
    CHECK(head.options.find("IPT_SPLIT") == std::string::npos);
    CHECK(head.tail.empty());
    CHECK(rest.options.find("IPT_SPLIT") != std::string::npos);
    if (elem_size == 1)
      CHECK((head.options.find("IPT_BLOCK") != std::string::npos ||
             head.options.find("IPT_WORDS") != std::string::npos));
    // The second kernel starts where the first one's instances end, before the split.
    const u64 head_elements = head.move.I * head.move.A * head.move.B * head.move.C;
    CHECK(head.move.base == 0);
    CHECK(rest.move.base == head_elements);
    // The stages' split: the plan's, or a word before it (below).
    const u64 split = rest.move.split != 0 ? rest.move.base + rest.move.split : plan.split;
    CHECK(split <= plan.split);
    CHECK(rest.move.base < split);
    CHECK(rest.touches == split);
    // Both kernels take the matrix's start as their second argument (the model above
    // follows the moves, not the arguments).
    CHECK(head.args[1].value == 0);
    CHECK(rest.args[1].value == head_elements);
    CHECK(rest.args.back().value == split - head_elements);  // the split, from there
    CHECK(plan_problem("NVIDIA-like", plan, call, 0, 200000) == "");
  }
  // 8-byte elements lose little to the split: one kernel, as do stages with fewer bytes
  // before the split than pay for a second launch (BS stages here: small matrices would
  // go on chip whole).
  PlanOverrides no_onchip;
  no_onchip.request.onchip = OnChip::kOff;
  for (const auto& [call, overrides] :
       {std::pair{CallShape{19101, 15761, 8, 0, 0}, PlanOverrides{}},
        std::pair{CallShape{1009, 991, 1, 0, 0}, no_onchip},
        std::pair{CallShape{1013, 2003, 4, 0, 0}, no_onchip}}) {
    const LaunchPlan plan = plan_call(device, call, overrides);
    INFO(call_text("NVIDIA-like", call) << "\n  " << describe(plan));
    REQUIRE(plan.split != 0);
    CHECK(stage_kernels(plan).size() == 1);
    CHECK(plan_problem("NVIDIA-like", plan, call, 0, 20000) == "");
  }
}

TEST_CASE("a split matrix's stages split on a word where a 100! stage moves words so",
          "[planner][model]") {
  // The caller's last elements past the word (1 to 3 here) go to scratch before the
  // stages and come back after them; the pad and the unpad keep the split at M * N.
  const DeviceProfile device = ipt::test::nvidia_like();
  for (const auto& [rows, cols, elem_size, kept] :
       std::vector<std::tuple<u64, u64, std::size_t, u64>>{
           {19101, 15761, 1, 1}, {19101, 15761, 2, 1}, {17926, 12601, 1, 2}}) {
    const CallShape call{rows, cols, elem_size, 0, 0};
    const LaunchPlan plan = plan_call(device, call);
    INFO(call_text("NVIDIA-like", call) << "\n  " << describe(plan));
    REQUIRE(plan.split == rows * cols);
    const u64 split = plan.split - kept;
    int copies = 0, soa_in_words = 0;
    for (const Step& step : plan.steps) {
      if (step.family == Family::kCopy) {
        ++copies;
        CHECK(step.move.count == kept);
        CHECK((step.move.from == Buffer::kMatrix ? step.move.from_at : step.move.to_at) == split);
      }
      if (step.tail.empty()) continue;
      const u64 own = step.move.base + step.move.split;
      if (step.family == Family::kRestride) {
        CHECK(own == plan.split);
      } else {
        CHECK(own == split);
        // The tail of the stages' split holds the kept elements, then the plan's tail.
        CHECK(step.move.tail_at * elem_size + kept * elem_size == plan.split_tail.offset);
      }
      if (step.family == Family::kSoa && step.what.find("moved as") != std::string::npos)
        ++soa_in_words;
    }
    CHECK(copies == 2);
    CHECK(soa_in_words == 1);
    CHECK(plan_problem("NVIDIA-like", plan, call, 0, 200000) == "");
    // The elements the stages leave at the kept places and around them (the stages end
    // with the padded transpose, padded_cols rows of padded_rows), which sampling seldom
    // meets: each ends at its transposed place.
    const PlanModel model(plan);
    const u64 padded_rows = plan.transpose.padded_rows;
    for (u64 at = split - 3; at < plan.split + 3; ++at) {
      const u64 r = at % padded_rows, c = at / padded_rows;
      if (r >= rows || c >= cols) continue;
      const std::optional<Position> end = model.final_position({Buffer::kMatrix, r * cols + c});
      INFO("the element (" << r << ", " << c << ") at " << at << " after the stages");
      CHECK((end && *end == Position{Buffer::kMatrix, c * rows + r}));
    }
    // A call that fails after any step is undone, the kept elements back in the buffer.
    REQUIRE(plan.undo.size() + 1 == plan.steps.size());
    for (std::size_t done = 1; done < plan.steps.size(); ++done)
      CHECK(check_rollback(plan, done, rows, cols, 0, 0, 20000) == "");
  }
  // A batch of such matrices, each padded in scratch in turn: each part's moves say which
  // split is theirs. The second matrix starts 2 bytes into a word (its 100! stage moves
  // no words at either split): two parts of three keep elements.
  const CallShape batch{17926, 12601, 1, 0, 0, 3};
  const LaunchPlan parts = plan_call(device, batch);
  INFO(call_text("NVIDIA-like", batch) << "\n  " << describe(parts));
  CHECK(std::count_if(parts.steps.begin(), parts.steps.end(),
                      [](const Step& step) { return step.family == Family::kCopy; }) == 4);
  CHECK(plan_problem("NVIDIA-like", parts, batch, 0, 200000) == "");
  // Where the 100! stage moves no words (super-elements of 4303 bytes), for the on-chip
  // stage's 4 x 4 blocks, whose words a split must not cut.
  {
    const CallShape call{1626, 12909, 1, 0, 0};
    const LaunchPlan plan = plan_call(device, call);
    INFO(call_text("NVIDIA-like", call) << "\n  " << describe(plan));
    REQUIRE(plan.split == call.rows * call.cols);
    CHECK(plan.split % 4 == 2);
    int copies = 0, split_blocks = 0;
    for (const Step& step : plan.steps) {
      if (step.family == Family::kCopy) {
        ++copies;
        CHECK(step.move.count == 2);
      }
      if (step.family == Family::kSoa) CHECK(step.what.find("moved as") == std::string::npos);
      if (step.family == Family::kOnChip && !step.tail.empty()) {
        CHECK(step.move.base + step.move.split == plan.split - 2);
        split_blocks += step.options.find("-DIPT_BLOCK=4 ") != std::string::npos;
      }
    }
    CHECK(copies == 2);
    CHECK(split_blocks == 1);
    CHECK(plan_problem("NVIDIA-like", plan, call, 0, 200000) == "");
  }
  // None where the split is a whole word already, where the matrix is too small for two
  // more launches to pay, or for elements of 4 bytes (a split matrix's words hold one).
  PlanOverrides no_onchip;
  no_onchip.request.onchip = OnChip::kOff;
  for (const CallShape& call : {CallShape{19112, 15761, 1, 0, 0}, CallShape{1009, 991, 1, 0, 0},
                                CallShape{12148, 17029, 4, 0, 0}}) {
    const LaunchPlan plan = plan_call(device, call, no_onchip);
    INFO(call_text("NVIDIA-like", call) << "\n  " << describe(plan));
    REQUIRE(plan.split == call.rows * call.cols);
    for (const Step& step : plan.steps) CHECK(step.family != Family::kCopy);
    CHECK(plan_problem("NVIDIA-like", plan, call, 0, 20000) == "");
  }
}

TEST_CASE("the padded plan of 10007 x 9973 transposes, every element", "[planner][model]") {
  const CallShape call{10007, 9973, 4, 0, kUnlimited};
  const LaunchPlan plan = plan_call(ipt::test::nvidia_like(), call);
  CHECK(plan.transpose.padded());
  CHECK(full_problem("NVIDIA-like", plan, call) == "");
}

TEST_CASE("a capacity below the matrix plans as a buffer of exactly the matrix",
          "[planner][model]") {
  // A caller's max_bytes smaller than the matrix gives such a capacity; planning it once
  // threw std::logic_error (a split matrix with an empty tail), IPT_INTERNAL_ERROR for
  // the caller. Found by tests/fuzz/fuzz_planner.cpp.
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles())
    for (const auto& [rows, cols, elem_size] :
         {std::tuple<u64, u64, std::size_t>{174, 40, 2}, {1009, 1013, 4}, {3, 10007, 8}}) {
      const CallShape exact{rows, cols, elem_size, 1, 0};
      const LaunchPlan expected = plan_call(profile.device, exact);
      for (u64 capacity : {u64{1}, u64{46}, rows * cols - 1}) {
        CallShape call = exact;
        call.capacity = capacity;
        INFO(call_text(profile.name, call));
        const LaunchPlan plan = plan_call(profile.device, call);
        CHECK(describe(plan) == describe(expected));
        CHECK(plan.borrowed_bytes == 0);
        CHECK(plan_problem(profile.name, plan, exact, 1 << 20, 4096) == "");
      }
    }
}

TEST_CASE("on-chip plans transpose", "[planner][model]") {
  PlanOverrides onchip;
  onchip.request.onchip = OnChip::kForce;
  const std::pair<u64, u64> shapes[] = {{300, 500}, {500, 300}, {1, 1000}, {37, 41}, {1000, 3}};
  for (const ipt::test::NamedProfile& profile : ipt::test::gpu_profiles()) {
    for (std::size_t elem_size : kElemSizes) {
      for (auto [rows, cols] : shapes) {
        const CallShape call{rows, cols, elem_size, 1, 0};
        LaunchPlan plan;
        try {
          plan = plan_call(profile.device, call, onchip);
        } catch (const std::invalid_argument&) {
          CHECK(elem_size > 4);  // the smaller elements fit every shape here
          continue;
        }
        CHECK(plan.uses_onchip());
        REQUIRE(full_problem(profile.name, plan, call) == "");
      }
    }
  }
}

TEST_CASE("the model fails plans that do not transpose", "[planner][model]") {
  const DeviceProfile device = ipt::test::nvidia_like();
  SECTION("steps in the wrong order, or a permutation's factors swapped") {
    const CallShape call{7200, 1800, 4, 0, 0};
    LaunchPlan plan = plan_call(device, call, forced(Sequence::k31));
    REQUIRE(plan.steps.size() == 3);
    REQUIRE(full_problem("NVIDIA-like", plan, call) == "");
    LaunchPlan swapped = plan;
    std::swap(swapped.steps[0], swapped.steps[2]);
    CHECK(check_plan(swapped, call.rows, call.cols, 0, 0, 4096) != "");
    LaunchPlan factors = plan;
    std::swap(factors.steps[2].move.A, factors.steps[2].move.B);
    CHECK(check_plan(factors, call.rows, call.cols, 0, 0, 4096) != "");
    LaunchPlan larger = plan;
    larger.steps[0].move.B *= 2;  // now past what the step touches
    CHECK(check_plan(larger, call.rows, call.cols, 0, 0, 4096) != "");
  }
  SECTION("a padded plan that does not give the borrowed elements back, or clobbers them") {
    const CallShape call{1009, 991, 4, 0, kUnlimited};
    PlanOverrides no_onchip;
    no_onchip.request.onchip = OnChip::kOff;
    const LaunchPlan plan = plan_call(device, call, no_onchip);
    REQUIRE(plan.transpose.padded());
    REQUIRE(plan.steps.front().move.kind == Move::Kind::kCopy);
    REQUIRE(full_problem("NVIDIA-like", plan, call) == "");
    LaunchPlan kept = plan;
    kept.steps.pop_back();
    CHECK(check_plan(kept, call.rows, call.cols, kUnlimited) != "");
    LaunchPlan clobbered = plan;
    clobbered.steps[1].flags.offset = 0;  // on the kept elements
    CHECK(check_plan(clobbered, call.rows, call.cols, kUnlimited) != "");
    // Without room in the buffer the same plan touches past its end.
    CHECK(check_plan(plan, call.rows, call.cols, 0) != "");
  }
  SECTION("flags that nothing zeroed") {
    const CallShape call{7200, 1800, 4, 0, 0};
    LaunchPlan plan = plan_call(device, call, forced(Sequence::k31));
    REQUIRE(!plan.fill.empty());
    plan.fill = {};
    CHECK(check_plan(plan, call.rows, call.cols, 0) != "");
  }
  SECTION("a restride to the wrong stride") {
    const CallShape call{4999, 3001, 16, 0, kUnlimited};
    LaunchPlan plan = plan_call(device, call);
    bool changed = false;
    for (Step& step : plan.steps)
      if (step.move.kind == Move::Kind::kRestride && !changed) {
        step.move.s_out -= 1;
        changed = true;
      }
    REQUIRE(changed);
    CHECK(check_plan(plan, call.rows, call.cols, kUnlimited) != "");
  }
}
