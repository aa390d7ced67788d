// SPDX-License-Identifier: Apache-2.0
// Fuzzes the planner alone (no OpenCL): shapes of every magnitude, degenerate ones
// included, element sizes, offsets, buffer capacities, device profiles around the ones
// the tests plan for, and forced choices. Every call either gets one of plan_call's
// documented refusals or a plan that the host model (plan_model.hpp) finds right, with
// representable launches (plan_checks.hpp), the padding and memory the project
// promises, and an undo that restores the buffer.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "fuzz_report.hpp"
#include "helpers/plan_checks.hpp"
#include "helpers/plan_model.hpp"
#include "helpers/test_profiles.hpp"

using namespace ipt::planner;
using ipt::fuzz::fail;
using u64 = std::uint64_t;

namespace {

// Sides: small ones (checked element by element), powers of two and their neighbours
// (the 32-bit index boundaries), any magnitude, and any 64-bit value, 0 included (the
// planner refuses an empty matrix).
u64 side(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:
      return in.ConsumeIntegralInRange<u64>(1, 64);
    case 1: {
      const u64 power = u64{1} << in.ConsumeIntegralInRange(0, 63);
      const u64 delta = in.ConsumeIntegralInRange<u64>(0, 3);
      return in.ConsumeBool() ? power + delta : std::max<u64>(1, power - delta);
    }
    case 2: {
      const int bits = in.ConsumeIntegralInRange(1, 40);
      return in.ConsumeIntegralInRange<u64>(u64{1} << (bits - 1), (u64{1} << bits) - 1);
    }
    default:
      return in.ConsumeIntegral<u64>();
  }
}

u64 offset(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:
      return 0;
    case 1:
      return in.ConsumeIntegralInRange<u64>(1, 64);
    case 2:
      return in.ConsumeIntegralInRange<u64>(0, u64{1} << 33);
    default:
      return in.ConsumeIntegral<u64>();
  }
}

// Elements the buffer holds from the matrix's start: exactly the matrix (0), a little
// more, no limit, or anything (below the matrix too: a caller's max_bytes caps it).
u64 capacity(FuzzedDataProvider& in, u64 elements) {
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:
      return 0;
    case 1: {
      const u64 room = in.ConsumeIntegralInRange<u64>(1, elements / 100 + 64);
      return elements > ~u64{0} - room ? ~u64{0} : elements + room;
    }
    case 2:
      return ~u64{0};
    default:
      return in.ConsumeIntegral<u64>();
  }
}

// A profile the tests plan for, unchanged or with fields moved within what devices
// report (or IPT_OVERRIDES may set). `named` says whether it is unchanged.
DeviceProfile profile(FuzzedDataProvider& in, bool& named) {
  const auto gpus = ipt::test::gpu_profiles();
  const std::size_t pick = in.ConsumeIntegralInRange<std::size_t>(0, gpus.size());
  DeviceProfile device = pick < gpus.size() ? gpus[pick].device : DeviceProfile{};
  named = pick < gpus.size();
  const auto mutate = in.ConsumeIntegral<std::uint8_t>();
  if (mutate == 0) return device;
  named = false;
  if (mutate & 1) device.local_mem_bytes = in.ConsumeIntegralInRange<std::size_t>(1024, 1 << 22);
  if (mutate & 2) device.max_work_group_size = in.ConsumeIntegralInRange<std::size_t>(1, 4096);
  if (mutate & 4) device.simd_width = std::size_t{1} << in.ConsumeIntegralInRange(0, 7);
  if (mutate & 8) device.compute_units = in.ConsumeIntegralInRange<std::size_t>(1, 1024);
  if (mutate & 16)
    device.max_alloc_bytes =
        in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange<u64>(u64{1} << 16, u64{1} << 37);
  if (mutate & 32)
    device.line_bytes = in.ConsumeBool() ? 0 : std::size_t{16} << in.ConsumeIntegralInRange(0, 4);
  if (mutate & 64) device.resident_groups = !device.resident_groups;
  if (mutate & 128) device.has_fp64 = !device.has_fp64;
  if (in.ConsumeBool()) device.word_bytes = std::size_t{1} << in.ConsumeIntegralInRange(0, 4);
  return device;
}

// What a caller may force (IPT_OVERRIDES, ipt_plan_options); `forced` says whether
// anything is.
PlanOverrides overrides(FuzzedDataProvider& in, bool& forced) {
  PlanOverrides o;
  forced = in.ConsumeBool();
  if (!forced) return o;
  PlanRequest& r = o.request;
  if (in.ConsumeBool()) {
    r.auto_sequence = false;
    r.sequence = static_cast<Sequence>(in.ConsumeIntegralInRange(0, 7));
  }
  const auto factor = [&in] {
    return in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange<u64>(1, 4096);
  };
  r.m = factor();
  r.n = factor();
  if (in.ConsumeBool()) r.padding = Padding::kOff;
  const auto padded = [&in] {
    return in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange<u64>(1, 5000);
  };
  r.padded_rows = padded();
  r.padded_cols = padded();
  r.onchip = static_cast<OnChip>(in.ConsumeIntegralInRange(0, 2));
  r.onchip_tiles = in.ConsumeBool() ? TileLayout::kPadded : TileLayout::kSwizzled;
  o.square_tile = in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange<std::size_t>(1, 128);
  o.square_wg_rows = in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange<std::size_t>(1, 64);
  o.square_tiles = in.ConsumeBool() ? TileLayout::kPadded : TileLayout::kSwizzled;
  o.onchip_abort = in.ConsumeBool();
  if (const int vectors = in.ConsumeIntegralInRange(0, 2); vectors != 0)
    o.square_vectors = vectors == 2;
  if (const int bands = in.ConsumeIntegralInRange(0, 2); bands != 0) o.square_bands = bands == 2;
  return o;
}

std::string call_text(const CallShape& call, const DeviceProfile& device) {
  return std::to_string(call.rows) + " x " + std::to_string(call.cols) + ", elem_size " +
         std::to_string(call.elem_size) + ", offset " + std::to_string(call.offset) +
         ", capacity " + std::to_string(call.capacity) + "; device: local_mem " +
         std::to_string(device.local_mem_bytes) + ", max_wg " +
         std::to_string(device.max_work_group_size) + ", simd " +
         std::to_string(device.simd_width) + ", compute_units " +
         std::to_string(device.compute_units) + ", max_alloc " +
         std::to_string(device.max_alloc_bytes) + ", line " + std::to_string(device.line_bytes) +
         ", resident_groups " + std::to_string(device.resident_groups) + ", word " +
         std::to_string(device.word_bytes);
}

std::string overrides_text(const PlanOverrides& o) {
  const PlanRequest& r = o.request;
  return std::string("sequence ") + (r.auto_sequence ? "auto" : sequence_name(r.sequence)) +
         ", m " + std::to_string(r.m) + ", n " + std::to_string(r.n) + ", padding " +
         (r.padding == Padding::kOff ? "off" : "auto") + ", padded " +
         std::to_string(r.padded_rows) + " x " + std::to_string(r.padded_cols) + ", onchip " +
         std::to_string(static_cast<int>(r.onchip)) + ", square " + std::to_string(o.square_tile) +
         " x " + std::to_string(o.square_wg_rows);
}

// Matrices up to this many elements are checked element by element; larger ones on
// samples (the model follows one element through every step: O(steps) each).
constexpr u64 kFullCheck = u64{1} << 14;
constexpr u64 kSamples = 64;

void check(const LaunchPlan& plan, const CallShape& call, bool named, bool forced,
           const PlanRequest& request, std::size_t undone, const std::string& text) {
  const auto problem = [&](const std::string& what) {
    fail(what + "\n  call: " + text + "\n  plan: " + describe(plan));
  };
  if (std::string bad = ipt::test::launch_problem(plan); !bad.empty()) problem(bad);
  // The scratch bound of the tests holds for their profiles. Forced choices may cost
  // more (a padded shape keeps all its extra elements in scratch, a forced sequence may
  // follow cycles of single elements), and so may devices of little local memory (a
  // flag word per short super-element): there, only a wrapped product is caught.
  const u64 elements = call.rows * call.cols;
  if (std::string bad = ipt::test::scratch_problem(plan, call); named && !forced && !bad.empty())
    problem(bad);
  const double padded_bytes =
      static_cast<double>(plan.transpose.padded_elements()) * static_cast<double>(call.elem_size);
  if (static_cast<double>(plan.scratch_bytes) > 4 * padded_bytes + (1 << 20))
    problem("scratch of " + std::to_string(plan.scratch_bytes) + " bytes");
  // A capacity below the matrix (a caller's max_bytes) lends nothing past it; the buffer
  // itself holds the matrix (the API checks that).
  const u64 room = call.capacity != 0 && call.capacity < elements ? 0 : call.capacity;
  const u64 seed = call.rows ^ (call.cols << 1) ^ call.offset;
  if (std::string bad = check_plan(plan, call.rows, call.cols, room, kFullCheck, kSamples, seed);
      !bad.empty())
    problem("check_plan: " + bad);
  if (std::string bad =
          check_rollback(plan, undone, call.rows, call.cols, room, kFullCheck, kSamples, seed);
      !bad.empty())
    problem("check_rollback: " + bad);
  const TransposePlan& t = plan.transpose;
  const bool forced_shape = forced && (request.padded_rows != 0 || request.padded_cols != 0);
  // Automatic padding adds at most 0.5% of the matrix (padding_plan.hpp).
  if (!forced_shape &&
      static_cast<double>(t.padded_elements() - elements) > 0.005 * static_cast<double>(elements))
    problem("padded to " + std::to_string(t.padded_rows) + " x " + std::to_string(t.padded_cols));
  // The memory bound of test_plan_memory.cpp, for the profiles it holds for.
  if (named && !forced && call.capacity == 0 && elements >= ipt::test::kLargeElements &&
      ipt::test::extra_fraction(plan, call) > ipt::test::kLargeExtraFraction)
    problem("extra memory " + std::to_string(ipt::test::extra_bytes(plan)) + " bytes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  bool named = false, forced = false;
  const DeviceProfile device = profile(in, named);
  CallShape call;
  call.rows = side(in);
  call.cols = side(in);
  constexpr std::size_t kSizes[] = {1, 2, 4, 8, 16};
  call.elem_size = kSizes[in.ConsumeIntegralInRange(0, 4)];
  call.offset = offset(in);
  call.capacity = capacity(in, call.rows * call.cols);
  const PlanOverrides forced_choices = overrides(in, forced);
  // A device without an allocation limit (the tests' profiles; every real device has
  // one) plans sides up to 2^36 here, as in test_plan_limits.cpp: the factor search and
  // the padding candidates cost about a second for sides past 2^37 (sanitized). And
  // matrices up to 2^62 bytes: padded by its 0.5%, one of nearly 2^64 bytes would have
  // more bytes than 64 bits count, in a buffer no address space holds.
  const bool empty = call.rows == 0 || call.cols == 0;
  u64 elements = 0, bytes = 0;
  const bool bytes_fit = !__builtin_mul_overflow(call.rows, call.cols, &elements) &&
                         !__builtin_mul_overflow(elements, u64{call.elem_size}, &bytes);
  if (!empty && device.max_alloc_bytes == 0 &&
      (std::max(call.rows, call.cols) > (u64{1} << 36) || (bytes_fit && bytes > (u64{1} << 62))))
    return 0;
  const std::string text =
      call_text(call, device) + (forced ? "; forced: " + overrides_text(forced_choices) : "");
  ipt::fuzz::trace(text);

  ipt::test::PlanOutcome outcome;
  try {
    outcome = ipt::test::try_plan_call(device, call, forced_choices);
  } catch (const std::exception& e) {
    fail(std::string("plan_call threw ") + e.what() + "\n  call: " + text);
  }
  if (empty && outcome.refusal != ipt::test::Refusal::kInvalid)
    fail("an empty matrix not refused as such\n  call: " + text);
  if (!outcome.plan) {
    // Unforced, only a launch beyond the device (and an empty matrix) is refused: the
    // other refusals are about forced choices.
    if (!forced && !empty && outcome.refusal != ipt::test::Refusal::kResources)
      fail(std::string("an unforced call refused with ") +
           ipt::test::refusal_name(outcome.refusal) + ": " + outcome.message + "\n  call: " + text);
    return 0;
  }
  const std::size_t undone = in.ConsumeIntegralInRange<std::size_t>(0, outcome.plan->undo.size());
  check(*outcome.plan, call, named, forced, forced_choices.request, undone, text);
  return 0;
}
