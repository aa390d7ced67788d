// SPDX-License-Identifier: Apache-2.0
// Plans moved between offsets (planner/relocation.hpp): a plan found movable, moved to
// another offset of its class, is in every field the plan the planner makes there;
// padded plans and offsets whose indices pass 32 bits are never moved.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "helpers/test_profiles.hpp"
#include "planner/launch_plan.hpp"
#include "planner/relocation.hpp"

using namespace ipt::planner;

namespace {

// The first field in which two plans differ, in words; empty when they are the same.
std::string difference(const LaunchPlan& a, const LaunchPlan& b) {
  const auto region = [](const Region& r) { return std::tie(r.buffer, r.offset, r.bytes); };
  const auto move = [](const Move& m) {
    return std::tie(m.kind, m.I, m.A, m.B, m.C, m.rows, m.len, m.s_in, m.s_out, m.from, m.to,
                    m.from_at, m.to_at, m.count, m.base, m.split, m.tail_at);
  };
  const auto steps = [&](const std::vector<Step>& x, const std::vector<Step>& y,
                         const char* list) -> std::string {
    if (x.size() != y.size()) return std::string(list) + ": step counts";
    for (std::size_t s = 0; s < x.size(); ++s) {
      const Step& p = x[s];
      const Step& q = y[s];
      std::ostringstream at;
      at << list << " step " << s << " (" << p.what << "): ";
      if (std::tie(p.family, p.options, p.index64, p.unit_bytes, p.transformed, p.dims, p.global[0],
                   p.global[1], p.local[0], p.local[1], p.local_bytes, p.probed_launch,
                   p.groups_per_unit, p.touches, p.what) !=
          std::tie(q.family, q.options, q.index64, q.unit_bytes, q.transformed, q.dims, q.global[0],
                   q.global[1], q.local[0], q.local[1], q.local_bytes, q.probed_launch,
                   q.groups_per_unit, q.touches, q.what))
        return at.str() + "launch";
      if (region(p.flags) != region(q.flags) || region(p.zeroes) != region(q.zeroes) ||
          region(p.tail) != region(q.tail) || region(p.fill_before) != region(q.fill_before))
        return at.str() + "regions";
      if (move(p.move) != move(q.move)) return at.str() + "move";
      if (p.args.size() != q.args.size()) return at.str() + "argument count";
      for (std::size_t i = 0; i < p.args.size(); ++i)
        if (std::tie(p.args[i].kind, p.args[i].buffer, p.args[i].value) !=
            std::tie(q.args[i].kind, q.args[i].buffer, q.args[i].value))
          return at.str() + "argument " + std::to_string(i) + ": " +
                 std::to_string(p.args[i].value) + " against " + std::to_string(q.args[i].value);
    }
    return "";
  };
  if (describe(a) != describe(b)) return "descriptions:\n" + describe(a) + "\n" + describe(b);
  if (std::tie(a.elem_size, a.offset, a.scratch_bytes, a.zero_scratch_bytes, a.borrowed_bytes,
               a.split, a.part_matrices, a.transpose.batch) !=
      std::tie(b.elem_size, b.offset, b.scratch_bytes, b.zero_scratch_bytes, b.borrowed_bytes,
               b.split, b.part_matrices, b.transpose.batch))
    return "plan fields";
  if (region(a.fill) != region(b.fill) || region(a.split_tail) != region(b.split_tail))
    return "plan regions";
  for (const std::string& d : {steps(a.steps, b.steps, "steps"), steps(a.undo, b.undo, "undo"),
                               steps(a.avoided, b.avoided, "avoided")})
    if (!d.empty()) return d;
  return "";
}

LaunchPlan plan_at(const DeviceProfile& device, CallShape call, std::uint64_t offset) {
  call.offset = offset;
  return plan_call(device, call);
}

struct Case {
  std::uint64_t rows, cols;
  std::size_t elem_size;
  std::uint64_t batch;
};

}  // namespace

TEST_CASE("a plan moved to another offset of its class is the plan made there",
          "[planner][relocation]") {
  const std::vector<Case> cases = {
      {64, 100, 4, 1},     {64, 100, 1, 1},    {64, 100, 2, 1},     {97, 101, 8, 1},
      {300, 211, 4, 1},    {1000, 30, 4, 1},   {1080, 1920, 4, 1},  {1080, 1920, 1, 1},
      {2000, 3000, 4, 1},  {2000, 3000, 2, 1}, {768, 3072, 8, 1},   {1000, 1000, 4, 1},
      {1001, 1001, 4, 1},  {4099, 4099, 1, 1}, {93799, 10, 4, 1},   {10, 93799, 8, 1},
      {6762, 13709, 4, 1}, {7810, 7167, 8, 1}, {5997, 17556, 1, 1}, {9091, 6310, 16, 1},
      {64, 100, 4, 1000},  {33, 17, 2, 5000},  {120, 120, 4, 300},  {1, 5000, 4, 1}};
  const std::vector<std::pair<const char*, DeviceProfile>> devices = {
      {"nvidia", ipt::test::nvidia_like()},
      {"amd", ipt::test::amd_like()},
      {"cpu", ipt::test::cpu_like()}};
  std::size_t moved = 0;
  for (const auto& [name, device] : devices)
    for (const Case& c : cases)
      for (const std::uint64_t offset :
           {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{36}, std::uint64_t{4096 + 5}}) {
        const CallShape call{c.rows, c.cols, c.elem_size, offset, 0, c.batch};
        const std::uint64_t period = relocation_period(c.elem_size);
        CAPTURE(name, c.rows, c.cols, c.elem_size, c.batch, offset, period);
        const LaunchPlan at = plan_at(device, call, offset);
        const auto relocation = find_relocation(at, plan_at(device, call, offset + period),
                                                plan_at(device, call, offset + 2 * period), period);
        if (at.transpose.padded()) {
          CHECK_FALSE(relocation);
          continue;
        }
        REQUIRE(relocation);
        // Above and below the base, near it and far from it.
        for (const std::uint64_t periods : {3ull, 17ull, 1000ull, 100000ull}) {
          const std::uint64_t up = offset + periods * period;
          if (needs_index64(up, at.transpose.batch_elements())) {
            CHECK_FALSE(relocated(at, *relocation, up));
            continue;
          }
          const auto there = relocated(at, *relocation, up);
          REQUIRE(there);
          CHECK(difference(*there, plan_at(device, call, up)) == "");
          ++moved;
        }
        const LaunchPlan high = plan_at(device, call, offset + 20 * period);
        const auto from_high = find_relocation(high, plan_at(device, call, offset + 21 * period),
                                               plan_at(device, call, offset + 22 * period), period);
        REQUIRE(from_high);
        const auto down = relocated(high, *from_high, offset);
        REQUIRE(down);
        CHECK(difference(*down, at) == "");
        // Not to offsets of another class.
        CHECK_FALSE(relocated(at, *relocation, offset + period / 2 + 1));
      }
  CHECK(moved > 0);
}

TEST_CASE("a plan is not moved where its indices would pass 32 bits", "[planner][relocation]") {
  const DeviceProfile device = ipt::test::nvidia_like();
  const CallShape call{1000, 1000, 4, 64, 0, 1};
  const std::uint64_t period = relocation_period(4);
  const LaunchPlan at = plan_at(device, call, 64);
  const auto relocation = find_relocation(at, plan_at(device, call, 64 + period),
                                          plan_at(device, call, 64 + 2 * period), period);
  REQUIRE(relocation);
  // The last offset of the class whose indices stay 32-bit, and the next.
  std::uint64_t last = ((std::uint64_t{1} << 31) - 1000 * 1000 - 64) / period * period + 64;
  while (needs_index64(last, 1000 * 1000)) last -= period;
  REQUIRE(relocated(at, *relocation, last));
  CHECK(difference(*relocated(at, *relocation, last), plan_at(device, call, last)) == "");
  CHECK_FALSE(relocated(at, *relocation, last + period));
  // Nor to the start of the buffer, though it lies in the class.
  CHECK_FALSE(relocated(at, *relocation, 0));
  // Three plans that straddle the bound are not found movable.
  CHECK_FALSE(find_relocation(plan_at(device, call, last), plan_at(device, call, last + period),
                              plan_at(device, call, last + 2 * period), period));
}

TEST_CASE("plans of other calls, or not a period apart, are not found movable",
          "[planner][relocation]") {
  const DeviceProfile device = ipt::test::nvidia_like();
  const std::uint64_t period = relocation_period(4);
  const CallShape call{300, 211, 4, 0, 0, 1};
  const CallShape other{211, 300, 4, 0, 0, 1};
  CHECK_FALSE(find_relocation(plan_at(device, call, 5), plan_at(device, other, 5 + period),
                              plan_at(device, call, 5 + 2 * period), period));
  CHECK_FALSE(find_relocation(plan_at(device, call, 5), plan_at(device, call, 5 + period),
                              plan_at(device, call, 5 + 3 * period), period));
  CHECK(relocation_period(1) == 256);
  CHECK(relocation_period(8) == 32);
  CHECK(relocation_period(12) == 64);
}
