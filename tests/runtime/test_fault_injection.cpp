// SPDX-License-Identifier: Apache-2.0
// A failed call loses nothing: for a plan of every class, the k-th command the call
// enqueues fails, for every k, and separately the k-th buffer it allocates; the buffer
// must come back byte for byte (fault_injection.hpp injects the failures). A
// failure before the first kernel returns the OpenCL error with nothing enqueued; one
// after it returns IPT_ROLLED_BACK, its event completing once the undo has run; and a
// failure of any command of the undo returns IPT_BUFFER_UNDEFINED. After each, the next
// call reuses the scratch, plan and programs the failed one kept, and transposes.
#include <catch2/catch.hpp>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "helpers/fault_injection.hpp"
#include "helpers/steered_probes.hpp"
#include "helpers/test_skip.hpp"
#include "helpers/test_support.hpp"
#include "ipt/ipt.h"
#include "runtime/checked_plans.hpp"
#include "runtime/environment.hpp"
#include "runtime/executor.hpp"
#include "runtime/onchip_residency.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/scratch_cache.hpp"
#include "runtime/transpose.hpp"
#include "support/host_reference.hpp"
#include "support/imatcopy_reference.hpp"
#include "support/random_data.hpp"

namespace faults = ipt::runtime::faults;
namespace rt = ipt::runtime;
using ipt::test::GuardedMatrix;
using ipt::test::ScopedEnv;
using ipt::test::session;
using ipt::test::SteeredProbes;

namespace {

struct Case {
  const char* name;
  std::size_t rows, cols, elem_size;
  const char* overrides;
  bool room;  // a buffer of ipt_padded_size bytes (a padded plan borrows), else exact
  // ipt_permute's tensor (rows: its elements, cols 1) and permutation.
  std::vector<std::size_t> dims = {}, perm = {};
  std::size_t offset = 3;  // of the matrix in its buffer, in elements
};

// Every plan class the runtime enqueues. The small local memory makes plans of several
// kernels out of matrices small enough for PoCL.
const Case kCases[] = {
    {"square", 64, 64, 4, "", false},
    {"square, padded to a larger square", 61, 64, 2,
     "sequence=square,padded_rows=64,padded_cols=64", true},
    {"2.1", 96, 80, 4, "local_mem=8192,sequence=2.1", false},
    {"2.2", 96, 80, 8, "local_mem=8192,sequence=2.2", false},
    {"3.1", 96, 80, 1, "local_mem=8192,sequence=3.1", false},
    {"3.2", 96, 80, 16, "local_mem=8192,sequence=3.2", false},
    {"one-stage", 37, 41, 4, "sequence=1", false},
    {"padded, borrowing room past the matrix", 1009, 991, 4, "local_mem=8192,onchip=off", true},
    {"padded, split into scratch", 1009, 997, 4, "local_mem=8192,onchip=off", false},
    {"padded 2.2, split", 211, 307, 2, "local_mem=8192,onchip=off", false},
    {"on-chip, whole matrix", 150, 37, 4, "onchip=on,compute_units=1", false},
    {"on-chip 010! stage", 384, 1000, 4,
     "resident_groups=1,local_mem=49152,compute_units=1,sequence=2.1,m=32", false},
    {"on-chip 010! stage, its fallback", 384, 1000, 4,
     "resident_groups=1,local_mem=49152,compute_units=1,onchip.abort=1,sequence=2.1,m=32", false},
    // In blocks one way only (the matrix on a word): undone by the kernel's cycle
    // following alone.
    {"on-chip 010! stage in blocks",
     384,
     1001,
     1,
     "resident_groups=1,local_mem=49152,compute_units=1,sequence=2.1,m=64",
     false,
     {},
     {},
     4},
};

// Permutations whose plans are several block swaps, one after the other on one scratch:
// transpositions and 0100! passes over super-elements.
const Case kPermuteCases[] = {
    {"permute, three prime axes reversed",
     29 * 31 * 37,
     1,
     4,
     "local_mem=8192",
     false,
     {29, 31, 37},
     {2, 1, 0}},
    {"permute, transpositions of rows and 2-byte elements",
     3 * 20 * 6 * 5,
     1,
     2,
     "local_mem=8192",
     false,
     {3, 20, 6, 5},
     {3, 0, 2, 1}},
    {"permute, 0100! passes over super-elements",
     5 * 6 * 7 * 32,
     1,
     4,
     "local_mem=8192",
     false,
     {5, 6, 7, 32},
     {2, 1, 0, 3}},
};

struct Outcome {
  ipt_status status = IPT_SUCCESS;
  std::string message;
  bool event = false;
  std::uint64_t commands = 0;     // enqueue points the call passed (a failed one included)
  std::uint64_t allocations = 0;  // allocation points, likewise
  std::vector<std::pair<faults::Site, const char*>> sequence;  // every point, in order
};

// The entry points that run a plan of kernels on the caller's queue.
enum class Entry {
  kTranspose,
  kWithOptions,  // ipt_transpose_with_options with default options: the same plan
  kBatched,      // two matrices back to back: a batch's own plan
  kPermute,      // ipt_permute of the case's tensor
};

const char* entry_name(Entry entry) {
  switch (entry) {
    case Entry::kTranspose:
      return "ipt_transpose";
    case Entry::kWithOptions:
      return "ipt_transpose_with_options";
    case Entry::kBatched:
      return "ipt_transpose_batched (2 matrices)";
    case Entry::kPermute:
      return "ipt_permute";
  }
  return "?";
}

class FaultRun {
 public:
  FaultRun(const Case& c, std::uint64_t seed, cl_command_queue queue, Entry entry)
      : case_(c),
        queue_(queue),
        entry_(entry),
        after_(after_bytes(c) + 5),
        matrix_(batch() * c.rows, c.cols, c.elem_size, c.offset, after_, seed) {}

  std::size_t batch() const { return entry_ == Entry::kBatched ? 2 : 1; }

  // Whether the matrix holds the call's result, or else a description of the difference.
  std::string check_done() const {
    if (entry_ == Entry::kPermute)
      return matrix_.check_holds(ipt::support::permute_axes(
          matrix_.matrix_before(), std::vector<std::uint64_t>(case_.dims.begin(), case_.dims.end()),
          case_.perm, case_.elem_size));
    if (batch() == 1) return matrix_.check_transposed();
    return matrix_.check_holds(ipt::support::permute_010(matrix_.matrix_before(), batch(),
                                                         case_.rows, case_.cols, case_.elem_size));
  }

  // Whether ipt_plan describes a batch transposed in parts.
  bool planned_in_parts() const {
    if (entry_ == Entry::kPermute) return permute_info().num_swaps > 1;
    if (batch() == 1) return false;
    ipt_plan_info info{};
    REQUIRE(ipt_plan_batched(session().device(), batch(), case_.rows, case_.cols, case_.elem_size,
                             nullptr, &info) == IPT_SUCCESS);
    return std::string(info.description).find(" parts of ") != std::string::npos;
  }

  // Whether the plan of a buffer with room borrows (a case with room must: ipt_padded_size
  // asks for none where borrowing would pass the bound on extra memory).
  bool borrows() const {
    ipt_plan_info info{};
    REQUIRE(ipt_plan(session().device(), case_.rows, case_.cols, case_.elem_size, nullptr, &info) ==
            IPT_SUCCESS);
    return info.borrowed_bytes != 0;
  }

  // The kernels ipt_plan reports for the same room. Options would replace the sequence
  // IPT_OVERRIDES forces; a forced sequence pads only when forced to, with room, so it
  // plans the same either way.
  unsigned planned_kernels() const {
    if (entry_ == Entry::kPermute) return permute_info().num_stages;
    ipt_plan_options options{};
    options.max_bytes = case_.rows * case_.cols * case_.elem_size;
    const bool forced = std::string(case_.overrides).find("sequence=") != std::string::npos;
    ipt_plan_info info{};
    if (batch() > 1)
      REQUIRE(ipt_plan_batched(session().device(), batch(), case_.rows, case_.cols, case_.elem_size,
                               nullptr, &info) == IPT_SUCCESS);
    else
      REQUIRE(ipt_plan(session().device(), case_.rows, case_.cols, case_.elem_size,
                       case_.room || forced ? nullptr : &options, &info) == IPT_SUCCESS);
    INFO(info.description);
    return info.num_stages;
  }

  ipt_permute_info permute_info() const {
    ipt_permute_info info{};
    REQUIRE(ipt_plan_permute(session().device(), case_.dims.size(), case_.dims.data(),
                             case_.perm.data(), case_.elem_size, &info) == IPT_SUCCESS);
    INFO(info.description);
    return info;
  }

  // One call from the original bytes with fresh scratch (the counts of a call that finds
  // kept scratch differ), or with what earlier calls kept, the given failures armed; waits
  // for everything it enqueued.
  Outcome call(std::vector<std::uint64_t> enqueues, std::vector<std::uint64_t> allocations,
               bool fresh_scratch = true, std::vector<std::uint64_t> calls = {},
               std::vector<std::uint64_t> keeps = {}) {
    restore();
    if (fresh_scratch) ipt::runtime::clear_scratch_cache();
    faults::arm(std::move(enqueues), std::move(allocations), std::move(calls), std::move(keeps));
    cl_event event = nullptr;
    Outcome outcome;
    const ipt_plan_options defaults{};
    switch (entry_) {
      case Entry::kTranspose:
        outcome.status = ipt_transpose(queue_, matrix_.buffer(), matrix_.offset(), case_.rows,
                                       case_.cols, 0, nullptr, &event, case_.elem_size);
        break;
      case Entry::kWithOptions:
        outcome.status =
            ipt_transpose_with_options(queue_, matrix_.buffer(), matrix_.offset(), case_.rows,
                                       case_.cols, case_.elem_size, &defaults, 0, nullptr, &event);
        break;
      case Entry::kBatched:
        outcome.status =
            ipt_transpose_batched(queue_, matrix_.buffer(), matrix_.offset(), batch(), case_.rows,
                                  case_.cols, 0, nullptr, &event, case_.elem_size);
        break;
      case Entry::kPermute:
        outcome.status =
            ipt_permute(queue_, matrix_.buffer(), matrix_.offset(), case_.dims.size(),
                        case_.dims.data(), case_.perm.data(), case_.elem_size, 0, nullptr, &event);
        break;
    }
    outcome.message = ipt_last_error_message();
    outcome.commands = faults::count(faults::Site::kEnqueue);
    outcome.allocations = faults::count(faults::Site::kAllocation);
    outcome.sequence = faults::sequence();
    faults::disarm();
    outcome.event = event != nullptr;
    if (event != nullptr) {
      // The event alone says when the buffer is whole again (the queue may run out of
      // order): read it on the session's queue once the event has completed.
      CHECK(clWaitForEvents(1, &event) == CL_SUCCESS);
      cl_int status = 1;
      CHECK(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                           nullptr) == CL_SUCCESS);
      CHECK(status == CL_COMPLETE);
      clReleaseEvent(event);
    }
    CHECK(clFinish(queue_) == CL_SUCCESS);
    return outcome;
  }

  const GuardedMatrix& matrix() const { return matrix_; }

  // The plan that ipt_transpose calls like this run's reuse now, if any.
  std::shared_ptr<const rt::CheckedPlan> kept_plan() const {
    const std::uint64_t capacity =
        (case_.rows * case_.cols * case_.elem_size + after_) / case_.elem_size;
    return rt::find_checked_plan({session().context(), session().device(), case_.rows, case_.cols,
                                  capacity, matrix_.offset(), 1, case_.elem_size,
                                  rt::environment_key(), ""});
  }

 private:
  static std::size_t after_bytes(const Case& c) {
    if (!c.room) return 0;
    std::size_t bytes = 0;
    REQUIRE(ipt_padded_size(session().device(), c.rows, c.cols, c.elem_size, &bytes) ==
            IPT_SUCCESS);
    // A forced padded shape may ask for more than the automatic plan's room.
    return std::max(bytes, std::size_t{64 * 64 * 16}) - c.rows * c.cols * c.elem_size;
  }

  void restore() {
    const std::vector<unsigned char>& bytes = matrix_.initial();
    REQUIRE(clEnqueueWriteBuffer(session().queue(), matrix_.buffer(), CL_TRUE, 0, bytes.size(),
                                 bytes.data(), 0, nullptr, nullptr) == CL_SUCCESS);
  }

  const Case& case_;
  cl_command_queue queue_;
  Entry entry_;
  std::size_t after_;  // guard bytes after the matrix
  GuardedMatrix matrix_;
};

// Returns the number of allocations a call made.
std::uint64_t check_every_failure(const Case& c, cl_command_queue queue, std::uint64_t seed,
                                  Entry entry = Entry::kTranspose) {
  INFO(entry_name(entry) << ", " << c.name << ": " << c.rows << " x " << c.cols << ", elem_size "
                         << c.elem_size << ", " << c.overrides);
  ipt::test::ScopedOverrides env(c.overrides);
  // The on-chip kernel's probe awaits one group, which any device holds: its verdict
  // (advice, settled by a callback) would otherwise depend on what else keeps a CPU
  // device's threads busy, and a crowded one re-plans the next call, whose commands this
  // test counts. test_onchip_residency.cpp tests the verdicts.
  SteeredProbes resident(ipt::planner::ProbeGroups::kOne);
  // Verdicts left by earlier tests on the same programs (probed unsteered) would decide
  // whether this test's calls probe again: from a clean slate, its first call probes as
  // steered, and later calls alike.
  rt::clear_checked_plans();
  rt::clear_onchip_verdicts();
  FaultRun run(c, seed, queue, entry);
  // Prepares and caches the plan (builds, probes), then counts a call's points: its
  // commands, in order, and the kernels among them.
  REQUIRE(run.call({}, {}).status == IPT_SUCCESS);
  const Outcome counted = run.call({}, {});
  REQUIRE(counted.status == IPT_SUCCESS);
  const std::vector<const char*> commands = faults::passed(faults::Site::kEnqueue);
  const std::uint64_t enqueues = commands.size();
  const std::uint64_t allocations = faults::count(faults::Site::kAllocation);
  REQUIRE(run.check_done() == "");
  if (c.room) CHECK(run.borrows());
  std::uint64_t first_kernel = 0;  // 1-based, as the failures are numbered
  unsigned kernels = 0;
  for (std::uint64_t k = 0; k < enqueues; ++k)
    if (std::string(commands[k]) == "clEnqueueNDRangeKernel" && kernels++ == 0)
      first_kernel = k + 1;
  REQUIRE(kernels >= 1);
  // Every command after the first kernel is a kernel: fills come first; a batch in
  // parts zeroes each later part's flags just before it.
  std::uint64_t later_fills = 0;
  for (std::uint64_t k = first_kernel; k < enqueues; ++k)
    later_fills += std::string(commands[k]) == "clEnqueueFillBuffer";
  if (!run.planned_in_parts()) CHECK(later_fills == 0);
  REQUIRE(first_kernel + kernels - 1 + later_fills == enqueues);
  // ipt_plan describes the plan the call ran, unless the device's compiled kernels made
  // the call plan again within their work-group limits (ipt_plan compiles nothing).
  if (run.planned_kernels() != kernels)
    WARN(c.name << ": ipt_plan reports " << run.planned_kernels() << " kernels; the call ran "
                << kernels);

  unsigned rolled_back = 0;
  for (std::uint64_t k = 1; k <= enqueues; ++k) {
    INFO("enqueue " << k << " of " << enqueues << " fails");
    const Outcome failed = run.call({k}, {});
    INFO(failed.message);
    // The commands before the first kernel (fills of scratch) and the first kernel fail
    // with nothing enqueued that touches the buffer; every later one is rolled back.
    const bool after_a_kernel = k > first_kernel;
    if (after_a_kernel) {
      CHECK(failed.status == IPT_ROLLED_BACK);
      CHECK(failed.event);
      CHECK(failed.message.find("undone") != std::string::npos);
      ++rolled_back;
    } else {
      CHECK(failed.status == IPT_OUT_OF_RESOURCES);
      CHECK_FALSE(failed.event);
    }
    CHECK(run.matrix().check_unchanged() == "");
    // The next call reuses what this one kept (scratch, its plan and programs).
    const Outcome next = run.call({}, {}, false);
    CHECK(next.status == IPT_SUCCESS);
    CHECK(run.check_done() == "");
    if (!after_a_kernel) continue;
    // Each command of the undo fails in turn.
    const std::uint64_t undo = failed.commands - k;
    CHECK(undo >= 1);
    for (std::uint64_t j = 1; j <= undo; ++j) {
      INFO("and undo command " << j << " of " << undo);
      const Outcome lost = run.call({k, k + j}, {});
      INFO(lost.message);
      CHECK(lost.status == IPT_BUFFER_UNDEFINED);
      CHECK(lost.message.find("undefined") != std::string::npos);
      // Only the matrix is lost: the bytes around it are the caller's, unless the plan
      // borrows those past it.
      if (!c.room) CHECK(run.matrix().check_guards() == "");
      // And the library is usable, with what the failed call kept.
      CHECK(run.call({}, {}, false).status == IPT_SUCCESS);
      CHECK(run.check_done() == "");
    }
  }
  CHECK(rolled_back == enqueues - first_kernel);

  for (std::uint64_t k = 1; k <= allocations; ++k) {
    INFO("allocation " << k << " of " << allocations << " fails");
    const Outcome failed = run.call({}, {k});
    INFO(failed.message);
    CHECK(failed.status == CL_MEM_OBJECT_ALLOCATION_FAILURE);
    CHECK_FALSE(failed.event);
    CHECK(run.matrix().check_unchanged() == "");
    CHECK(run.call({}, {}, false).status == IPT_SUCCESS);
    CHECK(run.check_done() == "");
  }
  // Each other OpenCL call (clSetKernelArg) fails in turn: before the first kernel is
  // enqueued nothing has run; after it, the kernels enqueued are undone.
  std::vector<unsigned> kernels_before;  // for each such call, the kernels enqueued before it
  unsigned seen = 0;
  for (const auto& [site, what] : run.call({}, {}).sequence) {
    if (site == faults::Site::kEnqueue && std::string(what) == "clEnqueueNDRangeKernel") ++seen;
    if (site == faults::Site::kCall) kernels_before.push_back(seen);
  }
  CHECK(kernels_before.size() >= kernels);  // the buffer arguments at least
  for (std::uint64_t k = 1; k <= kernels_before.size(); ++k) {
    INFO("call " << k << " of " << kernels_before.size() << " fails, after "
                 << kernels_before[k - 1] << " kernels");
    REQUIRE(run.call({}, {}).status == IPT_SUCCESS);  // as the counted call found it
    const Outcome failed = run.call({}, {}, true, {k});
    INFO(failed.message);
    if (kernels_before[k - 1] == 0) {
      CHECK(failed.status == CL_OUT_OF_HOST_MEMORY);
      CHECK_FALSE(failed.event);
    } else {
      CHECK(failed.status == IPT_ROLLED_BACK);
      CHECK(failed.event);
    }
    CHECK(run.matrix().check_unchanged() == "");
  }
  // The library is as usable as before.
  REQUIRE(run.call({}, {}).status == IPT_SUCCESS);
  CHECK(run.check_done() == "");
  return allocations;
}

// The cases from `begin` to `end` (in two halves, so that neither holds up the end of a
// parallel ctest run: under ThreadSanitizer the whole took 94 s).
void check_cases(std::size_t begin, std::size_t end) {
  std::uint64_t seed = 3100 + begin;
  for (std::size_t i = begin; i < end; ++i) {
    const Case& c = kCases[i];
    INFO(c.name);
    const std::uint64_t allocations = check_every_failure(c, session().queue(), ++seed);
    // Scratch, zero scratch or both, whose allocation failed in turn; the square
    // kernel's plan needs none.
    if (std::string(c.name) != "square") CHECK(allocations >= 1);
  }
}

}  // namespace

TEST_CASE("a call that fails at any command or allocation loses nothing, part 1", "[faults]") {
  check_cases(0, std::size(kCases) / 2);
}

TEST_CASE("a call that fails at any command or allocation loses nothing, part 2", "[faults]") {
  check_cases(std::size(kCases) / 2, std::size(kCases));
}

TEST_CASE("ipt_permute fails as safely, its block swaps undone", "[faults]") {
  std::uint64_t seed = 3500;
  for (const Case& c : kPermuteCases) {
    // Several swaps, so that failures come inside the later ones too.
    ipt::test::ScopedOverrides env(c.overrides);
    ipt_permute_info info{};
    REQUIRE(ipt_plan_permute(session().device(), c.dims.size(), c.dims.data(), c.perm.data(),
                             c.elem_size, &info) == IPT_SUCCESS);
    INFO(info.description);
    REQUIRE(info.num_swaps >= 2);
    check_every_failure(c, session().queue(), ++seed, Entry::kPermute);
  }
}

TEST_CASE("ipt_transpose_with_options and ipt_transpose_batched fail as safely",
          "[faults][sweep][large]") {
  std::uint64_t seed = 3300;
  for (const Entry entry : {Entry::kWithOptions, Entry::kBatched})
    for (const Case& c : kCases) {
      // A batch never pads: a forced padded shape is refused (IPT_INVALID_VALUE).
      const bool padded = std::string(c.overrides).find("padded_rows") != std::string::npos;
      if (entry == Entry::kBatched && padded) continue;
      check_every_failure(c, session().queue(), ++seed, entry);
    }
}

TEST_CASE("a call creates its kernel objects before its first command", "[faults]") {
  // Calls on other threads hold kernel objects of the same programs, so that this call
  // finds their pools empty and creates one for each step and each undo step. Each of
  // its allocations fails in turn: the call fails with nothing enqueued, never part-way
  // (IPT_ROLLED_BACK).
  std::uint64_t seed = 3400, kernels_created = 0;
  const cl::Device device(session().device(), true);
  // Takes kernels of the program until its pool is empty (a take creates one): earlier
  // calls, of plans that launch one program several times, may have left it several.
  const auto drain = [&device](const rt::ProgramRef& program, ipt::planner::Family family,
                               std::vector<rt::PooledKernel>& held) {
    for (;;) {
      const std::uint64_t before = faults::count(faults::Site::kAllocation);
      held.emplace_back(program, ipt::planner::family_kernel(family), device);
      if (faults::count(faults::Site::kAllocation) != before) return;
    }
  };
  const auto hold_kernels = [&drain](const rt::PreparedPlan& prepared,
                                     std::vector<rt::PooledKernel>& held) {
    faults::arm({});  // counts the creations, fails none
    for (std::size_t i = 0; i < prepared.plan.steps.size(); ++i)
      drain(prepared.programs[i], prepared.plan.steps[i].family, held);
    for (std::size_t i = 0; i < prepared.plan.undo.size(); ++i)
      drain(prepared.undo_programs[i], prepared.plan.undo[i].family, held);
    faults::disarm();
  };
  for (const char* name : {"2.2", "padded, split into scratch", "on-chip 010! stage"})
    for (const Case& c : kCases) {
      if (std::string(c.name) != name) continue;
      INFO(c.name << ": " << c.rows << " x " << c.cols << ", elem_size " << c.elem_size);
      ipt::test::ScopedOverrides env(c.overrides);
      SteeredProbes resident(ipt::planner::ProbeGroups::kOne);
      FaultRun run(c, ++seed, session().queue(), Entry::kTranspose);
      REQUIRE(run.call({}, {}).status == IPT_SUCCESS);  // builds, prepares and keeps the plan
      const auto kept = run.kept_plan();
      REQUIRE(kept != nullptr);
      const rt::PreparedPlan* prepared = &kept->prepared;
      std::vector<rt::PooledKernel> held;
      held.reserve(1024);
      hold_kernels(*prepared, held);
      REQUIRE(run.call({}, {}).status == IPT_SUCCESS);
      const std::vector<const char*> allocations = faults::passed(faults::Site::kAllocation);
      for (const char* what : allocations) kernels_created += std::string(what) == "clCreateKernel";
      for (std::uint64_t k = 1; k <= allocations.size(); ++k) {
        INFO("allocation " << k << " of " << allocations.size()
                           << " fails: " << allocations[k - 1]);
        hold_kernels(*prepared, held);  // what the last call gave back
        const Outcome failed = run.call({}, {k});
        INFO(failed.message);
        CHECK(failed.status == CL_MEM_OBJECT_ALLOCATION_FAILURE);
        CHECK_FALSE(failed.event);
        CHECK(run.matrix().check_unchanged() == "");
      }
    }
  CHECK(kernels_created >= 6);
}

TEST_CASE("a quick return whose marker fails returns the error and no event", "[faults]") {
  // rows or cols 0: nothing to move, but the caller's event still comes from a marker.
  GuardedMatrix m(4, 5, 4, 3, 7, 3390);
  faults::arm({1});
  cl_event event = nullptr;
  const ipt_status status =
      ipt_transpose(session().queue(), m.buffer(), m.offset(), 0, 5, 0, nullptr, &event, 4);
  const std::uint64_t commands = faults::count(faults::Site::kEnqueue);
  faults::disarm();
  CHECK(status == IPT_OUT_OF_RESOURCES);
  CHECK(event == nullptr);
  CHECK(commands == 1);
  CHECK(m.check_unchanged() == "");
  REQUIRE(ipt_transpose(session().queue(), m.buffer(), m.offset(), 0, 5, 0, nullptr, &event, 4) ==
          IPT_SUCCESS);
  REQUIRE(event != nullptr);
  CHECK(clWaitForEvents(1, &event) == CL_SUCCESS);
  clReleaseEvent(event);
}

TEST_CASE("a call whose scratch cannot be kept succeeds and keeps none", "[faults]") {
  // Keeping scratch for the next call retains the call's last event after its last
  // command; when that fails the buffer is released instead, and the call stands.
  std::uint64_t seed = 3400;
  for (const char* name : {"2.2", "padded, split into scratch", "on-chip 010! stage"})
    for (const Case& c : kCases) {
      if (std::string(c.name) != name) continue;
      INFO(c.name << ": " << c.rows << " x " << c.cols << ", " << c.overrides);
      const ipt::test::ScopedOverrides env(c.overrides);
      SteeredProbes resident(ipt::planner::ProbeGroups::kOne);
      FaultRun run(c, ++seed, session().queue(), Entry::kTranspose);
      REQUIRE(run.call({}, {}).status == IPT_SUCCESS);
      const Outcome counted = run.call({}, {});
      const std::uint64_t keeps = faults::count(faults::Site::kKeep);
      CHECK(keeps >= 1);
      // What a call allocates when the call before kept its scratch.
      const std::uint64_t reusing = run.call({}, {}, false).allocations;
      CHECK(reusing < counted.allocations);
      for (std::uint64_t k = 1; k <= keeps; ++k) {
        INFO("keep " << k << " of " << keeps << " fails");
        const Outcome kept_none = run.call({}, {}, true, {}, {k});
        INFO(kept_none.message);
        CHECK(kept_none.status == IPT_SUCCESS);
        CHECK(kept_none.event);
        CHECK(run.check_done() == "");
        // The buffer it did not keep is allocated again by the next call.
        const Outcome next = run.call({}, {}, false);
        CHECK(next.status == IPT_SUCCESS);
        CHECK(next.allocations == reusing + 1);
        CHECK(run.check_done() == "");
      }
    }
}

TEST_CASE("a call whose program cannot be created or built enqueues nothing", "[faults]") {
  // Programs are built from source here (no disk cache), each time anew: the caches are
  // cleared before every call that fails.
  const ScopedEnv no_disk_cache("IPT_CACHE_DISABLE", "1");
  std::uint64_t seed = 3300;
  for (const char* name : {"2.2", "3.2"})
    for (const Case& c : kCases) {
      if (std::string(c.name) != name) continue;
      INFO(c.name << ": " << c.rows << " x " << c.cols << ", " << c.overrides);
      const ipt::test::ScopedOverrides env(c.overrides);
      SteeredProbes resident(ipt::planner::ProbeGroups::kOne);
      FaultRun run(c, ++seed, session().queue(), Entry::kTranspose);
      REQUIRE(ipt_clear_cache() == IPT_SUCCESS);
      std::uint64_t creations = 0, builds = 0;
      for (const auto& [site, what] : run.call({}, {}).sequence) {
        if (std::string(what) == "clCreateProgramWithSource") ++creations;
        if (std::string(what) == "clBuildProgram") ++builds;
      }
      REQUIRE(run.check_done() == "");
      CHECK(creations >= 2);  // a plan of several kernel families
      CHECK(builds == creations);
      // Programs build side by side, so which one fails is not fixed; each call fails as
      // a whole, before its first command, with the status of the failed OpenCL call.
      for (std::uint64_t k = 1; k <= builds; ++k) {
        INFO("build " << k << " of " << builds << " fails");
        REQUIRE(ipt_clear_cache() == IPT_SUCCESS);
        const Outcome failed = run.call({}, {}, true, {k});
        INFO(failed.message);
        CHECK(failed.status == IPT_OUT_OF_HOST_MEMORY);  // the driver's, not a compile error
        CHECK(failed.message.find("clBuildProgram") != std::string::npos);
        CHECK_FALSE(failed.event);
        CHECK(failed.commands == 0);
        CHECK(run.matrix().check_unchanged() == "");
        // The failure is not kept: the next call builds the program again.
        CHECK(run.call({}, {}, false).status == IPT_SUCCESS);
        CHECK(run.check_done() == "");
      }
      REQUIRE(ipt_clear_cache() == IPT_SUCCESS);
      std::vector<std::uint64_t> creating;  // the allocations that create programs
      std::uint64_t allocation = 0;
      for (const auto& [site, what] : run.call({}, {}).sequence)
        if (site == faults::Site::kAllocation && ++allocation &&
            std::string(what) == "clCreateProgramWithSource")
          creating.push_back(allocation);
      for (const std::uint64_t k : creating) {
        INFO("allocation " << k << " (a program's creation, or another beside it) fails");
        REQUIRE(ipt_clear_cache() == IPT_SUCCESS);
        const Outcome failed = run.call({}, {k});
        INFO(failed.message);
        CHECK(failed.status == CL_MEM_OBJECT_ALLOCATION_FAILURE);
        CHECK_FALSE(failed.event);
        CHECK(failed.commands == 0);
        CHECK(run.matrix().check_unchanged() == "");
        CHECK(run.call({}, {}, false).status == IPT_SUCCESS);
        CHECK(run.check_done() == "");
      }
    }
}

namespace {

// imatcopy's plans add restrides around the transposition, with buffer fills between
// kernels, and scale or conjugate in the last kernel, so that an undo gives back the
// caller's bytes exactly.
void check_imatcopy_failures(cl_command_queue queue, std::uint64_t seed) {
  using ipt::support::ImatcopyCall;
  const auto make = [](char ordering, char trans, std::size_t rows, std::size_t cols,
                       std::size_t lda, std::size_t ldb, ipt_scalar_type type,
                       std::size_t elem_size) {
    ImatcopyCall call;
    call.ordering = ordering;
    call.trans = trans;
    call.rows = rows;
    call.cols = cols;
    call.lda = lda;
    call.ldb = ldb;
    call.type = type;
    call.elem_size = elem_size;
    call.has_alpha = true;
    call.alpha_re = 0.915965594177219;  // full mantissas, as test_imatcopy.cpp's
    call.alpha_im = type == IPT_SCALAR_C32 || type == IPT_SCALAR_C64 ? -0.5671432904097838 : 0;
    return call;
  };
  const ImatcopyCall calls[] = {
      make('R', 'T', 96, 80, 83, 101, IPT_SCALAR_F32, 4),  // restride, transpose, spread
      make('C', 'C', 61, 64, 67, 64, IPT_SCALAR_C32, 8),   // conjugated, column-major
      make('R', 'R', 50, 40, 40, 47, IPT_SCALAR_C64, 16),  // no transposition: a restride
  };
  const ipt::test::ScopedOverrides env("local_mem=8192,onchip=off");
  for (const ImatcopyCall& call : calls) {
    INFO(call.text());
    const std::size_t offset = 3;
    const std::size_t bytes = (offset + call.extent() + 5) * call.elem_size;
    std::vector<unsigned char> before = ipt::support::random_bytes(bytes, ++seed);
    ipt::support::fill_numeric(call, offset, before, ++seed);
    std::vector<bool> specified;
    const auto expected = ipt::support::imatcopy_expected(call, offset, before, specified);
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session().context(), CL_MEM_READ_WRITE, bytes, nullptr, &code);
    REQUIRE(code == CL_SUCCESS);
    const auto contents = [&] {
      std::vector<unsigned char> now(bytes);
      REQUIRE(clEnqueueReadBuffer(session().queue(), buffer, CL_TRUE, 0, bytes, now.data(), 0,
                                  nullptr, nullptr) == CL_SUCCESS);
      return now;
    };
    const auto matches = [&](const std::vector<unsigned char>& now, bool outside_only) {
      for (std::size_t i = 0; i < bytes; ++i) {
        const bool outside =
            i < offset * call.elem_size || i >= (offset + call.extent()) * call.elem_size;
        if (outside_only ? outside && now[i] != before[i] : specified[i] && now[i] != expected[i])
          return false;
      }
      return true;
    };
    // What an undone call gives back: every element of A and every byte outside the
    // call's extent. The gaps between rows (and B's part beyond A) are the call's
    // workspace, unspecified after it as after a successful call (docs/imatcopy.md),
    // unless it neither transposes nor changes the stride.
    const bool keeps_gaps = !call.transposes() && call.lda == call.ldb;
    const auto undone = [&](const std::vector<unsigned char>& now) {
      const std::size_t rows = call.view_rows(), cols = call.view_cols();
      for (std::size_t i = 0; i < bytes; ++i) {
        const std::size_t element = i / call.elem_size;
        bool kept = element < offset || element >= offset + call.extent() || keeps_gaps;
        if (!kept) {
          const std::size_t e = element - offset;
          kept = e / call.lda < rows && e % call.lda < cols;  // an element of A
        }
        if (kept && now[i] != before[i]) return false;
      }
      return true;
    };
    // One call from the original bytes, with fresh scratch, the given failures armed.
    const auto run = [&](std::vector<std::uint64_t> enqueues,
                         std::vector<std::uint64_t> allocations, bool fresh_scratch = true,
                         std::vector<std::uint64_t> other_calls = {}) {
      REQUIRE(clEnqueueWriteBuffer(session().queue(), buffer, CL_TRUE, 0, bytes, before.data(), 0,
                                   nullptr, nullptr) == CL_SUCCESS);
      if (fresh_scratch) ipt::runtime::clear_scratch_cache();
      faults::arm(std::move(enqueues), std::move(allocations), std::move(other_calls));
      cl_event event = nullptr;
      Outcome outcome;
      // ipt_imatcopy itself (this binary links the library's objects, which the shared
      // reference helper would come after).
      const float f32 = static_cast<float>(call.alpha_re);
      const ipt_complex_f32 c32{static_cast<float>(call.alpha_re),
                                static_cast<float>(call.alpha_im)};
      const ipt_complex_f64 c64{call.alpha_re, call.alpha_im};
      const void* alpha = call.type == IPT_SCALAR_F32   ? static_cast<const void*>(&f32)
                          : call.type == IPT_SCALAR_C32 ? static_cast<const void*>(&c32)
                                                        : static_cast<const void*>(&c64);
      outcome.status =
          ipt_imatcopy(queue, call.ordering, call.trans, call.rows, call.cols, alpha, buffer,
                       offset, call.lda, call.ldb, 0, nullptr, &event, call.elem_size, call.type);
      outcome.message = ipt_last_error_message();
      outcome.commands = faults::count(faults::Site::kEnqueue);
      outcome.sequence = faults::sequence();
      faults::disarm();
      outcome.event = event != nullptr;
      if (event != nullptr) {
        CHECK(clWaitForEvents(1, &event) == CL_SUCCESS);
        clReleaseEvent(event);
      }
      CHECK(clFinish(queue) == CL_SUCCESS);
      return outcome;
    };
    REQUIRE(run({}, {}).status == IPT_SUCCESS);
    REQUIRE(run({}, {}).status == IPT_SUCCESS);
    const std::vector<const char*> commands = faults::passed(faults::Site::kEnqueue);
    const std::uint64_t allocations = faults::count(faults::Site::kAllocation);
    REQUIRE(matches(contents(), false));
    std::uint64_t first_kernel = 0;
    for (std::uint64_t k = 0; k < commands.size() && first_kernel == 0; ++k)
      if (std::string(commands[k]) == "clEnqueueNDRangeKernel") first_kernel = k + 1;
    REQUIRE(first_kernel > 0);
    for (std::uint64_t k = 1; k <= commands.size(); ++k) {
      INFO("command " << k << " of " << commands.size() << " (" << commands[k - 1] << ") fails");
      const Outcome failed = run({k}, {});
      INFO(failed.message);
      CHECK(failed.status == (k > first_kernel ? IPT_ROLLED_BACK : IPT_OUT_OF_RESOURCES));
      CHECK(failed.event == (k > first_kernel));
      if (k > first_kernel)
        CHECK(undone(contents()));
      else
        CHECK(contents() == before);                    // nothing ran
      CHECK(run({}, {}, false).status == IPT_SUCCESS);  // reusing what the failed call kept
      CHECK(matches(contents(), false));
      if (k <= first_kernel) continue;
      const std::uint64_t undo = failed.commands - k;
      CHECK(undo >= 1);
      for (std::uint64_t j = 1; j <= undo; ++j) {
        INFO("and undo command " << j << " of " << undo);
        const Outcome lost = run({k, k + j}, {});
        CHECK(lost.status == IPT_BUFFER_UNDEFINED);
        CHECK(matches(contents(), true));  // outside the extent: the caller's bytes
      }
    }
    for (std::uint64_t k = 1; k <= allocations; ++k) {
      INFO("allocation " << k << " of " << allocations << " fails");
      const Outcome failed = run({}, {k});
      INFO(failed.message);
      CHECK(failed.status == CL_MEM_OBJECT_ALLOCATION_FAILURE);
      CHECK_FALSE(failed.event);
      CHECK(contents() == before);
    }
    // Each other OpenCL call (clSetKernelArg) fails in turn: before the first kernel is
    // enqueued nothing has run; after it, the kernels enqueued are undone.
    std::vector<unsigned> kernels_before;
    unsigned seen = 0;
    for (const auto& [site, what] : run({}, {}).sequence) {
      if (site == faults::Site::kEnqueue && std::string(what) == "clEnqueueNDRangeKernel") ++seen;
      if (site == faults::Site::kCall) kernels_before.push_back(seen);
    }
    CHECK(kernels_before.size() >= 1);
    for (std::uint64_t k = 1; k <= kernels_before.size(); ++k) {
      INFO("call " << k << " of " << kernels_before.size() << " fails");
      REQUIRE(run({}, {}).status == IPT_SUCCESS);  // as the counted call found the kernels
      const Outcome failed = run({}, {}, true, {k});
      INFO(failed.message);
      CHECK(failed.status ==
            (kernels_before[k - 1] == 0 ? CL_OUT_OF_HOST_MEMORY : IPT_ROLLED_BACK));
      CHECK(failed.event == (kernels_before[k - 1] > 0));
      if (kernels_before[k - 1] > 0)
        CHECK(undone(contents()));
      else
        CHECK(contents() == before);
    }
    clReleaseMemObject(buffer);
  }
}

}  // namespace

TEST_CASE("imatcopy fails as safely at every command and allocation", "[faults][imatcopy]") {
  check_imatcopy_failures(session().queue(), 3500);
}

TEST_CASE("imatcopy on an out-of-order queue fails as safely", "[faults][imatcopy]") {
  const ipt::test::OutOfOrderQueue out_of_order;
  if (out_of_order.get() == nullptr) IPT_SKIP("the device has no out-of-order queues");
  cl_command_queue queue = out_of_order.get();
  check_imatcopy_failures(queue, 3550);
}

TEST_CASE("a call on an out-of-order queue that fails part-way is undone", "[faults]") {
  const ipt::test::OutOfOrderQueue out_of_order;
  // A device without out-of-order queues (PoCL has them); nothing to test there.
  if (out_of_order.get() == nullptr) IPT_SKIP("the device has no out-of-order queues");
  cl_command_queue queue = out_of_order.get();
  std::uint64_t seed = 3200;
  for (const char* name : {"3.2", "padded, split into scratch", "on-chip 010! stage"})
    for (const Case& c : kCases)
      if (std::string(c.name) == name) check_every_failure(c, queue, ++seed);
}

TEST_CASE("ipt_transpose_with_options and ipt_transpose_batched on an out-of-order queue",
          "[faults][sweep][large]") {
  const ipt::test::OutOfOrderQueue out_of_order;
  if (out_of_order.get() == nullptr) IPT_SKIP("the device has no out-of-order queues");
  cl_command_queue queue = out_of_order.get();
  std::uint64_t seed = 3600;
  for (const Entry entry : {Entry::kWithOptions, Entry::kBatched})
    for (const char* name : {"3.2", "padded, split into scratch", "on-chip 010! stage"})
      for (const Case& c : kCases)
        if (std::string(c.name) == name) check_every_failure(c, queue, ++seed, entry);
}
