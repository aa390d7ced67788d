// A rough model of how long a plan takes, used only to decide whether padding pays.
// Each pass over the matrix costs 1 / (its fraction of the copy bandwidth); the fractions
// are what the H200 measured (docs/performance.md): BS 010! 60-70%, 100! from about 1% for
// single elements to 50% for super-elements of 2 KiB and more, row re-striding 70% for
// long rows and much less for short ones, the square kernel 88%.
#pragma once

#include <cstddef>
#include <cstdint>

#include "planner/device_profile.hpp"
#include "planner/transpose_plan.hpp"

namespace ipt::planner {

// Fraction of the copy bandwidth that 100! reaches with super-elements of `bytes`.
double soa_efficiency(std::uint64_t super_element_bytes);

// Fraction of the copy bandwidth that re-striding rows of `row_bytes` reaches.
double restride_efficiency(std::uint64_t row_bytes);

// Estimated time of the whole plan, padding and unpadding included, in units of the
// time a copy of the caller's matrix takes.
double estimated_cost(const DeviceProfile& device, const TransposePlan& plan,
                      std::size_t elem_size);

}  // namespace ipt::planner
