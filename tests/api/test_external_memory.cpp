// SPDX-License-Identifier: Apache-2.0
// ipt_import_memory_fd's checks, on any device. Importing real CUDA memory and
// transposing it is tested from PyTorch and CuPy on NVIDIA (python/tests/test_cuda.py).
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "helpers/test_support.hpp"

using ipt::test::session;

namespace {

// Whether the device lists opaque file descriptors among the handle types it imports.
bool imports_opaque_fd(cl_device_id device) {
  constexpr cl_uint kImportTypes = 0x204F;  // CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR
  std::size_t bytes = 0;
  if (clGetDeviceInfo(device, kImportTypes, 0, nullptr, &bytes) != CL_SUCCESS) return false;
  std::vector<cl_uint> types(bytes / sizeof(cl_uint));
  if (types.empty() ||
      clGetDeviceInfo(device, kImportTypes, bytes, types.data(), nullptr) != CL_SUCCESS)
    return false;
  for (const cl_uint type : types)
    if (type == 0x2060) return true;  // CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR
  return false;
}

// A descriptor that is not memory: the read end of a pipe, closed by the destructor.
struct Pipe {
  int ends[2] = {-1, -1};
  Pipe() { REQUIRE(pipe(ends) == 0); }
  ~Pipe() {
    close(ends[0]);
    close(ends[1]);
  }
};

}  // namespace

TEST_CASE("ipt_import_memory_fd checks its arguments and sets nothing when it fails",
          "[bad_input][external]") {
  const cl_context context = session().context();
  const cl_device_id device = session().device();
  Pipe p;
  const int fd = p.ends[0];
  cl_mem untouched = reinterpret_cast<cl_mem>(&untouched);
  cl_mem out = untouched;
  CHECK(ipt_import_memory_fd(nullptr, device, fd, 4096, &out) == IPT_INVALID_CONTEXT);
  CHECK(ipt_import_memory_fd(context, nullptr, fd, 4096, &out) == IPT_INVALID_DEVICE);
  CHECK(ipt_import_memory_fd(context, device, fd, 4096, nullptr) == IPT_INVALID_VALUE);
  CHECK(ipt_import_memory_fd(context, device, -1, 4096, &out) == IPT_INVALID_VALUE);
  CHECK(std::string(ipt_last_error_message()).find("fd is negative") != std::string::npos);
  CHECK(ipt_import_memory_fd(context, device, fd, 0, &out) == IPT_INVALID_VALUE);
  CHECK(out == untouched);
}

TEST_CASE("ipt_import_memory_fd says what the device cannot import", "[bad_input][external]") {
  const cl_device_id device = session().device();
  Pipe p;
  cl_mem untouched = reinterpret_cast<cl_mem>(&untouched);
  cl_mem out = untouched;
  const ipt_status status =
      ipt_import_memory_fd(session().context(), device, p.ends[0], 1 << 20, &out);
  const std::string message = ipt_last_error_message();
  INFO(message);
  if (imports_opaque_fd(device)) {
    // A pipe is no memory: the driver's refusal comes back as its OpenCL error.
    CHECK(status != IPT_SUCCESS);
    CHECK(status != IPT_EXTERNAL_MEMORY_UNSUPPORTED);
    CHECK(message.find("clCreateBufferWithProperties") != std::string::npos);
  } else {
    CHECK(status == IPT_EXTERNAL_MEMORY_UNSUPPORTED);
    CHECK(message.find("cl_khr_external_memory_opaque_fd") != std::string::npos);
  }
  CHECK(out == untouched);
  // The descriptor is still the caller's, open.
  CHECK(fcntl(p.ends[0], F_GETFD) != -1);
}
