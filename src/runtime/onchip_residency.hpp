// SPDX-License-Identifier: Apache-2.0
// Whether the on-chip kernel's work-groups all run at once: its probe, the verdicts, and
// their rechecks, in one place. The on-chip kernel counts on every work-group of its grid
// running at once; where they do not, it takes its fallback, cycle following at a few
// percent of its speed, on every call. The first time an on-chip program is prepared, its
// probe (planner::onchip_probe_step) runs on buffers of its own and reports whether every
// group ran at once. The verdicts go into the device profile before a call is planned
// (DeviceProfile::crowded_onchip), and the planner goes around crowded programs
// (planner/crowded_onchip.hpp). Once per program, not once per shape: a probe costs a new
// shape's first call two buffers, a launch of the whole grid and a read.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/opencl.hpp"

namespace ipt::planner {
struct Step;
struct LaunchPlan;
}  // namespace ipt::planner

namespace ipt::runtime {

struct PreparedPlan;  // runtime/executor.hpp

// What the probe of one on-chip program found: not probed yet; launched, the verdict not
// back; every work-group ran at once; or not. A crowded verdict is checked again once it
// is old (rechecking: still crowded meanwhile), since what crowded the device (another
// program's kernels, other processes under MPS) may have gone.
class OnChipVerdict {
 public:
  enum class Residency { kUnprobed, kPending, kResident, kCrowded, kRechecking };
  using Clock = std::chrono::steady_clock;
  Residency residency() const { return residency_.load(std::memory_order_acquire); }
  bool crowded() const {
    const Residency r = residency();
    return r == Residency::kCrowded || r == Residency::kRechecking;
  }
  // Unprobed -> pending, true for exactly one of the callers that race for it.
  bool start_probe() {
    Residency expected = Residency::kUnprobed;
    return residency_.compare_exchange_strong(expected, Residency::kPending);
  }
  // Crowded -> rechecking once the verdict is `age` old, true for exactly one caller.
  // The state first: its acquire makes the time read after it the verdict's or newer.
  bool start_recheck(Clock::time_point now, Clock::duration age) {
    Residency expected = Residency::kCrowded;
    return residency_.load(std::memory_order_acquire) == expected &&
           now - Clock::time_point(Clock::duration(crowded_since_.load())) >= age &&
           residency_.compare_exchange_strong(expected, Residency::kRechecking);
  }
  // The verdict (kUnprobed: none came back; the next preparation probes again). Returns
  // whether the program turned crowded or stopped being so.
  bool settle(Residency verdict);
  // Whether the device has accepted a launch of the kernel at its compiled work-group
  // (the probe's launch).
  bool launch_accepted() const { return launch_accepted_.load(std::memory_order_acquire); }
  void accept_launch() { launch_accepted_.store(true, std::memory_order_release); }

 private:
  std::atomic<Residency> residency_{Residency::kUnprobed};
  std::atomic<Clock::rep> crowded_since_{0};  // when the last crowded verdict came
  std::atomic<bool> launch_accepted_{false};
};
using VerdictRef = std::shared_ptr<OnChipVerdict>;

// The verdict of the on-chip program that `step` runs on `device` in `context` (one per
// build options, IPT_BUILD_OPTIONS included), made unprobed on first use.
VerdictRef onchip_verdict(cl_context context, cl_device_id device, const planner::Step& step);

// The build options of the programs found crowded on `device` in `context`
// (DeviceProfile::crowded_onchip).
std::vector<std::string> crowded_onchip_programs(cl_context context, cl_device_id device);

// Changes whenever a program turns crowded or stops being so: a call planned on the
// verdicts of one generation is planned again in another (OnChipWatch).
std::uint64_t onchip_verdict_generation();

// Probes each on-chip program of a prepared plan (its steps', its undo's) the first time:
// on the call's queue, after what it holds, on buffers of its own. Its launch checks the
// work-group (Step::probed_launch), and its report, read back without blocking, brings the
// verdict. A thread that finds another's probe being launched waits for the launch (a
// moment), so that no call runs a program whose launch nobody has seen accepted. On an
// out-of-order queue the commands enqueued next wait for the probe, so that the call's own
// kernels cannot crowd it. Throws IPT_OUT_OF_RESOURCES when the device refuses the launch
// or the probe's buffers.
void probe_onchip_programs(const cl::CommandQueue& queue, const PreparedPlan& prepared);

// How old a crowded verdict gets before a call that was planned around the program
// probes it again.
inline constexpr std::chrono::seconds kCrowdedRecheckAge{10};

// What a call's plan was made on: the verdicts' generation, and the crowded programs it
// goes around. Only plans that follow the verdicts (they run the on-chip kernel or went
// around it, unforced, on a device whose plans count on resident groups) watch them.
struct OnChipWatch {
  bool follows = false;
  std::uint64_t generation = 0;
  std::vector<VerdictRef> avoided;  // the verdicts of plan.avoided, in order
};

// The watch of `plan`, made on the verdicts of `generation`.
OnChipWatch watch_verdicts(const cl::CommandQueue& queue, const planner::LaunchPlan& plan,
                           bool follows, std::uint64_t generation);

// Probes again, on `queue`, the programs the plan of `watch` goes around whose crowded
// verdicts are kCrowdedRecheckAge old (a call that keeps no plan does so when it plans).
// A probe on a device still crowded costs the kernel's patience, so it is not repeated on
// every call. Where a recheck cannot run, the program stays crowded. Never throws.
void recheck_avoided(const cl::CommandQueue& queue, const OnChipWatch& watch,
                     const planner::LaunchPlan& plan);

// Whether the call of a kept plan should be planned again: the verdicts changed since it
// was made; rechecks old verdicts first (recheck_avoided). Never throws.
bool verdicts_changed(const cl::CommandQueue& queue, const OnChipWatch& watch,
                      const planner::LaunchPlan& plan);

// Probes launched, and verdicts come back, since the process started (for tests).
std::size_t onchip_probe_count();
std::size_t onchip_probe_verdicts();

// Forgets every verdict (ipt_clear_cache: the programs are dropped too).
void clear_onchip_verdicts();

}  // namespace ipt::runtime
