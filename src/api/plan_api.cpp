// SPDX-License-Identifier: Apache-2.0
// ipt_plan: the plan a call would run, for tests, tuning and ipt-plan.
#include <algorithm>
#include <cstring>
#include <string>

#include "api/guard.hpp"
#include "api/plan_options.hpp"
#include "api/validate.hpp"
#include "planner/launch_plan.hpp"
#include "runtime/device_query.hpp"
#include "runtime/transpose.hpp"

namespace {

ipt_status plan(const char* function, cl_device_id device, size_t batch, size_t rows, size_t cols,
                size_t elem_size, const ipt_plan_options* options, ipt_plan_info* info) {
  return ipt::api::guarded(function, [&] {
    const auto profile = ipt::runtime::query_device_profile(device);  // validates the handle
    if (info == nullptr) ipt::fail(IPT_INVALID_VALUE, "info is NULL");
    ipt::api::checked_matrix_bytes(rows, cols, elem_size, batch);
    const auto request = ipt::api::plan_request_of(options);
    if (rows == 0 || cols == 0 || batch == 0) {
      // A call returns at once for an empty matrix (BLAS quick return): no kernel to plan,
      // and the planner plans only matrices with elements.
      ipt_plan_info empty{};
      empty.sequence = IPT_SEQUENCE_ONE_STAGE;
      empty.m = empty.n = 1;
      empty.padded_rows = rows;
      empty.padded_cols = cols;
      const std::string text =
          std::to_string(rows) + " x " + std::to_string(cols) + ": empty, nothing to transpose";
      std::memcpy(empty.description, text.c_str(), text.size() + 1);
      *info = empty;
      return;
    }
    // The room of the buffer that max_bytes describes, in elements; never kUnlimited, the
    // mark of no buffer, which max_bytes of SIZE_MAX would give 1-byte elements: a buffer
    // that holds the matrix may pass one allocation, as in a call.
    const std::uint64_t capacity =
        options != nullptr && options->max_bytes != 0
            ? std::min<std::uint64_t>(options->max_bytes / elem_size, ipt::runtime::kUnlimited - 1)
            : ipt::runtime::kUnlimited;
    const auto launch =
        ipt::runtime::plan_for_call(profile, rows, cols, elem_size, 0,
                                    options != nullptr ? &request : nullptr, capacity, batch);
    const auto& plan = launch.transpose;
    ipt_plan_info result{};
    result.sequence = plan.onchip ? IPT_SEQUENCE_ON_CHIP : ipt::api::sequence_of(plan.sequence);
    result.m = plan.m;
    result.n = plan.n;
    result.padded_rows = plan.padded_rows;
    result.padded_cols = plan.padded_cols;
    result.num_stages = static_cast<unsigned>(launch.steps.size());
    result.scratch_bytes = launch.scratch_bytes + launch.zero_scratch_bytes;
    result.borrowed_bytes = launch.borrowed_bytes;
    const std::string text = ipt::planner::describe(launch);
    const std::size_t length = std::min(text.size(), sizeof(result.description) - 1);
    std::memcpy(result.description, text.data(), length);
    result.description[length] = '\0';
    *info = result;
  });
}

}  // namespace

extern "C" {

ipt_status ipt_plan(cl_device_id device, size_t rows, size_t cols, size_t elem_size,
                    const ipt_plan_options* options, ipt_plan_info* info) {
  return plan("ipt_plan", device, 1, rows, cols, elem_size, options, info);
}

ipt_status ipt_plan_batched(cl_device_id device, size_t batch, size_t rows, size_t cols,
                            size_t elem_size, const ipt_plan_options* options,
                            ipt_plan_info* info) {
  return plan("ipt_plan_batched", device, batch, rows, cols, elem_size, options, info);
}

}  // extern "C"
