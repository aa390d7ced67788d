// SPDX-License-Identifier: Apache-2.0
// What the families' cost curves share: measured points (bytes, fraction of the copy
// bandwidth) joined linearly in log2 of the bytes, flat outside.
#pragma once

#include <cmath>
#include <cstddef>
#include <utility>

namespace ipt::planner {

inline double interpolate_log2(const std::pair<double, double>* points, std::size_t count,
                               double x) {
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

}  // namespace ipt::planner
