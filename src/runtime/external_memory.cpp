// SPDX-License-Identifier: Apache-2.0
#include "runtime/external_memory.hpp"

#include <CL/cl_ext.h>
#include <dlfcn.h>

#include <string>

#include "runtime/error.hpp"
#include "runtime/fault_seam.hpp"

namespace ipt::runtime {
namespace {

// OpenCL 3.0 and cl_khr_external_memory names, spelled out: libipt builds against the
// OpenCL 1.2 API, and older headers name the device list differently.
constexpr cl_uint kMemProperties = 0x110A;      // CL_MEM_PROPERTIES
constexpr cl_ulong kOpaqueFd = 0x2060;          // CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR
constexpr cl_ulong kFirstHandleType = 0x2060;   // the handle types of the extension
constexpr cl_ulong kLastHandleType = 0x2067;    // ... through DMA_BUF_KHR
constexpr cl_ulong kDeviceHandleList = 0x2051;  // CL_MEM_DEVICE_HANDLE_LIST_KHR
constexpr cl_uint kDeviceImportTypes = 0x204F;  // CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR

using CreateBufferWithProperties = cl_mem (*)(cl_context, const cl_ulong*, cl_mem_flags,
                                              std::size_t, void*, cl_int*);
using EnqueueExternal = cl_int (*)(cl_command_queue, cl_uint, const cl_mem*, cl_uint,
                                   const cl_event*, cl_event*);

cl_platform_id platform_of(cl_device_id device) {
  cl_platform_id platform = nullptr;
  check_cl(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr),
           "clGetDeviceInfo(CL_DEVICE_PLATFORM)");
  return platform;
}

bool device_imports_opaque_fd(cl_device_id device) {
  std::size_t bytes = 0;
  if (clGetDeviceInfo(device, kDeviceImportTypes, 0, nullptr, &bytes) != CL_SUCCESS) return false;
  std::vector<cl_uint> types(bytes / sizeof(cl_uint));
  if (types.empty() ||
      clGetDeviceInfo(device, kDeviceImportTypes, bytes, types.data(), nullptr) != CL_SUCCESS)
    return false;
  for (const cl_uint type : types)
    if (type == kOpaqueFd) return true;
  return false;
}

// The extension's acquire or release command, from the queue's platform.
EnqueueExternal external_command(const cl::CommandQueue& queue, const char* name) {
  const auto function = reinterpret_cast<EnqueueExternal>(
      clGetExtensionFunctionAddressForPlatform(platform_of(queue_device(queue)()), name));
  if (function == nullptr)
    fail(IPT_EXTERNAL_MEMORY_UNSUPPORTED,
         std::string("the buffer is external memory, but the platform has no ") + name);
  return function;
}

cl::Event enqueue_external(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                           const std::vector<cl::Event>& wait, const char* name) {
  const EnqueueExternal command = external_command(queue, name);
  faults::point(faults::Site::kEnqueue, name);
  std::vector<cl_event> events;
  events.reserve(wait.size());
  for (const cl::Event& e : wait)
    if (e() != nullptr) events.push_back(e());  // an undo may end without an event
  const cl_mem memory = buffer();
  cl_event done = nullptr;
  check_cl(command(queue(), 1, &memory, static_cast<cl_uint>(events.size()),
                   events.empty() ? nullptr : events.data(), &done),
           name);
  return cl::Event(done);  // the command's reference, not retained again
}

}  // namespace

cl_mem import_memory_fd(cl_context context, cl_device_id device, int fd, std::size_t size) {
  if (!device_imports_opaque_fd(device))
    fail(IPT_EXTERNAL_MEMORY_UNSUPPORTED,
         "the device does not import opaque file descriptors "
         "(cl_khr_external_memory_opaque_fd)");
  // A core OpenCL 3.0 function, looked up so that libipt still loads with an older loader.
  const auto create = reinterpret_cast<CreateBufferWithProperties>(
      dlsym(RTLD_DEFAULT, "clCreateBufferWithProperties"));
  if (create == nullptr)
    fail(IPT_EXTERNAL_MEMORY_UNSUPPORTED,
         "the OpenCL loader predates OpenCL 3.0 (no clCreateBufferWithProperties)");
  const cl_ulong properties[] = {
      kOpaqueFd, static_cast<cl_ulong>(fd), kDeviceHandleList, reinterpret_cast<cl_ulong>(device),
      0,  // the end of the device list
      0};
  faults::point(faults::Site::kAllocation, "clCreateBufferWithProperties");
  cl_int status = CL_SUCCESS;
  cl_mem buffer = create(context, properties, CL_MEM_READ_WRITE, size, nullptr, &status);
  check_cl(status, "clCreateBufferWithProperties(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR)");
  return buffer;
}

namespace {

bool made_from_handle(cl_mem buffer) {
  // A 1.2 platform does not know the query (an error): its buffers are all its own.
  std::size_t bytes = 0;
  if (clGetMemObjectInfo(buffer, kMemProperties, 0, nullptr, &bytes) != CL_SUCCESS || bytes == 0)
    return false;
  std::vector<cl_ulong> properties(bytes / sizeof(cl_ulong));
  if (clGetMemObjectInfo(buffer, kMemProperties, bytes, properties.data(), nullptr) != CL_SUCCESS)
    return false;
  // Key, value pairs up to a 0; the device list is a key with devices up to a 0 of its
  // own; a driver may list a handle type without its value, last.
  const std::size_t count = properties.size();
  for (std::size_t i = 0; i < count && properties[i] != 0; i += 2) {
    if (properties[i] >= kFirstHandleType && properties[i] <= kLastHandleType) return true;
    if (properties[i] == kDeviceHandleList)
      while (i + 1 < count && properties[i + 1] != 0) ++i;
  }
  return false;
}

}  // namespace

cl_mem external_memory_of(cl_mem buffer) {
  if (made_from_handle(buffer)) return buffer;
  // A sub-buffer has no properties of its own: its parent is what was imported.
  cl_mem parent = nullptr;
  if (clGetMemObjectInfo(buffer, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, nullptr) ==
          CL_SUCCESS &&
      parent != nullptr && made_from_handle(parent))
    return parent;
  return nullptr;
}

cl::Event acquire_external(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                           const std::vector<cl::Event>& wait) {
  return enqueue_external(queue, buffer, wait, "clEnqueueAcquireExternalMemObjectsKHR");
}

cl::Event release_external(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                           cl::Event after) {
  try {
    return enqueue_external(queue, buffer, {after}, "clEnqueueReleaseExternalMemObjectsKHR");
  } catch (...) {
    try {
      if (after() != nullptr) after.wait();
    } catch (...) {
      // A failed command: the call's status says what happened; its event says so too.
    }
    return after;
  }
}

}  // namespace ipt::runtime
