// SPDX-License-Identifier: Apache-2.0
// libipt_mpi's planner (mpi/plan): the block distribution and the exchange plan, for random
// rank counts, shapes and blocks, with no MPI: blocks that tile the matrix and its
// transpose in rank order, allocations that hold the padded block before and after,
// pieces that cover each chunk within the staging budget, the same exchange on every rank,
// and the cost model's choice at its extremes.
#include <catch2/catch.hpp>
#include <random>

#include "distribution.hpp"
#include "exchange_plan.hpp"
#include "helpers/test_seed.hpp"
#include "plan_check.hpp"

using ipt::mpi::Distribution;
using ipt::mpi::ExchangePlan;
using ipt::mpi::Scheme;
using ipt::mpi::Share;

TEST_CASE("mpi plan: blocks tile the matrix and its transpose in rank order", "[mpi][planner]") {
  std::mt19937_64 rng(ipt::test::seed(2029));
  for (int trial = 0; trial < 20000; ++trial) {
    const std::size_t P = 1 + rng() % 70, M = rng() % 400, N = rng() % 400;
    // Default blocks half the time, else blocks from one row to the whole matrix.
    const std::size_t b = rng() % 2 ? 0 : 1 + rng() % (M + 1),
                      c = rng() % 2 ? 0 : 1 + rng() % (N + 1);
    Distribution d;
    const std::string no = ipt::mpi::distribute(P, M, N, b, c, &d);
    const std::size_t bb = b != 0 ? b : std::max<std::size_t>((M + P - 1) / P, 1);
    const std::size_t cc = c != 0 ? c : std::max<std::size_t>((N + P - 1) / P, 1);
    const bool fits = (M + bb - 1) / bb <= P && (N + cc - 1) / cc <= P;
    INFO("P " << P << ", " << M << " x " << N << ", blocks " << b << " / " << c);
    REQUIRE(no.empty() == fits);
    if (!fits) continue;
    REQUIRE(d.block_rows == bb);
    REQUIRE(d.block_cols == cc);
    std::size_t next_row = 0, next_col = 0, active = 0;
    for (std::size_t r = 0; r < P; ++r) {
      const Share s = ipt::mpi::share_of(d, r);
      if (s.rows > 0) REQUIRE(s.row_start == next_row);
      if (s.cols > 0) REQUIRE(s.col_start == next_col);
      next_row += s.rows;
      next_col += s.cols;
      REQUIRE(s.rows <= bb);
      REQUIRE(s.cols <= cc);
      if (s.active) {
        ++active;
        // The padded block before (b x S c) and after (S b x c) fits the allocation.
        REQUIRE(s.alloc == d.active * bb * cc);
        REQUIRE(s.alloc >= s.rows * N);
        REQUIRE(s.alloc >= s.cols * M);
      } else if (M > 0 && N > 0) {  // an empty matrix: rows of no elements, nothing to do
        REQUIRE(s.rows == 0);
        REQUIRE(s.cols == 0);
        REQUIRE(s.alloc == 0);
      } else {
        REQUIRE(s.alloc == 0);
      }
    }
    REQUIRE(next_row == M);
    REQUIRE(next_col == N);
    REQUIRE(active == d.active);
    if (M > 0 && N > 0) {
      REQUIRE(ipt::mpi::share_of(d, 0).active);
      REQUIRE(d.active == std::max((M + bb - 1) / bb, (N + cc - 1) / cc));
    }
  }
}

TEST_CASE("mpi plan: pieces cover each chunk within the staging budget", "[mpi][planner]") {
  std::mt19937_64 rng(ipt::test::seed(2030));
  for (int trial = 0; trial < 20000; ++trial) {
    const std::size_t P = 1 + rng() % 64, M = 1 + rng() % 100000, N = 1 + rng() % 100000;
    const std::size_t e = std::size_t{1} << (rng() % 5), budget = 4096 + rng() % (64u << 20);
    const Scheme asked = static_cast<Scheme>(rng() % 3);
    Distribution d;
    REQUIRE(ipt::mpi::distribute(P, M, N, 0, 0, &d).empty());
    const ExchangePlan p =
        ipt::mpi::plan_exchange(d, e, static_cast<unsigned>(rng() % 4), budget, asked);
    INFO("P " << P << ", " << M << " x " << N << ", " << e << " bytes, budget " << budget);
    REQUIRE(p.scheme != Scheme::automatic);
    if (asked != Scheme::automatic) REQUIRE(p.scheme == asked);
    REQUIRE(p.chunk_bytes == d.block_rows * d.block_cols * e);
    REQUIRE(p.exchange_bytes == (d.active - 1) * p.chunk_bytes);
    REQUIRE(p.staging_bytes <= budget);
    if (d.active == 1) {
      REQUIRE(p.rounds == 0);
      continue;
    }
    REQUIRE(p.piece_bytes > 0);
    REQUIRE(p.piece_bytes <= p.chunk_bytes);
    REQUIRE(p.pieces * p.piece_bytes >= p.chunk_bytes);
    REQUIRE((p.pieces - 1) * p.piece_bytes < p.chunk_bytes);
    REQUIRE(p.piece_bytes <= (std::size_t{1} << 30));  // an MPI count
    if (p.scheme == Scheme::pairwise) {
      REQUIRE(p.rounds == (d.active - 1) * p.pieces);
      REQUIRE(p.staging_bytes == 6 * p.piece_bytes);
    } else {
      REQUIRE(p.rounds == p.pieces);
      REQUIRE(p.staging_bytes == 4 * (d.active - 1) * p.piece_bytes);
    }
    REQUIRE(p.seconds > 0);
  }
}

TEST_CASE("mpi plan: the cost model's choice at its extremes", "[mpi][planner]") {
  Distribution d;
  // Many ranks, tiny chunks: one collective beats 63 sequential swaps.
  REQUIRE(ipt::mpi::distribute(64, 640, 640, 0, 0, &d).empty());
  CHECK(ipt::mpi::plan_exchange(d, 4, 0, 16u << 20, Scheme::automatic).scheme == Scheme::alltoall);
  // Few ranks, large chunks: pairwise swaps of large pieces.
  REQUIRE(ipt::mpi::distribute(2, 20000, 20000, 0, 0, &d).empty());
  CHECK(ipt::mpi::plan_exchange(d, 4, 0, 16u << 20, Scheme::automatic).scheme == Scheme::pairwise);
  // Two ranks: the two schemes exchange the same pieces; pairwise is kept.
  REQUIRE(ipt::mpi::distribute(2, 64, 64, 0, 0, &d).empty());
  CHECK(ipt::mpi::plan_exchange(d, 4, 0, 16u << 20, Scheme::automatic).scheme == Scheme::pairwise);
}

TEST_CASE("mpi plan: the all-to-all scheme needs a byte of staging per piece and partner",
          "[mpi][planner]") {
  Distribution d;
  REQUIRE(ipt::mpi::distribute(1100, 2200, 2200, 0, 0, &d).empty());
  // 4 (S - 1) = 4396 bytes of staging would be pieces of one byte; 4096 cannot.
  const ExchangePlan forced = ipt::mpi::plan_exchange(d, 4, 0, 4096, Scheme::alltoall);
  CHECK_FALSE(forced.feasible);
  const ExchangePlan chosen = ipt::mpi::plan_exchange(d, 4, 0, 4096, Scheme::automatic);
  CHECK(chosen.feasible);
  CHECK(chosen.scheme == Scheme::pairwise);
  CHECK(chosen.staging_bytes <= 4096);
  CHECK(ipt::mpi::plan_exchange(d, 4, 0, 4396, Scheme::alltoall).feasible);
}

TEST_CASE("mpi plan: overflowing blocks are refused as overflow", "[mpi][planner]") {
  Distribution d;
  bool overflow = false;
  const std::size_t huge = std::size_t{1} << 40;
  CHECK_FALSE(ipt::mpi::distribute(2, huge, huge, 0, 0, &d, &overflow).empty());
  CHECK(overflow);
  CHECK_FALSE(ipt::mpi::distribute(2, 10, 10, 3, 0, &d, &overflow).empty());  // rows uncovered
  CHECK_FALSE(overflow);
}

TEST_CASE("mpi plan: check_plan refuses what the call refuses, and plans the rest",
          "[mpi][planner]") {
  using ipt::mpi::PlanRequest;
  using ipt::mpi::Refusal;
  const auto request = [](std::size_t ranks, std::size_t rows, std::size_t cols) {
    PlanRequest r;
    r.ranks = ranks;
    r.rows = rows;
    r.cols = cols;
    r.elem_size = 4;
    r.staging = 16u << 20;
    return r;
  };
  const auto refusal = [](const PlanRequest& r) { return ipt::mpi::check_plan(r).refusal; };

  PlanRequest r = request(3, 80, 77);
  const ipt::mpi::PlanVerdict good = ipt::mpi::check_plan(r);
  REQUIRE(good.refusal == Refusal::none);
  CHECK(good.why.empty());
  Distribution d;
  REQUIRE(ipt::mpi::distribute(3, 80, 77, 0, 0, &d).empty());
  CHECK(good.distribution.alloc == d.alloc);
  CHECK(good.plan.chunk_bytes ==
        ipt::mpi::plan_exchange(d, 4, 0, 16u << 20, Scheme::automatic).chunk_bytes);

  for (const std::size_t e : {0, 3, 5, 32}) {
    r = request(3, 80, 77);
    r.elem_size = e;
    CHECK(refusal(r) == Refusal::element_size);
  }
  r = request(3, 80, 77);
  r.flags = 4;
  CHECK(refusal(r) == Refusal::value);
  r = request(3, 80, 77);
  r.flags = ipt::mpi::kKnownFlags;
  CHECK(refusal(r) == Refusal::none);
  for (const int scheme : {-1, 3, 100}) {
    r = request(3, 80, 77);
    r.scheme = scheme;
    CHECK(refusal(r) == Refusal::value);
  }
  r = request(3, 80, 77);
  r.block_rows = 10;  // 3 ranks of 10 rows leave 50 rows to none
  CHECK(refusal(r) == Refusal::value);
  const std::size_t huge = std::size_t{1} << 40;
  CHECK(refusal(request(2, huge, huge)) == Refusal::overflow);
  // The elements of the padded block fit size_t, its bytes do not.
  r = request(1, std::size_t{1} << 31, std::size_t{1} << 31);
  r.elem_size = 16;
  CHECK(refusal(r) == Refusal::overflow);
  r.elem_size = 1;
  CHECK(refusal(r) == Refusal::none);
  // The staging budget is clamped as the call clamps it: 10 bytes are 4096, too few for
  // the all-to-all scheme on 1100 ranks, and 4396 are enough.
  r = request(1100, 2200, 2200);
  r.scheme = static_cast<int>(Scheme::alltoall);
  r.staging = 10;
  CHECK(refusal(r) == Refusal::value);
  r.staging = 4396;
  CHECK(refusal(r) == Refusal::none);
  CHECK(ipt::mpi::clamp_staging(0) == ipt::mpi::kMinStaging);
  CHECK(ipt::mpi::clamp_staging(std::size_t{1} << 40) == ipt::mpi::kMaxStaging);
}
