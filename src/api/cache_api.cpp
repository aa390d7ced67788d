// SPDX-License-Identifier: Apache-2.0
// Exported control of kernel compilation: warm-up and the program cache.
#include <vector>

#include "api/guard.hpp"
#include "api/validate.hpp"
#include "host/host_lanes.hpp"
#include "runtime/transpose.hpp"

namespace {

void check_context_device(cl_context context, cl_device_id device) {
  cl_uint count = 0;
  if (context == nullptr || clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof(count), &count,
                                             nullptr) != CL_SUCCESS)
    ipt::fail(IPT_INVALID_CONTEXT, "the context is NULL or invalid");
  std::vector<cl_device_id> devices(count);
  ipt::check_cl(clGetContextInfo(context, CL_CONTEXT_DEVICES, count * sizeof(cl_device_id),
                                 devices.data(), nullptr),
                "clGetContextInfo(CL_CONTEXT_DEVICES)");
  for (cl_device_id candidate : devices)
    if (candidate == device && device != nullptr) return;
  ipt::fail(IPT_INVALID_DEVICE, "the device is NULL, invalid or not one of the context's devices");
}

}  // namespace

extern "C" {

ipt_status ipt_warmup(cl_context context, cl_device_id device, size_t elem_size) {
  return ipt::api::guarded("ipt_warmup", [&] {
    check_context_device(context, device);
    ipt::api::checked_matrix_bytes(1, 1, elem_size);
    ipt::runtime::warm_up(context, device, elem_size);
  });
}

ipt_status ipt_clear_cache(void) {
  return ipt::api::guarded("ipt_clear_cache", [] {
    ipt::runtime::clear_caches();
    ipt::host::clear_host_lanes();
  });
}

}  // extern "C"
