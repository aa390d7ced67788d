// SPDX-License-Identifier: Apache-2.0
// The transposition planner without a device: divisors, the paper's cases, skinny shapes,
// primes, forced plans, and invariants over a million random shapes.
#include <catch2/catch.hpp>
#include <random>

#include "helpers/test_seed.hpp"
#include "planner/cost_model.hpp"
#include "planner/families/bs.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/transpose_plan.hpp"

using namespace ipt::planner;

namespace {

DeviceProfile gpu48() {  // an NVIDIA-like device: 48 KiB, 1024 work-items, 32 lanes
  DeviceProfile d;
  d.local_mem_bytes = 48 * 1024;
  d.max_work_group_size = 1024;
  d.simd_width = 32;
  return d;
}

DeviceProfile amd32() {  // an AMD-like device: 32 KiB, 256 work-items, 64 lanes
  DeviceProfile d;
  d.local_mem_bytes = 32 * 1024;
  d.max_work_group_size = 256;
  d.simd_width = 64;
  return d;
}

// Every stage permutes the whole matrix, factors divide, BS tiles fit local memory.
void check_invariants(const DeviceProfile& device, const TransposePlan& plan, std::size_t elem) {
  INFO(describe(plan));
  const std::uint64_t total = plan.padded_rows * plan.padded_cols;
  CHECK(plan.padded_rows >= plan.rows);
  CHECK(plan.padded_cols >= plan.cols);
  CHECK(plan.padded_rows % plan.m == 0);
  CHECK(plan.padded_cols % plan.n == 0);
  for (const Stage& s : plan.stages) {
    CHECK(s.I * s.A * s.B * s.C == total);
    if (s.kind == Stage::Kind::k010) CHECK(bs_fits(device, s.B, s.C, elem));
  }
  CHECK((plan.sequence == Sequence::kSquare) == plan.stages.empty());
  CHECK((plan.sequence == Sequence::kSquare) == (plan.padded_rows == plan.padded_cols));
}

constexpr std::uint64_t kRoom = ~std::uint64_t{0};  // a buffer with room for any padding

}  // namespace

TEST_CASE("divisors", "[planner]") {
  CHECK(divisors(1) == std::vector<std::uint64_t>{1});
  CHECK(divisors(12) == std::vector<std::uint64_t>{1, 2, 3, 4, 6, 12});
  CHECK(divisors(49) == std::vector<std::uint64_t>{1, 7, 49});
  CHECK(divisors(97) == std::vector<std::uint64_t>{1, 97});
  CHECK(divisors(7200).size() == 54);
}

TEST_CASE("the paper's shapes take 3-stage sequences with their factors", "[planner]") {
  const auto device = gpu48();
  const auto p = plan_transpose(device, 7200, 1800, 4);
  check_invariants(device, p, 4);
  CHECK((p.sequence == Sequence::k31 || p.sequence == Sequence::k32));
  CHECK(p.m >= 4);
  CHECK(p.n >= 4);
  CHECK(p.sequence == (p.m < p.n ? Sequence::k31 : Sequence::k32));
  // 6204 x 6608 (the padded 6203 x 6607 of TPDS): factors of both sides.
  const auto q = plan_transpose(device, 6204, 6608, 4);
  check_invariants(device, q, 4);
  CHECK(q.stages.size() == 3);
  CHECK(6204 % q.m == 0);
  CHECK(6608 % q.n == 0);
}

TEST_CASE("skinny AoS <-> SoA shapes take 2-stage sequences", "[planner]") {
  for (const auto& device : {gpu48(), amd32()}) {
    for (std::uint64_t k : {2, 3, 4, 7, 16, 31}) {
      const auto aos = plan_transpose(device, 100000, k, 4);  // AoS -> SoA
      check_invariants(device, aos, 4);
      CHECK(aos.sequence == Sequence::k21);
      CHECK(aos.m > 100);  // a long row block: large 100! super-elements
      const auto soa = plan_transpose(device, k, 100000, 4);  // SoA -> AoS
      check_invariants(device, soa, 4);
      CHECK(soa.sequence == Sequence::k22);
      CHECK(soa.n > 100);
    }
  }
}

TEST_CASE("prime sides: one BS tile when the matrix fits, else one-stage", "[planner]") {
  const auto device = gpu48();
  // The whole matrix fits local memory: 2.1 with m = rows is a single BS tile.
  for (auto [r, c] :
       {std::pair<std::uint64_t, std::uint64_t>{97, 89}, {1, 1000}, {1000, 1}, {2, 3}}) {
    const auto p = plan_transpose(device, r, c, 4);
    check_invariants(device, p, 4);
    INFO(describe(p));
    CHECK((p.sequence == Sequence::k21 || p.sequence == Sequence::k22));
  }
  // Large primes without room to pad: no factor fits, so one-stage.
  for (auto [r, c] :
       {std::pair<std::uint64_t, std::uint64_t>{6203, 6607}, {10007, 3}, {3, 10007}}) {
    const auto p = plan_transpose(device, r, c, 4);
    check_invariants(device, p, 4);
    INFO(describe(p));
    CHECK(p.sequence == Sequence::kOneStage);
    CHECK(!p.padded());
  }
  CHECK(plan_transpose(device, 1000, 1000, 4).sequence == Sequence::kSquare);
}

TEST_CASE("padding: TPDS's 6203 x 6607 and prime sides", "[planner][padding]") {
  const auto device = gpu48();
  // TPDS §6.2: 6203 x 6607 (both prime) is padded to 6204 x 6608, and m, n come from
  // their factors.
  const auto p = plan_transpose(device, 6203, 6607, 4, {}, {}, kRoom);
  INFO(describe(p));
  check_invariants(device, p, 4);
  CHECK(p.padded_rows == 6204);
  CHECK(p.padded_cols == 6608);
  CHECK((p.sequence == Sequence::k31 || p.sequence == Sequence::k32));
  CHECK(p.m >= 24);
  CHECK(p.n >= 24);
  // Only as much room as the matrix, or padding off: no padding.
  CHECK(!plan_transpose(device, 6203, 6607, 4, {}, {}, 6203 * 6607).padded());
  PlanRequest off;
  off.padding = Padding::kOff;
  CHECK(!plan_transpose(device, 6203, 6607, 4, off, {}, kRoom).padded());
  // Room for one extra column but not a row: whatever is planned fits.
  const auto q = plan_transpose(device, 6203, 6607, 4, {}, {}, 6203 * 6608);
  CHECK(q.padded_elements() <= 6203u * 6608u);
  // Well-factored shapes are not padded.
  for (auto [r, c] : {std::pair<std::uint64_t, std::uint64_t>{7200, 1800},
                      {4096, 8192},
                      {1000, 3000},
                      {100000, 16}}) {
    const auto w = plan_transpose(device, r, c, 4, {}, {}, kRoom);
    INFO(describe(w));
    CHECK(!w.padded());
  }
  // A near-square prime pads to a square.
  const auto sq = plan_transpose(device, 9973, 9974, 4, {}, {}, kRoom);
  INFO(describe(sq));
  CHECK(sq.sequence == Sequence::kSquare);
  CHECK(sq.padded_rows == 9974);
}

TEST_CASE("padding: unpads cost little, pads of narrow elements more", "[planner][padding]") {
  // The cost model's restride curve: long rows closed up near 90% of copy, spread as fast
  // for 4-byte and wider elements, at about half of that for 1- and 2-byte ones.
  CHECK(restride_efficiency(16384, 4, false) == Approx(0.9));
  CHECK(restride_efficiency(16384, 4, true) == Approx(0.9));
  CHECK(restride_efficiency(16384, 1, false) == Approx(0.9));
  CHECK(restride_efficiency(16384, 1, true) < 0.5);
  CHECK(restride_efficiency(16384, 2, true) < 0.6);
  CHECK(restride_efficiency(40, 4, false) == Approx(0.25));
  // So an NVIDIA-like device pads floats whose only factors give super-elements of 29
  // (116 bytes) to a shape with super-elements of whole lines, and closes up the rows of
  // a padded u8 prime shape instead of spreading them (both measured faster on an H200).
  DeviceProfile device = gpu48();
  device.local_mem_per_unit = 228 * 1024;
  device.compute_units = 132;
  device.line_bytes = 128;
  device.resident_groups = true;
  const auto floats = plan_transpose(device, 12311, 19169, 4, {}, {}, kRoom);
  INFO(describe(floats));
  CHECK(floats.padded());
  for (const Stage& st : floats.stages)
    if (st.kind == Stage::Kind::k0100) CHECK(st.C * 4 % 128 == 0);
  const auto bytes = plan_transpose(device, 12297, 17213, 1, {}, {}, kRoom);
  INFO(describe(bytes));
  CHECK(bytes.padded());
  CHECK(bytes.padded_cols == 17213);
}

TEST_CASE("padding: a 2.2 plan padding columns pays for its on-chip rows off lines",
          "[planner][padding]") {
  // A prime x prime shape on an NVIDIA-like device, its 2.2 plan padding columns forced:
  // its on-chip 010! stores rows of 13249 floats, which do not fill whole lines.
  DeviceProfile device = gpu48();
  device.local_mem_per_unit = 228 * 1024;
  device.compute_units = 132;
  device.resident_groups = true;
  device.line_bytes = 128;
  // Lines of 4 bytes, which every row fills; the 100!'s super-elements of 256 floats fill
  // lines of either size, so that only the term differs.
  DeviceProfile short_lines = device;
  short_lines.line_bytes = 4;
  PlanRequest r;
  r.auto_sequence = false;
  r.sequence = Sequence::k22;
  r.padded_cols = 15360;
  r.n = 256;
  const auto p = plan_transpose(device, 13249, 15349, 4, r, {}, kRoom);
  INFO(describe(p));
  REQUIRE(p.padded_cols == 15360);
  bool onchip = false;
  for (const Stage& s : p.stages) onchip = onchip || s.onchip;
  REQUIRE(onchip);
  const double scale = 13249.0 * 15360.0 / (13249.0 * 15349.0);
  CHECK(estimated_cost(device, p, 4) - estimated_cost(short_lines, p, 4) == Approx(0.1 * scale));
  // Rows that fill whole lines (13248 floats) pay nothing more.
  const auto q = plan_transpose(device, 13248, 15349, 4, r, {}, kRoom);
  INFO(describe(q));
  CHECK(estimated_cost(device, q, 4) == Approx(estimated_cost(short_lines, q, 4)));
  // Only 4-byte elements were timed so: doubles pay nothing more.
  const auto d = plan_transpose(device, 13249, 15349, 8, r, {}, kRoom);
  INFO(describe(d));
  CHECK(estimated_cost(device, d, 8) == Approx(estimated_cost(short_lines, d, 8)));
  // Nor were matrices of 64-bit indices: 90001 x 100003 floats pay nothing more.
  r.padded_cols = 100032;
  r.n = 64;
  const auto large = plan_transpose(device, 90001, 100003, 4, r, {}, kRoom);
  INFO(describe(large));
  REQUIRE(large.padded_cols == 100032);
  CHECK(estimated_cost(device, large, 4) == Approx(estimated_cost(short_lines, large, 4)));
}

TEST_CASE("padding: skinny shapes pad only the long side, keep 2 stages", "[planner][padding]") {
  for (const auto& device : {gpu48(), amd32()}) {
    for (std::uint64_t k : {2, 3, 5, 7, 17, 31}) {
      for (std::uint64_t prime : {10007u, 100003u, 1000003u}) {
        const auto aos = plan_transpose(device, prime, k, 4, {}, {}, kRoom);
        INFO(describe(aos));
        check_invariants(device, aos, 4);
        CHECK(aos.sequence == Sequence::k21);
        CHECK(aos.padded_cols == k);
        CHECK(aos.padded_rows > prime);
        CHECK(aos.padded_rows - prime <= prime / 200);
        const auto soa = plan_transpose(device, k, prime, 4, {}, {}, kRoom);
        INFO(describe(soa));
        check_invariants(device, soa, 4);
        CHECK(soa.sequence == Sequence::k22);
        CHECK(soa.padded_rows == k);
        CHECK(soa.padded_cols > prime);
      }
    }
  }
}

TEST_CASE("padding: a forced padded shape", "[planner][padding]") {
  const auto device = gpu48();
  PlanRequest r;
  r.padded_rows = 362;
  r.padded_cols = 241;
  auto p = plan_transpose(device, 360, 240, 4, r, {}, kRoom);
  CHECK(p.padded_rows == 362);
  CHECK(p.padded_cols == 241);
  check_invariants(device, p, 4);
  r.auto_sequence = false;
  r.sequence = Sequence::k32;
  r.padded_cols = 242;
  r.m = 2;
  r.n = 11;
  p = plan_transpose(device, 360, 240, 4, r, {}, kRoom);
  CHECK(p.sequence == Sequence::k32);
  CHECK(p.m == 2);
  CHECK(p.n == 11);
  check_invariants(device, p, 4);
  CHECK_THROWS_AS(plan_transpose(device, 360, 240, 4, r, {}, 362 * 241), std::length_error);
  r.padded_rows = 359;
  CHECK_THROWS_AS(plan_transpose(device, 360, 240, 4, r, {}, kRoom), std::invalid_argument);
  r.padded_rows = 362;
  r.padding = Padding::kOff;
  CHECK_THROWS_AS(plan_transpose(device, 360, 240, 4, r, {}, kRoom), std::invalid_argument);
}

TEST_CASE("forced plans are honoured or refused", "[planner]") {
  const auto device = gpu48();
  PlanRequest r;
  r.auto_sequence = false;
  for (Sequence s : {Sequence::kOneStage, Sequence::k21, Sequence::k22, Sequence::k31,
                     Sequence::k32, Sequence::k41, Sequence::k42}) {
    r.sequence = s;
    const auto p = plan_transpose(device, 360, 240, 8, r);
    CHECK(p.sequence == s);
    check_invariants(device, p, 8);
  }
  r.sequence = Sequence::k31;
  r.m = 12;
  r.n = 10;
  const auto p = plan_transpose(device, 360, 240, 8, r);
  CHECK(p.m == 12);
  CHECK(p.n == 10);
  r.m = 7;  // does not divide 360
  CHECK_THROWS_AS(plan_transpose(device, 360, 240, 8, r), std::invalid_argument);
  r.m = 360;
  r.n = 240;  // 360 x 240 doubles do not fit 48 KiB
  CHECK_THROWS_AS(plan_transpose(device, 360, 240, 8, r), std::invalid_argument);
  r = PlanRequest{};
  r.auto_sequence = false;
  r.sequence = Sequence::kSquare;
  CHECK_THROWS_AS(plan_transpose(device, 360, 240, 8, r), std::invalid_argument);
  r.sequence = Sequence::k21;
  CHECK_THROWS_AS(plan_transpose(device, 360, 100000, 4, r), std::invalid_argument);
}

TEST_CASE("plan invariants over a million random shapes", "[planner]") {
  IPT_TEST_SEED(seed, 2015);
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::uint64_t> side(1, 20000);
  const DeviceProfile devices[] = {gpu48(), amd32()};
  std::size_t counts[6] = {};
  for (int i = 0; i < 1000000; ++i) {
    const DeviceProfile& device = devices[i % 2];
    const std::size_t elem = std::size_t{1} << (i % 5);
    const std::uint64_t rows = side(random),
                        cols = i % 3 == 0 ? 1 + side(random) % 32 : side(random);
    const auto plan = plan_transpose(device, rows, cols, elem);
    ++counts[static_cast<int>(plan.sequence)];
    // Checked directly (not through check_invariants) to keep a million cases fast.
    bool ok = rows % plan.m == 0 && cols % plan.n == 0 &&
              (plan.sequence == Sequence::kSquare) == (rows == cols);
    for (const Stage& s : plan.stages) {
      ok = ok && s.I * s.A * s.B * s.C == rows * cols;
      if (s.kind == Stage::Kind::k010) ok = ok && bs_fits(device, s.B, s.C, elem);
    }
    if (!ok) {
      INFO(describe(plan) << " elem " << elem);
      FAIL("invariant broken");
    }
  }
  for (int s = 0; s < 6; ++s) CHECK(counts[s] > 0);  // every sequence occurs
}

TEST_CASE("padded plan invariants over random shapes", "[planner][padding]") {
  IPT_TEST_SEED(seed, 2016);
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::uint64_t> side(1, 20000);
  const DeviceProfile devices[] = {gpu48(), amd32()};
  int one_stage_large = 0, padded = 0;
  for (int i = 0; i < 100000; ++i) {
    const DeviceProfile& device = devices[i % 2];
    const std::size_t elem = std::size_t{1} << (i % 5);
    const std::uint64_t rows = side(random),
                        cols = i % 3 == 0 ? 1 + side(random) % 32 : side(random);
    const auto plan = plan_transpose(device, rows, cols, elem, {}, {}, kRoom);
    const std::uint64_t M2 = plan.padded_rows, N2 = plan.padded_cols;
    bool ok = M2 >= rows && N2 >= cols && M2 % plan.m == 0 && N2 % plan.n == 0 &&
              (M2 * N2 - rows * cols) * 200 <= rows * cols &&  // at most 0.5% more
              (plan.sequence == Sequence::kSquare) == (M2 == N2);
    for (const Stage& s : plan.stages) {
      ok = ok && s.I * s.A * s.B * s.C == M2 * N2;
      if (s.kind == Stage::Kind::k010) ok = ok && bs_fits(device, s.B, s.C, elem);
    }
    if (!ok) {
      INFO(describe(plan) << " elem " << elem);
      FAIL("invariant broken");
    }
    padded += plan.padded();
    one_stage_large += plan.sequence == Sequence::kOneStage && rows >= 1000 && cols >= 1000;
  }
  CHECK(padded > 1000);
  // With sides of 1000 and more, 0.5% leaves room for 5 rows and columns: some factor
  // always turns up, and the one-stage plan (about 1% of the copy bandwidth) is gone.
  CHECK(one_stage_large == 0);
}

TEST_CASE("with a cache line size, super-elements of whole lines are preferred", "[planner]") {
  DeviceProfile lines = gpu48();
  lines.line_bytes = 128;
  const DeviceProfile tpds = gpu48();  // no line size: TPDS's plans (the cases above)
  // The model: whole lines run faster than straddling ones of the same size, and a
  // profile without a line size never counts a super-element as aligned.
  for (std::uint64_t bytes : {128, 256, 384, 512, 1024})
    CHECK(soa_efficiency(bytes, true) > soa_efficiency(bytes, false));
  CHECK(line_aligned(lines, 256));
  CHECK_FALSE(line_aligned(lines, 260));
  CHECK_FALSE(line_aligned(tpds, 256));

  // 6203 x 6607 (both prime): padded within the 0.5% budget to sides whose factors are
  // whole lines of floats (multiples of 32), where TPDS pads to 6204 x 6608.
  const auto p = plan_transpose(lines, 6203, 6607, 4, {}, {}, kRoom);
  INFO(describe(p));
  check_invariants(lines, p, 4);
  CHECK(p.padded_rows % 32 == 0);
  CHECK(p.padded_cols % 32 == 0);
  CHECK(p.m % 32 == 0);
  CHECK(p.n % 32 == 0);
  CHECK(p.padded_elements() - 6203u * 6607u <= 6203u * 6607u / 200);
  const auto q = plan_transpose(tpds, 6203, 6607, 4, {}, {}, kRoom);
  CHECK(estimated_cost(lines, p, 4) < estimated_cost(lines, q, 4));

  // 10000 x 8000 needs no padding; among its factor pairs one of whole lines wins (100 x
  // 100 straddles lines: 400-byte super-elements).
  const auto w = plan_transpose(lines, 10000, 8000, 4, {}, {}, kRoom);
  INFO(describe(w));
  CHECK_FALSE(w.padded());
  CHECK((w.m % 32 == 0 || w.n % 32 == 0));
  // In f64 a line is 16 elements.
  const auto d = plan_transpose(lines, 6203, 6607, 8, {}, {}, kRoom);
  INFO(describe(d));
  check_invariants(lines, d, 8);
  CHECK((d.m % 16 == 0 || d.n % 16 == 0));
  CHECK(d.padded_elements() - 6203u * 6607u <= 6203u * 6607u / 200);

  // Random shapes keep every invariant and the padding budget with a line size.
  IPT_TEST_SEED(seed, 21);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> side(1000, 20000);
  for (int i = 0; i < 300; ++i) {
    const std::uint64_t r = side(rng), c = side(rng);
    for (std::size_t elem : {4, 8}) {
      const auto plan = plan_transpose(lines, r, c, elem, {}, {}, kRoom);
      check_invariants(lines, plan, elem);
      CHECK(plan.padded_elements() - r * c <= r * c / 200);
    }
  }
}
