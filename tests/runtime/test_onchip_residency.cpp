// SPDX-License-Identifier: Apache-2.0
// The on-chip kernel counts on every work-group running at once; where they do not, it
// takes its fallback (cycle following, correct but a few percent of its speed) on every
// call. Its probe finds that out once per program (runtime/onchip_residency.hpp), and calls
// are planned again around a crowded program: one group per compute unit, then no on-chip
// kernel; an old crowded verdict is checked again. The crowding is real on the device: the
// probe awaits one group more than it launches (faults::steer_onchip_probes).
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "helpers/fault_injection.hpp"
#include "helpers/steered_probes.hpp"
#include "helpers/test_skip.hpp"
#include "helpers/test_support.hpp"
#include "planner/kernel_variants.hpp"
#include "runtime/checked_plans.hpp"
#include "runtime/device_query.hpp"
#include "runtime/environment.hpp"
#include "runtime/executor.hpp"
#include "runtime/onchip_residency.hpp"
#include "runtime/transpose.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::ScopedEnv;
using ipt::test::session;
using ipt::test::SteeredProbes;
namespace rt = ipt::runtime;

namespace {

// A device whose on-chip plans count on resident groups (NVIDIA's and AMD's GPUs; PoCL
// only by this override), with a GPU's local memory (PoCL's fits tiles that a GPU's
// does not) and few compute units, so that small matrices go on chip, in two groups per
// compute unit.
constexpr const char* kGpuLike = "resident_groups=1,local_mem=49152,compute_units=8";

// Calls keep plans only for the embedded kernel sources (runtime/checked_plans.hpp), and
// the tests that watch the kept plans set sources read from IPT_KERNEL_DIR aside.
class EmbeddedSources {
  ScopedEnv unset_{"IPT_KERNEL_DIR", nullptr};
};

// Crowded verdicts are checked again at `age` while this lives (rt::kCrowdedRecheckAge,
// 10 s, would make a slow run's counts depend on the clock).
class RecheckAge {
 public:
  explicit RecheckAge(std::chrono::milliseconds age) { set(age); }
  ~RecheckAge() { rt::faults::recheck_crowded_at(std::nullopt); }
  void set(std::chrono::milliseconds age) { rt::faults::recheck_crowded_at(age); }
};

// Transposes a fresh random rows x cols float matrix (3 elements in, 40 guard bytes
// after) and checks it in full; `options` forces a plan where given.
std::string transpose(std::size_t rows, std::size_t cols, std::uint64_t seed,
                      const ipt_plan_options* options = nullptr) {
  GuardedMatrix m(rows, cols, 4, 3, 40, seed);
  cl_event done = nullptr;
  const ipt_status status =
      options == nullptr
          ? ipt_transpose_f32(session().queue(), m.buffer(), 3, rows, cols, 0, nullptr, &done)
          : ipt_transpose_with_options(session().queue(), m.buffer(), 3, rows, cols, 4, options, 0,
                                       nullptr, &done);
  if (status != IPT_SUCCESS)
    return std::string("status ") + ipt_status_string(status) + ": " + ipt_last_error_message();
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  return m.check_transposed();
}

// The probes launched since this was made, and whether their verdicts have come back
// (counted from here: a probe of an earlier test may never bring one).
class ProbesSince {
 public:
  std::size_t launched() const { return rt::onchip_probe_count() - probes_; }
  // Waits (at most 20 s) until every probe launched since has its verdict.
  bool all_back() const {
    const auto back = [this] { return rt::onchip_probe_verdicts() - verdicts_ >= launched(); };
    for (int i = 0; i < 2000 && !back(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return back();
  }

 private:
  std::size_t probes_ = rt::onchip_probe_count(), verdicts_ = rt::onchip_probe_verdicts();
};

// The plan that calls of rows x cols (as transpose() makes them) reuse now, if any.
std::shared_ptr<const rt::CheckedPlan> kept_plan(std::size_t rows, std::size_t cols) {
  return rt::find_checked_plan({session().context(), session().device(), rows, cols,
                                rows * cols + 10, 3, 1, 4, rt::environment_key(), ""});
}

// The work-groups of the on-chip steps of the plan that calls of rows x cols reuse now
// (0: no on-chip step; -1: no plan kept).
long onchip_group_size(std::size_t rows, std::size_t cols) {
  const auto prepared = kept_plan(rows, cols);
  if (prepared == nullptr) return -1;
  long size = 0;
  for (const auto& step : prepared->prepared.plan.steps)
    if (step.family == ipt::planner::Family::kOnChip) size = static_cast<long>(step.work_group());
  return size;
}

// Calls of rows x cols (seeds from `seed` on) until their plan avoids the on-chip kernel,
// each waiting for the verdicts of the probes launched so far: with probes that await one
// group more than they launch, both configurations are found crowded.
void crowd_out(std::size_t rows, std::size_t cols, std::uint64_t& seed, const ProbesSince& since) {
  for (int i = 0; i < 6 && onchip_group_size(rows, cols) != 0; ++i) {
    CHECK(transpose(rows, cols, ++seed) == "");
    REQUIRE(since.all_back());
  }
}

rt::VerdictRef verdict_of(const ipt::planner::Step& step) {
  return rt::onchip_verdict(session().context(), session().device(), step);
}

// Whether a step of the plan runs an on-chip program found crowded.
bool runs_crowded(const rt::CheckedPlan& kept) {
  for (const auto* steps : {&kept.prepared.plan.steps, &kept.prepared.plan.undo})
    for (const auto& step : *steps)
      if (step.family == ipt::planner::Family::kOnChip && verdict_of(step)->crowded()) return true;
  return false;
}

}  // namespace

TEST_CASE("calls are planned around an on-chip kernel whose groups do not all run at once",
          "[plan-cache][onchip]") {
  const ipt::test::ScopedOverrides env(kGpuLike);
  const EmbeddedSources embedded;
  rt::clear_caches();
  const std::size_t rows = 300, cols = 211;  // one on-chip pass
  const auto plan = rt::plan_for_call(rt::query_device_profile(session().device()), rows, cols, 4,
                                      3, nullptr, rows * cols + 10);
  bool two_groups = false;
  for (const auto& step : plan.steps)
    two_groups |= step.family == ipt::planner::Family::kOnChip && step.work_group() == 512;
  REQUIRE(two_groups);

  const SteeredProbes crowded(ipt::planner::ProbeGroups::kOneMore);
  const RecheckAge never(std::chrono::hours(1));
  const ProbesSince probes;
  // Each call runs the plan it finds, then waits for the verdicts of the probes launched
  // so far. A verdict may come back while its call is still being planned, so a call may
  // skip a stage, but the stages come in order: two groups per compute unit, then one
  // group of 1024, then no on-chip kernel. The kernel's fallback transposes meanwhile.
  std::vector<int> stages;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    CHECK(transpose(rows, cols, seed) == "");
    const long size = onchip_group_size(rows, cols);
    stages.push_back(size == 512 ? 0 : size == 1024 ? 1 : size == 0 ? 2 : -1);
    REQUIRE(probes.all_back());
  }
  INFO("stages " << stages[0] << stages[1] << stages[2] << stages[3]);
  CHECK(std::is_sorted(stages.begin(), stages.end()));
  CHECK(stages.front() >= 0);
  CHECK(stages.back() == 2);
  CHECK(stages[2] == 2);  // by the third call: both configurations judged
  // Both configurations were probed once each, and nothing more is.
  CHECK(probes.launched() == 2);
  CHECK(transpose(cols, rows, 5) == "");  // another shape: its plan avoids them from the start
  CHECK(onchip_group_size(cols, rows) == 0);
  CHECK(probes.launched() == 2);

  // A caller who forces the on-chip kernel still gets it, and a right result.
  ipt_plan_options onchip{};
  onchip.sequence = IPT_SEQUENCE_ON_CHIP;
  CHECK(transpose(rows, cols, 6, &onchip) == "");
  rt::clear_caches();
}

TEST_CASE("a forced sequence whose tiles only the on-chip kernel moves runs where it is crowded",
          "[plan-cache][onchip]") {
  const ipt::test::ScopedOverrides env("resident_groups=1,local_mem=49152,compute_units=16");
  const EmbeddedSources embedded;
  rt::clear_caches();
  // 2.1 with m = 400: tiles of 400 x 1000 floats, far beyond a work-group's local memory,
  // within what 16 compute units hold on chip. Planned around its crowded programs, the
  // call has no plan without the on-chip kernel: it keeps the last one tried (the kernel
  // follows the cycles instead), where it had come back IPT_INVALID_VALUE.
  ipt_plan_options forced{};
  forced.sequence = IPT_SEQUENCE_2_1;
  forced.m = 400;
  const std::size_t rows = 800, cols = 1000;
  const SteeredProbes crowded(ipt::planner::ProbeGroups::kOneMore);
  const RecheckAge never(std::chrono::hours(1));
  const ProbesSince probes;
  for (std::uint64_t seed = 40; seed < 44; ++seed) {
    CHECK(transpose(rows, cols, seed, &forced) == "");
    REQUIRE(probes.all_back());
  }
  CHECK(probes.launched() == 2);  // both configurations judged crowded, once each
  rt::clear_caches();
}

TEST_CASE(
    "a crowded verdict is checked again once old, and a device no longer crowded "
    "gets its on-chip plan back",
    "[plan-cache][onchip]") {
  const ipt::test::ScopedOverrides env(kGpuLike);
  const EmbeddedSources embedded;
  rt::clear_caches();
  const std::size_t rows = 300, cols = 211;  // one on-chip pass, two groups per compute unit
  SteeredProbes probes_of(ipt::planner::ProbeGroups::kOneMore);
  RecheckAge age(std::chrono::hours(1));
  const ProbesSince since_start;
  // Calls until the plan avoids the on-chip kernel: both configurations found crowded.
  std::uint64_t seed = 30;
  crowd_out(rows, cols, seed, since_start);
  REQUIRE(onchip_group_size(rows, cols) == 0);
  REQUIRE(kept_plan(rows, cols)->onchip.avoided.size() == 2);

  // Verdicts younger than the age stand: calls launch no probe.
  std::size_t probes = rt::onchip_probe_count();
  for (int i = 0; i < 3; ++i) CHECK(transpose(rows, cols, ++seed) == "");
  CHECK(rt::onchip_probe_count() == probes);

  // A recheck that cannot run (its probe's first buffer refused) fails nothing: the call
  // runs, and the program stays avoided.
  age.set(std::chrono::milliseconds(0));
  rt::faults::arm({}, {1});
  CHECK(transpose(rows, cols, ++seed) == "");
  rt::faults::disarm();
  CHECK(rt::onchip_probe_count() == probes + 1);  // the other program's probe ran
  REQUIRE(since_start.all_back());
  for (const auto& verdict : kept_plan(rows, cols)->onchip.avoided) CHECK(verdict->crowded());
  probes = rt::onchip_probe_count();

  // Old verdicts on a device still crowded: the next call probes both programs again,
  // once each, and runs without the on-chip kernel meanwhile; they stay avoided.
  CHECK(transpose(rows, cols, ++seed) == "");
  CHECK(rt::onchip_probe_count() == probes + 2);
  REQUIRE(since_start.all_back());
  for (const auto& verdict : kept_plan(rows, cols)->onchip.avoided) CHECK(verdict->crowded());
  age.set(std::chrono::hours(1));
  CHECK(transpose(rows, cols, ++seed) == "");
  CHECK(onchip_group_size(rows, cols) == 0);
  CHECK(rt::onchip_probe_count() == probes + 2);

  // The device is no longer crowded (probes of one group find so, whatever runs the
  // test): probed again, both programs are found resident, and the call after gets the
  // two-group on-chip plan back, without probing it again.
  probes_of.set(ipt::planner::ProbeGroups::kOne);
  age.set(std::chrono::milliseconds(0));
  probes = rt::onchip_probe_count();
  CHECK(transpose(rows, cols, ++seed) == "");
  CHECK(rt::onchip_probe_count() == probes + 2);
  REQUIRE(since_start.all_back());
  CHECK(transpose(rows, cols, ++seed) == "");
  CHECK(onchip_group_size(rows, cols) == 512);
  CHECK(rt::onchip_probe_count() == probes + 2);
  CHECK_FALSE(runs_crowded(*kept_plan(rows, cols)));
  CHECK(transpose(rows, cols, ++seed) == "");
  rt::clear_caches();
}

TEST_CASE("a program's residency: probed once, a crowded verdict probed again once old",
          "[plan-cache][onchip]") {
  using Residency = rt::OnChipVerdict::Residency;
  using Clock = rt::OnChipVerdict::Clock;
  rt::OnChipVerdict program;
  CHECK(program.residency() == Residency::kUnprobed);
  rt::OnChipVerdict judged;  // pending, then resident: no flip
  CHECK(judged.start_probe());
  CHECK_FALSE(judged.settle(Residency::kResident));
  CHECK_FALSE(program.start_recheck(Clock::now(), std::chrono::seconds(0)));  // never judged
  CHECK(program.start_probe());
  CHECK_FALSE(program.start_probe());  // one probe at a time
  CHECK_FALSE(program.crowded());      // pending: not known to be crowded
  // A flip to crowded or back changes the generation, which kept plans watch.
  const std::uint64_t generation = rt::onchip_verdict_generation();
  CHECK(program.settle(Residency::kCrowded));
  CHECK(rt::onchip_verdict_generation() != generation);
  const auto verdict = Clock::now();
  CHECK(program.crowded());
  const auto age = std::chrono::seconds(10);
  CHECK_FALSE(program.start_recheck(verdict + std::chrono::seconds(5), age));
  CHECK(program.start_recheck(Clock::now() + age, age));
  CHECK(program.residency() == Residency::kRechecking);
  CHECK(program.crowded());  // still avoided until the verdict comes
  CHECK_FALSE(program.start_recheck(Clock::now() + age, age));  // one recheck at a time
  // Crowded again: no flip; the verdict's age counts from now, not from the first verdict.
  const std::uint64_t crowded_generation = rt::onchip_verdict_generation();
  CHECK_FALSE(program.settle(Residency::kCrowded));
  CHECK(rt::onchip_verdict_generation() == crowded_generation);
  CHECK_FALSE(program.start_recheck(Clock::now() + std::chrono::seconds(5), age));
  CHECK(program.start_recheck(Clock::now() + age, age));
  CHECK(program.settle(Residency::kResident));
  CHECK(rt::onchip_verdict_generation() != crowded_generation);
  CHECK_FALSE(program.crowded());
  CHECK_FALSE(program.start_recheck(Clock::now() + age, age));  // resident stays so
  CHECK_FALSE(program.start_probe());
}

TEST_CASE("an on-chip kernel whose groups all run at once keeps its plan", "[plan-cache][onchip]") {
  // NVIDIA's and AMD's GPUs, for which the planner counts on resident groups, must hold
  // them in their own configuration (a 1294 x 1339 call goes on chip in one pass there);
  // other devices are given one.
  const bool promised = rt::query_device_profile(session().device()).resident_groups;
  const ipt::test::ScopedOverrides env(promised ? nullptr : kGpuLike);
  const EmbeddedSources embedded;
  rt::clear_caches();
  const std::size_t rows = promised ? 1294 : 300, cols = promised ? 1339 : 211;
  const ProbesSince probes;
  // Calls until one launches no probe: its plan's programs were all judged before it.
  for (std::uint64_t seed = 7; seed < 12; ++seed) {
    const std::size_t before = rt::onchip_probe_count();
    CHECK(transpose(rows, cols, seed) == "");
    REQUIRE(probes.all_back());
    if (seed > 7 && rt::onchip_probe_count() == before) break;
  }
  // That plan holds no program found crowded, and on a GPU that promises resident
  // groups every probe found them so: the plan keeps its two groups per compute unit.
  const auto kept = kept_plan(rows, cols);
  REQUIRE(kept != nullptr);
  CHECK_FALSE(runs_crowded(*kept));
  using Residency = rt::OnChipVerdict::Residency;
  for (const auto& step : kept->prepared.plan.steps)
    if (step.family == ipt::planner::Family::kOnChip)
      CHECK(verdict_of(step)->residency() == Residency::kResident);
  if (promised) {
    CHECK(onchip_group_size(rows, cols) == 512);
    CHECK(probes.launched() == 1);
  }
  rt::clear_caches();
}

TEST_CASE("on an out-of-order queue the probe runs before the call's own kernels",
          "[plan-cache][onchip]") {
  // Otherwise the call's on-chip kernel could run beside the probe and crowd it.
  if (!ipt::test::out_of_order_queues()) IPT_SKIP("the device has no out-of-order queues");
  const ipt::test::ScopedOverrides env(kGpuLike);
  rt::clear_caches();
  cl_int code = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue(session().context(), session().device(),
                                                CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &code);
  REQUIRE(code == CL_SUCCESS);
  const std::size_t rows = 300, cols = 211;
  GuardedMatrix m(rows, cols, 4, 3, 40, 21);
  rt::faults::arm({});  // counts the library's commands, fails none
  cl_event done = nullptr;
  const ipt_status status = ipt_transpose_f32(queue, m.buffer(), 3, rows, cols, 0, nullptr, &done);
  const auto commands = rt::faults::passed(rt::faults::Site::kEnqueue);
  rt::faults::disarm();
  REQUIRE(status == IPT_SUCCESS);
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  CHECK(m.check_transposed() == "");
  // The probe's launch, the barrier, the read of its report, then the call's kernel.
  std::vector<std::string> names(commands.begin(), commands.end());
  INFO("commands: " << names.size());
  REQUIRE(names.size() >= 4);
  CHECK(names[0] == "clEnqueueNDRangeKernel");
  CHECK(names[1] == "clEnqueueBarrierWithWaitList");
  CHECK(names[2] == "clEnqueueReadBuffer");
  CHECK(names.back() == "clEnqueueNDRangeKernel");
  clReleaseCommandQueue(queue);
  rt::clear_caches();
}

TEST_CASE("a call whose on-chip probe cannot run is planned without the on-chip kernel",
          "[plan-cache][onchip]") {
  const ipt::test::ScopedOverrides env(kGpuLike);
  const EmbeddedSources embedded;
  rt::clear_caches();
  const std::size_t rows = 300, cols = 211;  // one on-chip pass, two groups per compute unit
  const auto plan = rt::plan_for_call(rt::query_device_profile(session().device()), rows, cols, 4,
                                      3, nullptr, rows * cols + 10);
  const ipt::planner::Step* onchip = nullptr;
  for (const auto& step : plan.steps)
    if (step.family == ipt::planner::Family::kOnChip) onchip = &step;
  REQUIRE(onchip != nullptr);
  REQUIRE(onchip->work_group() == 512);
  // Built, with its kernel objects, and not probed: the call's first allocation is the
  // probe's first buffer.
  const cl::CommandQueue queue(session().queue(), /*retainObject=*/true);
  static_cast<void>(rt::prepare_plan(queue, plan));
  const SteeredProbes resident(ipt::planner::ProbeGroups::kOne);
  rt::faults::arm({}, {1});
  const std::string result = transpose(rows, cols, 41);
  const std::vector<const char*> allocations = rt::faults::passed(rt::faults::Site::kAllocation);
  rt::faults::disarm();
  CHECK(result == "");
  REQUIRE_FALSE(allocations.empty());
  CHECK(std::string(allocations[0]) == "clCreateBuffer");
  CHECK(onchip_group_size(rows, cols) == 0);
  // Not judged: the next call of another shape probes the program and runs on chip.
  CHECK(verdict_of(*onchip)->residency() == rt::OnChipVerdict::Residency::kUnprobed);
  const ProbesSince probes;
  CHECK(transpose(cols, rows, 42) == "");
  CHECK(probes.launched() == 1);
  CHECK(onchip_group_size(cols, rows) > 0);
  rt::clear_caches();
}

TEST_CASE("a call that keeps no plan checks old crowded verdicts too", "[plan-cache][onchip]") {
  const ipt::test::ScopedOverrides env(kGpuLike);
  const EmbeddedSources embedded;
  rt::clear_caches();
  const std::size_t rows = 300, cols = 211;  // one on-chip pass, two groups per compute unit
  const SteeredProbes crowded(ipt::planner::ProbeGroups::kOneMore);
  RecheckAge age(std::chrono::hours(1));
  const ProbesSince since_start;
  std::uint64_t seed = 60;
  crowd_out(rows, cols, seed, since_start);
  REQUIRE(onchip_group_size(rows, cols) == 0);  // both configurations judged crowded
  // Plan options that leave the on-chip kernel to the planner: the call keeps no plan,
  // plans around both programs, and probes them again once their verdicts are old.
  ipt_plan_options automatic{};
  std::size_t probes = rt::onchip_probe_count();
  CHECK(transpose(rows, cols, ++seed, &automatic) == "");
  CHECK(rt::onchip_probe_count() == probes);
  age.set(std::chrono::milliseconds(0));
  CHECK(transpose(rows, cols, ++seed, &automatic) == "");
  CHECK(rt::onchip_probe_count() == probes + 2);
  REQUIRE(since_start.all_back());
  rt::clear_caches();
}

TEST_CASE("every on-chip program runs all of its work-groups at once on a GPU", "[onchip]") {
  // The real device, its own verdicts: no probe steered, no overrides.
  const ScopedEnv no_overrides("IPT_OVERRIDES", nullptr);
  const auto profile = rt::query_device_profile(session().device());
  if (!profile.resident_groups)
    IPT_SKIP("plans on this device do not count on resident work-groups (a GPU's do)");
  rt::clear_caches();
  const cl::CommandQueue queue(session().queue(), /*retainObject=*/true);
  const ProbesSince probes;
  std::set<std::string> programs;
  for (const std::size_t elem_size : {1, 2, 4, 8})
    for (const bool index64 : {false, true}) {
      std::vector<ipt::planner::Step> onchip;
      // Those that wait for one another (the cycle following alone, an undo's, does not).
      for (const auto& step : ipt::planner::variant_steps(profile, elem_size, index64))
        if (step.probed_launch && programs.insert(step.options).second) onchip.push_back(step);
      if (onchip.empty()) continue;
      rt::probe_onchip_programs(
          queue, rt::prepare_plan(queue, ipt::planner::plan_of_steps(onchip, elem_size, 0)));
    }
  queue.finish();
  REQUIRE(programs.size() > 0);
  CHECK(probes.launched() == programs.size());
  REQUIRE(probes.all_back());
  std::string crowded;
  for (const auto& options : rt::crowded_onchip_programs(session().context(), session().device()))
    crowded += "\n  " + options;
  INFO("on-chip programs whose work-groups did not all run at once:" << crowded);
  CHECK(crowded.empty());
  rt::clear_caches();
}
