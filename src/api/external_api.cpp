// SPDX-License-Identifier: Apache-2.0
// Exported import of memory that another API allocated (runtime/external_memory.hpp).
#include "api/guard.hpp"
#include "api/validate.hpp"
#include "runtime/external_memory.hpp"

extern "C" {

ipt_status ipt_import_memory_fd(cl_context context, cl_device_id device, int fd, size_t size,
                                cl_mem* buffer) {
  return ipt::api::guarded("ipt_import_memory_fd", [&] {
    ipt::api::check_context_device(context, device);
    if (buffer == nullptr) ipt::fail(IPT_INVALID_VALUE, "buffer (the output) is NULL");
    if (fd < 0) ipt::fail(IPT_INVALID_VALUE, "fd is negative");
    if (size == 0) ipt::fail(IPT_INVALID_VALUE, "size is 0");
    *buffer = ipt::runtime::import_memory_fd(context, device, fd, size);
  });
}

}  // extern "C"
