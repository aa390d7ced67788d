// SPDX-License-Identifier: Apache-2.0
#include "planner/cost_model.hpp"

#include <cmath>
#include <utility>

#include "planner/families/bs.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/narrow_words.hpp"
#include "planner/onchip_plan.hpp"

namespace ipt::planner {
namespace {

// Linear in log2 between measured points (bytes, fraction of copy), flat outside.
double interpolate(const std::pair<double, double>* points, std::size_t count, double x) {
  if (x <= points[0].first) return points[0].second;
  for (std::size_t i = 1; i < count; ++i) {
    if (x <= points[i].first) {
      const double t = (std::log2(x) - std::log2(points[i - 1].first)) /
                       (std::log2(points[i].first) - std::log2(points[i - 1].first));
      return points[i - 1].second + t * (points[i].second - points[i - 1].second);
    }
  }
  return points[count - 1].second;
}

}  // namespace

double soa_efficiency(std::uint64_t super_element_bytes, bool line_aligned) {
  // 100! on (10000, 99, C) (ipt-kernel-bench soa --soa-shapes, f32 and f64, on a GPU of
  // 128-byte cache lines): 39-42% of copy at 120-136 bytes, 53-54% at 248-264, 62% at
  // 376-392, 67-68% at 504-520, 72% at 636-644, 74-75% at 760-776, 79% at 1020-1028,
  // where the super-elements straddle 128-byte lines; exactly 128, 256, 384, 512, 768 and
  // 1024 bytes ran at 50-52%, 67-72%, 73-74%, 81-85%, 89% and 91%. Below 120 bytes, from
  // the older 100! sweep.
  static const std::pair<double, double> straddling[] = {
      {4, 0.02},   {16, 0.08},  {32, 0.16},  {48, 0.22},   {72, 0.26},   {128, 0.40},
      {256, 0.53}, {384, 0.62}, {512, 0.67}, {640, 0.715}, {768, 0.745}, {1024, 0.79}};
  static const std::pair<double, double> whole_lines[] = {{128, 0.51}, {256, 0.69}, {384, 0.735},
                                                          {512, 0.83}, {768, 0.89}, {1024, 0.91}};
  const auto x = static_cast<double>(super_element_bytes);
  if (line_aligned && x >= whole_lines[0].first)
    return interpolate(whole_lines, std::size(whole_lines), x);
  return interpolate(straddling, std::size(straddling), x);
}

bool line_aligned(const DeviceProfile& device, std::uint64_t super_element_bytes) {
  return device.line_bytes > 0 && super_element_bytes % device.line_bytes == 0;
}

double soa_efficiency(const DeviceProfile& device, std::uint64_t super_element_bytes) {
  return soa_efficiency(super_element_bytes, line_aligned(device, super_element_bytes));
}

double soa_stage_efficiency(const DeviceProfile& device, std::uint64_t C, std::size_t elem_size) {
  // ipt-kernel-bench stages (8 random shapes, 2.x plans): the SoA kernel moved 2-byte
  // elements at 0.5-0.7 of the throughput of 4-byte ones on the same shapes, 1-byte ones
  // at 0.35-0.45. Charging that in full steered 1-byte plans to factors and paddings that
  // cost more elsewhere (random protocol, 60 shapes: median 346 GB/s against 409 without
  // words); a third of it steered best (437 GB/s; 2-byte: 808 against 772).
  const std::size_t word = elem_size * word_factor(device, elem_size, C);
  const double narrow = word >= 4 ? 1.0 : word == 2 ? 0.8 : 0.65;
  return soa_efficiency(device, C * elem_size) * narrow;
}

double onchip_efficiency(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols,
                         std::size_t elem_size) {
  // On-chip instances of 64 x 15000, 128 x 10000 and 160 x 20000 floats, whose tiles are
  // full, ran at 70-73% of copy, and 100 x 10000, whose last tile row is an eighth full,
  // at 61%; doubles at 75-76%. What a tile holds beyond the instance costs time: a skinny
  // instance (a few columns in 32-wide tiles) is slow.
  const double used = static_cast<double>(rows * cols) /
                      static_cast<double>(onchip_tiles(config, rows, cols) *
                                          onchip_tile(config, rows, cols).area());
  return (elem_size >= 8 ? 0.8 : 0.72) * std::sqrt(used);
}

double restride_efficiency(std::uint64_t row_bytes) {
  static const std::pair<double, double> points[] = {{8, 0.1}, {40, 0.25}, {512, 0.7}};
  return interpolate(points, std::size(points), static_cast<double>(row_bytes));
}

double estimated_cost(const DeviceProfile& device, const TransposePlan& plan, std::size_t elem_size,
                      TileLayout onchip_tiles) {
  // Every pass moves the padded matrix; the cost is relative to the caller's matrix.
  const double scale =
      static_cast<double>(plan.padded_elements()) / static_cast<double>(plan.rows * plan.cols);
  double cost = 0;
  if (plan.sequence == Sequence::kSquare) cost += scale / 0.88;
  for (const Stage& s : plan.stages) {
    if (s.kind == Stage::Kind::k010 && s.onchip)
      cost += scale / onchip_efficiency(choose_onchip(device, elem_size, onchip_tiles), s.B, s.C,
                                        elem_size);
    else if (s.kind == Stage::Kind::k010)
      cost += scale / (bs_fits(device, s.B, s.C, elem_size) ? 0.85 : 0.1);  // BS: 75-93%
    else
      cost += scale / soa_stage_efficiency(device, s.C, elem_size);
  }
  if (plan.padded_cols != plan.cols) cost += scale / restride_efficiency(plan.cols * elem_size);
  if (plan.padded_rows != plan.rows) cost += scale / restride_efficiency(plan.rows * elem_size);
  return cost;
}

}  // namespace ipt::planner
