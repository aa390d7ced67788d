// SPDX-License-Identifier: Apache-2.0
// The exported permutation entry points: ipt_permute and ipt_plan_permute.
#include <algorithm>
#include <cstring>
#include <string>

#include "api/guard.hpp"
#include "api/validate.hpp"
#include "planner/permute_plan.hpp"
#include "runtime/device_query.hpp"
#include "runtime/error.hpp"
#include "runtime/transpose.hpp"

extern "C" {

ipt_status ipt_permute(cl_command_queue queue, cl_mem buffer, size_t offset, size_t rank,
                       const size_t* dims, const size_t* perm, size_t elem_size,
                       cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                       cl_event* event) {
  return ipt::api::guarded("ipt_permute", [&] {
    ipt::runtime::PermuteRequest request;
    ipt::runtime::TransposeRequest& call = request.call;
    call.queue = queue;
    call.buffer = buffer;
    call.offset = offset;
    call.elem_size = elem_size;
    call.num_events_in_wait_list = num_events_in_wait_list;
    call.event_wait_list = event_wait_list;
    call.event = event;
    ipt::api::validate_permute(request, rank, dims, perm);
    ipt::runtime::execute_permute(request);
  });
}

ipt_status ipt_plan_permute(cl_device_id device, size_t rank, const size_t* dims,
                            const size_t* perm, size_t elem_size, ipt_permute_info* info) {
  return ipt::api::guarded("ipt_plan_permute", [&] {
    const auto profile = ipt::runtime::query_device_profile(device);  // validates the handle
    if (info == nullptr) ipt::fail(IPT_INVALID_VALUE, "info is NULL");
    ipt::api::check_permutation(rank, dims, perm);
    const std::size_t bytes = ipt::api::checked_tensor_bytes(rank, dims, elem_size);
    ipt::planner::PermuteShape shape;
    shape.dims.assign(dims, dims + rank);
    shape.perm.assign(perm, perm + rank);
    shape.elem_size = elem_size;
    shape.capacity = ipt::runtime::kUnlimited;
    ipt_permute_info result{};
    std::string text;
    if (bytes == 0) {
      text = "an empty tensor: nothing to permute";
    } else {
      const ipt::planner::PermutePlan plan = ipt::runtime::plan_for_permute(profile, shape);
      const auto& reduced = plan.reduced;
      result.rank = reduced.dims.size();
      std::copy(reduced.dims.begin(), reduced.dims.end(), result.dims);
      std::copy(reduced.perm.begin(), reduced.perm.end(), result.perm);
      result.elem_size = reduced.elem_size;
      result.num_swaps = static_cast<unsigned>(plan.swaps.size());
      result.num_stages = static_cast<unsigned>(plan.launch.steps.size());
      result.scratch_bytes = plan.launch.scratch_bytes + plan.launch.zero_scratch_bytes;
      result.borrowed_bytes = plan.launch.borrowed_bytes;
      text = ipt::planner::describe(plan);
    }
    const std::size_t length = std::min(text.size(), sizeof(result.description) - 1);
    std::memcpy(result.description, text.data(), length);
    result.description[length] = '\0';
    *info = result;
  });
}

}  // extern "C"
