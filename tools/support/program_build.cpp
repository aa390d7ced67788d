// SPDX-License-Identifier: Apache-2.0
#include "support/program_build.hpp"

#include <stdexcept>

namespace ipt::support {

cl_program build_program(cl_context context, cl_device_id device, const char* source,
                         const std::string& options, const std::string& what) {
  cl_int code = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &code);
  if (code != CL_SUCCESS)
    throw std::runtime_error("clCreateProgramWithSource(" + what + "): " + std::to_string(code));
  if (clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    std::size_t size = 0;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    clReleaseProgram(program);
    throw std::runtime_error("building the " + what + " kernels failed:\n" + log);
  }
  return program;
}

}  // namespace ipt::support
