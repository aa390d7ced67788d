// SPDX-License-Identifier: Apache-2.0
// Buffers over memory that another API allocated (cl_khr_external_memory): importing one
// from a POSIX file descriptor, and the acquire and release that the extension asks for
// around the commands of a call on such a buffer.
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/opencl.hpp"

namespace ipt::runtime {

// A buffer of `size` bytes over the memory that `fd` (an opaque file descriptor, as
// cuMemExportToShareableHandle or vkGetMemoryFdKHR give) refers to, for `device` of
// `context`. The descriptor stays the caller's. Throws ipt::Error
// IPT_EXTERNAL_MEMORY_UNSUPPORTED when the device or the OpenCL loader cannot import it.
cl_mem import_memory_fd(cl_context context, cl_device_id device, int fd, std::size_t size);

// The memory object to acquire for a call on `buffer`: `buffer` when it was made from an
// external memory handle (its CL_MEM_PROPERTIES name a handle type), its parent when it
// is a sub-buffer of such a buffer, else NULL (the buffer is OpenCL's own).
cl_mem external_memory_of(cl_mem buffer);

// Enqueues the acquire of `buffer` (external_memory_of's) after `wait`; returns its event (on an
// in-order queue too: the plan's first command waits on it like on the caller's events). Throws
// cl::Error or ipt::Error with nothing enqueued.
cl::Event acquire_external(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                           const std::vector<cl::Event>& wait);

// Enqueues the release of `buffer` after `after`; returns its event. When the release
// cannot be enqueued, waits for `after` instead and returns it: the caller's commands
// are enqueued by then and must stand, and the memory simply stays acquired by OpenCL
// (the next acquire of it is harmless).
cl::Event release_external(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                           cl::Event after);

}  // namespace ipt::runtime
