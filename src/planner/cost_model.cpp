#include "planner/cost_model.hpp"

#include <cmath>
#include <utility>

#include "planner/elementary_configs.hpp"

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

double soa_efficiency(std::uint64_t super_element_bytes) {
  // The 0100!/100! stages of real plans (ipt-kernel-bench stages, H200, f32, kernels of
  // 22317be): 22% of copy at 48-byte super-elements, 24-29% at 68-72, 43-48% at 260-308,
  // 51-62% at 344-428, 66-70% at 512-644, 52-80% at 2-3 KB; below 48 bytes from the
  // 100! sweep, less a fifth for the stages' smaller A x B.
  static const std::pair<double, double> points[] = {{4, 0.02},    {16, 0.08},  {32, 0.16},
                                                     {48, 0.22},   {72, 0.26},  {280, 0.45},
                                                     {384, 0.55},  {576, 0.66}, {2048, 0.66}};
  return interpolate(points, std::size(points), static_cast<double>(super_element_bytes));
}

double restride_efficiency(std::uint64_t row_bytes) {
  static const std::pair<double, double> points[] = {{8, 0.1}, {40, 0.25}, {512, 0.7}};
  return interpolate(points, std::size(points), static_cast<double>(row_bytes));
}

double estimated_cost(const DeviceProfile& device, const TransposePlan& plan,
                      std::size_t elem_size) {
  // Every pass moves the padded matrix; the cost is relative to the caller's matrix.
  const double scale =
      static_cast<double>(plan.padded_elements()) / static_cast<double>(plan.rows * plan.cols);
  double cost = 0;
  if (plan.sequence == Sequence::kSquare) cost += scale / 0.88;
  for (const Stage& s : plan.stages) {
    if (s.kind == Stage::Kind::k010)
      cost += scale / (bs_fits(device, s.B, s.C, elem_size) ? 0.85 : 0.1);  // BS: 75-93%
    else
      cost += scale / soa_efficiency(s.C * elem_size);
  }
  if (plan.padded_cols != plan.cols) cost += scale / restride_efficiency(plan.cols * elem_size);
  if (plan.padded_rows != plan.rows) cost += scale / restride_efficiency(plan.rows * elem_size);
  return cost;
}

}  // namespace ipt::planner
