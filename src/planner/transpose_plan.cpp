// SPDX-License-Identifier: Apache-2.0
#include "planner/transpose_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "planner/cost_model.hpp"
#include "planner/families/bs.hpp"
#include "planner/families/onchip.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/padding_plan.hpp"
#include "planner/work_limits.hpp"

namespace ipt::planner {
namespace {

using Kind = Stage::Kind;

Stage stage(Kind kind, std::uint64_t I, std::uint64_t A, std::uint64_t B, std::uint64_t C) {
  Stage s;
  s.kind = kind;
  s.I = I;
  s.A = A;
  s.B = B;
  s.C = C;
  return s;
}

void fill_stages(TransposePlan& plan) {
  const std::uint64_t M = plan.padded_rows, N = plan.padded_cols, m = plan.m, n = plan.n;
  const std::uint64_t Mp = M / m, Np = N / n;
  switch (plan.sequence) {
    case Sequence::kSquare:
      plan.stages.clear();
      break;
    case Sequence::kOneStage:
      plan.stages = {stage(Kind::k0100, 1, M, N, 1)};
      break;
    case Sequence::k21:
      plan.stages = {stage(Kind::k010, 1, Mp, m, N), stage(Kind::k0100, 1, Mp, N, m)};
      break;
    case Sequence::k22:
      plan.stages = {stage(Kind::k0100, 1, M, Np, n), stage(Kind::k010, 1, Np, M, n)};
      break;
    case Sequence::k31:
      plan.stages = {stage(Kind::k0100, 1, M, Np, n), stage(Kind::k010, 1, Np * Mp, m, n),
                     stage(Kind::k0100, Np, Mp, n, m)};
      break;
    case Sequence::k32:
      plan.stages = {stage(Kind::k0100, Mp, m, Np, n), stage(Kind::k010, 1, Mp * Np, m, n),
                     stage(Kind::k0100, 1, Mp, N, m)};
      break;
    case Sequence::k41:
      plan.stages = {stage(Kind::k0100, Mp, m, Np, n), stage(Kind::k010, 1, Mp * Np, m, n),
                     stage(Kind::k0100, 1, Mp, Np, n * m), stage(Kind::k0100, Np, Mp, n, m)};
      break;
    case Sequence::k42:
      plan.stages = {stage(Kind::k0100, Mp, m, Np, n), stage(Kind::k0100, 1, Mp, Np, m * n),
                     stage(Kind::k010, 1, Np * Mp, m, n), stage(Kind::k0100, Np, Mp, n, m)};
      break;
  }
}

[[noreturn]] void refuse(const std::string& why) { throw std::invalid_argument(why); }

// The largest divisor f >= min_factor of `side` for which fits(f) holds, or 0.
template <typename Fits>
std::uint64_t largest_factor(std::uint64_t side, std::uint64_t min_factor, Fits fits) {
  const auto all = divisors(side);
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (*it >= min_factor && fits(*it)) return *it;
  return 0;
}

struct Pair {
  std::uint64_t m = 0, n = 0;
};

// Among eligible factor pairs whose m x n tile fits, the one whose two 100! stages (one
// with super-elements of n, one of m) the cost model expects to be fastest, then the
// larger tile (TPDS Algorithm 2's eligibility; its occupancy weighting preferred small
// tiles, whose short super-elements move slowly on a GPU of long cache lines). Without a
// cache line size the model only grows with the super-element, so the pick is close to
// "the largest smaller factor"; with one, a factor of whole lines (64 x 64 floats:
// 256-byte super-elements at 67-72% of copy) can beat a larger one that straddles lines
// (86 x 93: 62%).
Pair best_pair(const DeviceProfile& device, std::uint64_t M, std::uint64_t N, std::size_t elem_size,
               const FactorLimits& limits) {
  // Each factor's stage cost once (not once per pair: the model interpolates in log2, and
  // padding plans this for every candidate shape).
  const auto eligible = [&](std::uint64_t side) {
    std::vector<std::pair<std::uint64_t, double>> factors;
    for (std::uint64_t f : divisors(side))
      if (f >= limits.min_factor && f != side)
        factors.emplace_back(f, 1.0 / soa_stage_efficiency(device, f, elem_size));
    return factors;
  };
  const auto ms = eligible(M), ns = eligible(N);
  Pair best;
  double best_cost = 0;
  std::uint64_t best_tile = 0;
  for (const auto& [m, m_cost] : ms) {
    for (const auto& [n, n_cost] : ns) {
      if (!bs_fits(device, m, n, elem_size)) continue;
      const double cost = m_cost + n_cost;
      const std::uint64_t tile = m * n;
      if (best.m == 0 || cost < best_cost - 1e-9 || (cost < best_cost + 1e-9 && tile > best_tile)) {
        best = {m, n};
        best_cost = cost;
        best_tile = tile;
      }
    }
  }
  return best;
}

// 010! stages whose tiles a work-group's local memory cannot hold, but the device's
// registers can, run on chip (Stage::onchip) unless the request rules it out, and as long
// as the kernel's 32-bit instance counter counts the instances.
void mark_onchip_stages(const DeviceProfile& device, TransposePlan& plan, std::size_t elem_size,
                        const PlanRequest& request) {
  const OnChipConfig config = choose_onchip(device, elem_size, request.onchip_tiles);
  for (Stage& s : plan.stages)
    s.onchip = request.onchip != OnChip::kOff && s.kind == Kind::k010 && !s.identity() &&
               !bs_fits(device, s.B, s.C, elem_size) && onchip_fits(config, s.B, s.C) &&
               s.I * s.A <= UINT32_MAX;
}

// The cost by which plans of one matrix are ranked against each other: estimated_cost,
// which rates 1- and 2-byte elements on chip as floats, plus what their on-chip stages
// that cannot move blocks take beyond that (onchip_cost_without_blocks). So a plan that
// pads rows for blocks weighs its unpad pass against word tiles: on an H200, the 87 of
// the random protocol's 300 u8 shapes whose plans this changed (85 now pad, by 1 to 93
// rows) ran in a median of 0.87 of the time (p10 0.76, p90 0.96; 4 slower, at most 1.14).
// With word tiles costed at their speed in two groups per compute unit, 75 more pad; with
// that and blocks on a split matrix, the 178 u8 plans that changed ran in a median of 0.92
// of the time (p10 0.79, p90 0.99; 10 over 2% slower, at most 1.25: small matrices whose
// padded plans pay for more commands, or whose 100! stage moves odd super-elements slowly).
double ranked_cost(const DeviceProfile& device, const TransposePlan& plan, std::size_t elem_size,
                   TileLayout layout) {
  double cost = estimated_cost(device, plan, elem_size, layout);
  if (elem_size > 2) return cost;
  const OnChipConfig config = choose_onchip(device, elem_size, layout);
  const double scale =
      static_cast<double>(plan.padded_elements()) / static_cast<double>(plan.rows * plan.cols);
  for (const Stage& s : plan.stages)
    if (s.onchip) cost += scale * onchip_cost_without_blocks(config, elem_size, s.B, s.C);
  return cost;
}

// The 2.1 (or 2.2) plan whose 010! stage runs on chip, with the m (or n) the cost model
// expects fastest: m x N tiles too large for a work-group, so m can be the factor whose
// 100! super-elements run best (whole cache lines, a few hundred bytes and more), which a
// BS tile rarely allows. Two passes over the matrix instead of three. No stages: none.
TransposePlan best_onchip_two_stage(const DeviceProfile& device, std::uint64_t M, std::uint64_t N,
                                    std::size_t elem_size, const FactorLimits& limits,
                                    TileLayout layout) {
  const OnChipConfig config = choose_onchip(device, elem_size, layout);
  PlanRequest automatic;
  automatic.onchip_tiles = layout;
  TransposePlan best;
  double best_cost = 0;
  const auto consider = [&](Sequence sequence, std::uint64_t f) {
    TransposePlan plan;
    plan.rows = plan.padded_rows = M;
    plan.cols = plan.padded_cols = N;
    plan.sequence = sequence;
    (sequence == Sequence::k21 ? plan.m : plan.n) = f;
    fill_stages(plan);
    mark_onchip_stages(device, plan, elem_size, automatic);
    if (std::none_of(plan.stages.begin(), plan.stages.end(),
                     [](const Stage& s) { return s.onchip; }))
      return;
    // Among on-chip plans of 1- and 2-byte elements, those whose on-chip stage moves
    // blocks take that stage's time as the cost model has it; the others a pass's
    // difference at full tiles longer, the same for each, so that among themselves they
    // rank as before.
    const double cost = ranked_cost(device, plan, elem_size, layout);
    if (best.stages.empty() || cost < best_cost) {
      best = plan;
      best_cost = cost;
    }
  };
  if (config.work_group == 0) return best;
  for (std::uint64_t m : divisors(M))
    if (m >= limits.min_factor && m != M && onchip_fits(config, m, N)) consider(Sequence::k21, m);
  for (std::uint64_t n : divisors(N))
    if (n >= limits.min_factor && n != N && onchip_fits(config, M, n)) consider(Sequence::k22, n);
  return best;
}

void check_factor(std::uint64_t side, std::uint64_t f, const char* name) {
  if (f == 0 || side % f != 0)
    refuse(std::string(name) + " = " + std::to_string(f) + " does not divide " +
           std::to_string(side));
}

}  // namespace

const char* sequence_name(Sequence sequence) {
  switch (sequence) {
    case Sequence::kSquare:
      return "square";
    case Sequence::kOneStage:
      return "1";
    case Sequence::k21:
      return "2.1";
    case Sequence::k22:
      return "2.2";
    case Sequence::k31:
      return "3.1";
    case Sequence::k32:
      return "3.2";
    case Sequence::k41:
      return "4.1";
    case Sequence::k42:
      return "4.2";
  }
  return "?";
}

namespace {

// x's prime factors with their multiplicities, by trial division up to the square root
// of what is left: a side with small factors is done in a few steps. In T's width, since
// a 32-bit division costs a fraction of a 64-bit one and the planner factors sides many
// times per call (a new shape's first call waits for it).
template <typename T>
std::vector<std::pair<std::uint64_t, int>> prime_factors(T rest) {
  std::vector<std::pair<std::uint64_t, int>> factors;
  const auto take = [&](T p) {
    int power = 0;
    for (; rest % p == 0; rest /= p) ++power;
    if (power > 0) factors.emplace_back(p, power);
  };
  take(2);
  for (T p = 3; p <= rest / p; p += 2) take(p);
  if (rest > 1) factors.emplace_back(rest, 1);
  return factors;
}

}  // namespace

std::vector<std::uint64_t> divisors(std::uint64_t x) {
  if (x == 0) return {};
  const auto factors =
      x <= UINT32_MAX ? prime_factors(static_cast<std::uint32_t>(x)) : prime_factors(x);
  std::vector<std::uint64_t> all{1};
  for (const auto& [p, power] : factors) {
    const std::size_t before = all.size();
    std::uint64_t p_k = 1;
    for (int k = 0; k < power; ++k) {
      p_k *= p;
      for (std::size_t i = 0; i < before; ++i) all.push_back(all[i] * p_k);
    }
  }
  std::sort(all.begin(), all.end());
  return all;
}

TransposePlan plan_sequence(const DeviceProfile& device, std::uint64_t rows, std::uint64_t cols,
                            std::size_t elem_size, const PlanRequest& request,
                            const FactorLimits& limits) {
  TransposePlan plan;
  plan.rows = plan.padded_rows = rows;
  plan.cols = plan.padded_cols = cols;
  const std::uint64_t M = rows, N = cols;
  const auto fits_row_block = [&](std::uint64_t m) { return bs_fits(device, m, N, elem_size); };
  const auto fits_col_block = [&](std::uint64_t n) { return bs_fits(device, M, n, elem_size); };
  // A forced 2.x may take tiles that only the on-chip kernel can move (any device: the
  // regular kernel after it does the work where the attempt gives up).
  const auto fits_on_chip = [&](std::uint64_t b, std::uint64_t c) {
    return request.onchip != OnChip::kOff &&
           onchip_fits(choose_onchip(device, elem_size, request.onchip_tiles), b, c);
  };

  if (request.auto_sequence) {
    if (M == N) {
      plan.sequence = Sequence::kSquare;
    } else if (fits_row_block(M)) {  // the whole matrix is one BS tile: a single pass
      plan.sequence = Sequence::k21;
      plan.m = M;
    } else {
      // Each candidate's smallest 100! super-element (0: no such plan).
      const std::uint64_t m21 = largest_factor(M, limits.min_factor, fits_row_block);
      const std::uint64_t n22 = largest_factor(N, limits.min_factor, fits_col_block);
      const Pair p = best_pair(device, M, N, elem_size, limits);
      const std::uint64_t s3 = std::min(p.m, p.n);
      if (m21 == 0 && n22 == 0 && s3 == 0) {
        plan.sequence = Sequence::kOneStage;
      } else if (m21 >= n22 && m21 >= s3) {
        plan.sequence = Sequence::k21;
        plan.m = m21;
      } else if (n22 >= s3) {
        plan.sequence = Sequence::k22;
        plan.n = n22;
      } else {
        plan.sequence = p.m < p.n ? Sequence::k31 : Sequence::k32;
        plan.m = p.m;
        plan.n = p.n;
      }
    }
    fill_stages(plan);
    if (M != N && request.onchip != OnChip::kOff && device.resident_groups &&
        !(plan.sequence == Sequence::k21 && plan.m == M)) {
      TransposePlan onchip =
          best_onchip_two_stage(device, M, N, elem_size, limits, request.onchip_tiles);
      if (!onchip.stages.empty() &&
          estimated_cost(device, onchip, elem_size, request.onchip_tiles) <
              estimated_cost(device, plan, elem_size, request.onchip_tiles))
        return onchip;
    }
    return plan;
  }

  plan.sequence = request.sequence;
  switch (plan.sequence) {
    case Sequence::kSquare:
      if (M != N) refuse("the square sequence needs rows == cols");
      break;
    case Sequence::kOneStage:
      break;
    case Sequence::k21:
      plan.m = request.m != 0 ? request.m : largest_factor(M, 1, fits_row_block);
      check_factor(M, plan.m, "m");
      if (!fits_row_block(plan.m) && !fits_on_chip(plan.m, N))
        refuse("sequence 2.1: an m x cols tile fits neither local memory nor the device");
      break;
    case Sequence::k22:
      plan.n = request.n != 0 ? request.n : largest_factor(N, 1, fits_col_block);
      check_factor(N, plan.n, "n");
      if (!fits_col_block(plan.n) && !fits_on_chip(M, plan.n))
        refuse("sequence 2.2: a rows x n tile fits neither local memory nor the device");
      break;
    case Sequence::k31:
    case Sequence::k32:
    case Sequence::k41:
    case Sequence::k42: {
      Pair p{request.m, request.n};
      if (p.m == 0 || p.n == 0) {
        FactorLimits any = limits;
        any.min_factor = 1;
        const Pair best = best_pair(device, M, N, elem_size, any);
        if (p.m == 0) p.m = best.m;
        if (p.n == 0) p.n = best.n;
      }
      check_factor(M, p.m, "m");
      check_factor(N, p.n, "n");
      if (!bs_fits(device, p.m, p.n, elem_size))
        refuse(std::string("sequence ") + sequence_name(plan.sequence) +
               ": an m x n tile does not fit local memory");
      plan.m = p.m;
      plan.n = p.n;
      break;
    }
  }
  fill_stages(plan);
  mark_onchip_stages(device, plan, elem_size, request);
  return plan;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> padded_shapes(
    const DeviceProfile& device, std::uint64_t rows, std::uint64_t cols, std::size_t elem_size,
    const FactorLimits& limits, std::uint64_t capacity, const PaddingLimits& padding) {
  // A square is transposed in one pass, and a single row or column is its own transpose
  // in memory: nothing to pad for.
  if (rows == cols || rows == 1 || cols == 1) return {};
  if (capacity == 0) capacity = rows * cols;
  // Sides worth padding to: factors up to what a BS tile can pair them with.
  const std::uint64_t local = std::max<std::uint64_t>(1, usable_local_bytes(device) / elem_size);
  std::uint64_t root = 1;
  while ((root + 1) * (root + 1) <= local) ++root;
  // Elements per cache line: a padded side that is a multiple of it can have factors
  // whose super-elements are whole lines (cost_model.hpp).
  const std::uint64_t line_quantum =
      device.line_bytes == 0 ? 0 : device.line_bytes / std::gcd(device.line_bytes, elem_size);
  const auto candidates = [&](std::uint64_t side, std::uint64_t other) {
    const std::uint64_t cap = std::max(root, local / other);
    const auto max_pad =
        static_cast<std::uint64_t>(padding.max_overhead * static_cast<double>(side));
    auto sides = padding_candidates(side, limits.min_factor, cap, max_pad, padding.max_steps);
    for (std::uint64_t s : line_multiple_sides(side, line_quantum, max_pad, padding.max_line_sides))
      if (std::find(sides.begin(), sides.end(), s) == sides.end()) sides.push_back(s);
    // 1- and 2-byte elements: the next multiple of 4, whose instances can move on chip in
    // blocks of either size (families/onchip.cpp; 2-byte ones need only an even side).
    if (elem_size < 4 && side % 4 != 0 && 4 - side % 4 <= max_pad) {
      const std::uint64_t s = side + 4 - side % 4;
      if (std::find(sides.begin(), sides.end(), s) == sides.end()) sides.push_back(s);
    }
    return sides;
  };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> shapes;
  const auto allowed = [&](std::uint64_t M2, std::uint64_t N2) {
    return (M2 != rows || N2 != cols) && padding_allowed(rows, cols, M2, N2, capacity, padding);
  };
  for (std::uint64_t M2 : candidates(rows, cols))
    for (std::uint64_t N2 : candidates(cols, rows))
      if (allowed(M2, N2)) shapes.emplace_back(M2, N2);
  // A nearly square matrix may pad to a square one (the one-pass square kernel).
  const std::uint64_t side = std::max(rows, cols);
  if (allowed(side, side) &&
      std::find(shapes.begin(), shapes.end(), std::make_pair(side, side)) == shapes.end())
    shapes.emplace_back(side, side);
  return shapes;
}

namespace {

// plan_transpose without the on-chip attempt.
TransposePlan plan_regular(const DeviceProfile& device, std::uint64_t rows, std::uint64_t cols,
                           std::size_t elem_size, const PlanRequest& request,
                           const FactorLimits& limits, std::uint64_t capacity,
                           const PaddingLimits& padding) {
  if (capacity == 0) capacity = rows * cols;
  if (request.padded_rows != 0 || request.padded_cols != 0) {
    if (request.padding == Padding::kOff) refuse("a padded shape was given with padding off");
    const std::uint64_t M2 = request.padded_rows != 0 ? request.padded_rows : rows;
    const std::uint64_t N2 = request.padded_cols != 0 ? request.padded_cols : cols;
    if (M2 < rows || N2 < cols) refuse("the padded shape is smaller than the matrix");
    if (N2 != 0 && M2 > capacity / N2)
      throw std::length_error("the padded " + std::to_string(M2) + " x " + std::to_string(N2) +
                              " matrix needs more elements than the buffer's " +
                              std::to_string(capacity));
    TransposePlan plan = plan_sequence(device, M2, N2, elem_size, request, limits);
    plan.rows = rows;
    plan.cols = cols;
    return plan;
  }
  TransposePlan best = plan_sequence(device, rows, cols, elem_size, request, limits);
  // A single BS tile moves the matrix in one pass already (padded_shapes leaves out the
  // shapes that have nothing to pad for).
  if (!request.auto_sequence || request.padding == Padding::kOff ||
      (best.sequence == Sequence::k21 && best.m == rows))
    return best;

  const double unpadded_cost = ranked_cost(device, best, elem_size, request.onchip_tiles);
  double best_cost = unpadded_cost;
  for (const auto& [M2, N2] :
       padded_shapes(device, rows, cols, elem_size, limits, capacity, padding)) {
    PlanRequest automatic;
    automatic.onchip = request.onchip == OnChip::kOff ? OnChip::kOff : OnChip::kAuto;
    automatic.onchip_tiles = request.onchip_tiles;
    TransposePlan plan = plan_sequence(device, M2, N2, elem_size, automatic, limits);
    plan.rows = rows;
    plan.cols = cols;
    const double cost = ranked_cost(device, plan, elem_size, request.onchip_tiles);
    // Padding must pay clearly: the model is rough, and an unpadded plan borrows no
    // memory beyond the matrix.
    if (cost < 0.9 * unpadded_cost && cost < best_cost) {
      best = plan;
      best_cost = cost;
    }
  }
  return best;
}

// Whether the whole-matrix on-chip kernel beats a regular plan: whenever that plan is
// more than one scratch-free kernel. The on-chip call is one command, and every command a
// call enqueues costs microseconds of host time with the GPU idle, more than the kernels
// of a matrix this small take: forced on-chip calls of 24 skinny protocol shapes took
// 30-42 us against 50-107 us for their automatic 2-stage plans (the one shape slower,
// 23 x 16460, took 38 against 35 us), and 1294 x 1339 floats 34-44 us against 79-81 us
// for its 3-stage plan. A single BS kernel (one tile already) or the square kernel is one
// command too, and moves data as well.
bool onchip_pays(const DeviceProfile& device, const TransposePlan& plan, std::size_t elem_size) {
  if (plan.sequence == Sequence::kSquare) return false;
  std::size_t kernels = plan.padded() ? 2 : 0;
  const Stage* only = nullptr;
  for (const Stage& stage : plan.stages)
    if (!stage.identity()) {
      ++kernels;
      only = &stage;
    }
  if (kernels == 0) return false;
  return kernels > 1 || only->kind != Stage::Kind::k010 || only->onchip ||
         !bs_fits(device, only->B, only->C, elem_size);
}

// The whole matrix on chip: one kernel, no stages, nothing padded (its own fallback, the
// cycle following, is in the kernel).
TransposePlan whole_onchip_plan(std::uint64_t rows, std::uint64_t cols) {
  TransposePlan plan;
  plan.rows = plan.padded_rows = rows;
  plan.cols = plan.padded_cols = cols;
  plan.sequence = Sequence::kOneStage;
  plan.m = plan.n = 1;
  plan.onchip = true;
  return plan;
}

}  // namespace

std::uint64_t min_factor_for(const FactorLimits& limits, std::uint64_t rows, std::uint64_t cols,
                             std::size_t elem_size) {
  std::uint64_t elements = 0;
  if (!__builtin_mul_overflow(rows, cols, &elements) && elements < kMemoryBudgetFrom)
    return limits.min_factor;
  const auto bytes = static_cast<std::uint64_t>(std::ceil(1.0 / (8.0 * kMaxExtraMemory)));
  return std::max(limits.min_factor, (bytes + elem_size - 1) / elem_size);
}

TransposePlan plan_transpose(const DeviceProfile& device, std::uint64_t rows, std::uint64_t cols,
                             std::size_t elem_size, const PlanRequest& request,
                             const FactorLimits& given_limits, std::uint64_t capacity,
                             const PaddingLimits& padding) {
  FactorLimits limits = given_limits;
  limits.min_factor = min_factor_for(given_limits, rows, cols, elem_size);
  const OnChipConfig onchip = choose_onchip(device, elem_size, request.onchip_tiles);
  if (request.onchip == OnChip::kForce) {
    if (request.padded_rows != 0 || request.padded_cols != 0)
      refuse("an on-chip plan transposes the matrix as it is: no padded shape");
    if (!onchip_fits(onchip, rows, cols)) {
      const OnChipTile tile = onchip_tile(onchip, rows, cols);
      refuse("the " + std::to_string(rows) + " x " + std::to_string(cols) +
             " matrix does not fit on chip (" + std::to_string(onchip_tiles(onchip, rows, cols)) +
             " tiles of " + std::to_string(tile.rows) + " x " + std::to_string(tile.cols) +
             ", at most " + std::to_string(onchip.groups * onchip_group_tiles(onchip, tile)) +
             " on this device)");
    }
    return whole_onchip_plan(rows, cols);
  }
  TransposePlan plan =
      plan_regular(device, rows, cols, elem_size, request, limits, capacity, padding);
  const bool automatic = request.onchip == OnChip::kAuto && request.auto_sequence &&
                         request.padded_rows == 0 && request.padded_cols == 0;
  if (!automatic || !device.resident_groups || rows == cols || !onchip_fits(onchip, rows, cols))
    return plan;
  // Against the plan of this buffer, and of a buffer with room to pad: the attempt pads
  // nothing, so ipt_padded_size (the room a call's best plan needs) says "the matrix"
  // when it pays against the padded plan, and a buffer of just the matrix must then get
  // the attempt too, not a slower unpadded plan.
  if (onchip_pays(device, plan, elem_size) ||
      onchip_pays(
          device,
          plan_regular(device, rows, cols, elem_size, request, limits, ~std::uint64_t{0}, padding),
          elem_size))
    return whole_onchip_plan(rows, cols);
  return plan;
}

std::string describe(const TransposePlan& plan) {
  std::ostringstream out;
  if (plan.batch > 1) out << "a batch of " << plan.batch << " matrices of ";
  const bool uses_m = plan.sequence != Sequence::kSquare && plan.sequence != Sequence::kOneStage &&
                      plan.sequence != Sequence::k22;
  const bool uses_n = plan.sequence != Sequence::kSquare && plan.sequence != Sequence::kOneStage &&
                      plan.sequence != Sequence::k21;
  out << plan.rows << " x " << plan.cols;
  if (plan.padded()) out << " padded to " << plan.padded_rows << " x " << plan.padded_cols;
  if (plan.onchip)
    return out.str() +
           ": on chip, in one kernel (one pass: every element read, a grid barrier, every "
           "element written; when the device cannot run every work-group at once, the same "
           "kernel follows the permutation's cycles instead)";
  out << ": sequence " << sequence_name(plan.sequence);
  if (uses_m) out << ", m = " << plan.m;
  if (uses_n) out << ", n = " << plan.n;
  if (plan.sequence == Sequence::kSquare) out << " (tiled swap across the diagonal)";
  if (plan.padded_cols != plan.cols)
    out << "\n  pad: rows spread from " << plan.cols << " to " << plan.padded_cols << " elements";
  if (plan.padded_rows != plan.rows)
    out << "\n  " << plan.padded_rows - plan.rows << " extra row(s) after the matrix";
  for (const Stage& s : plan.stages) {
    out << "\n  ";
    if (s.kind == Stage::Kind::k010 && s.onchip)
      out << "010! on (" << s.A * s.I << ", " << s.B << ", " << s.C
          << "): on chip, rounds of whole " << s.B << " x " << s.C
          << " instances (cycle following in the same kernel if the device cannot run every "
             "work-group at once)";
    else if (s.kind == Stage::Kind::k010)
      out << "010! on (" << s.A * s.I << ", " << s.B << ", " << s.C << "): BS tiles of " << s.B
          << " x " << s.C;
    else
      out << (s.I > 1 ? "0100! on (" + std::to_string(s.I) + " | " : std::string("100! on ("))
          << s.A << ", " << s.B << ", " << s.C << "): super-elements of " << s.C;
  }
  if (plan.padded_rows != plan.rows)
    out << "\n  unpad: rows closed up from " << plan.padded_rows << " to " << plan.rows
        << " elements";
  if (plan.padded_cols != plan.cols)
    out << "\n  the last " << plan.padded_cols - plan.cols << " row(s) of the result dropped";
  return out.str();
}

}  // namespace ipt::planner
