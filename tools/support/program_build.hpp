// SPDX-License-Identifier: Apache-2.0
// Builds an OpenCL program of the tools' own kernels (patterns, checks) from source for one
// device: one place for the build and its log.
#pragma once

#include <CL/cl.h>

#include <string>

namespace ipt::support {

// The program of `source` built for `device` with `options`. Throws std::runtime_error
// naming `what`, with the build log, when it does not build.
cl_program build_program(cl_context context, cl_device_id device, const char* source,
                         const std::string& options, const std::string& what);

}  // namespace ipt::support
