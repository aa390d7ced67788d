// SPDX-License-Identifier: Apache-2.0
// Exported control of kernel compilation: warm-up and the program cache.
#include "api/guard.hpp"
#include "api/validate.hpp"
#include "host/host_lanes.hpp"
#include "runtime/transpose.hpp"

extern "C" {

ipt_status ipt_warmup(cl_context context, cl_device_id device, size_t elem_size) {
  return ipt::api::guarded("ipt_warmup", [&] {
    ipt::api::check_context_device(context, device);
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
