// SPDX-License-Identifier: Apache-2.0
// The one place that configures the Khronos C++ bindings for libipt: every source
// file includes this instead of <CL/opencl.hpp>, so that all agree on the macros.
#pragma once

#define CL_HPP_ENABLE_EXCEPTIONS
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wignored-attributes"
#endif
#include <CL/opencl.hpp>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace ipt::runtime {

// A C++ wrapper around a handle that someone else keeps alive for as long as this object
// lives (the caller's queue and buffer during a call, a queue's context): it neither
// retains nor releases: a call's clRetainContext took up to 1.4 us and its closing
// clReleaseCommandQueue 4-5 us, of a 30 us call. It is a T, so it passes wherever a
// `const T&` goes; a copy of it is an ordinary retained T.
template <typename T>
class Borrowed : public T {
 public:
  explicit Borrowed(typename T::cl_type handle) : T(handle, /*retainObject=*/false) {}
  Borrowed(const Borrowed&) = delete;
  Borrowed& operator=(const Borrowed&) = delete;
  ~Borrowed() { (*this)() = nullptr; }  // so that T's destructor releases nothing
};

// The queue's context and device, borrowed: the queue keeps them alive. Returned const,
// so that a temporary passed to a `T` parameter is copied (retained), never moved from:
// a moved-from Borrowed would hand a T a reference it never took.
template <typename T, cl_command_queue_info Info>
const Borrowed<T> queue_handle(const cl::CommandQueue& queue, const char* what) {
  typename T::cl_type handle = nullptr;
  cl::detail::errHandler(clGetCommandQueueInfo(queue(), Info, sizeof handle, &handle, nullptr),
                         what);
  return Borrowed<T>(handle);
}

inline const Borrowed<cl::Context> queue_context(const cl::CommandQueue& queue) {
  return queue_handle<cl::Context, CL_QUEUE_CONTEXT>(queue, "clGetCommandQueueInfo(CONTEXT)");
}

inline const Borrowed<cl::Device> queue_device(const cl::CommandQueue& queue) {
  return queue_handle<cl::Device, CL_QUEUE_DEVICE>(queue, "clGetCommandQueueInfo(DEVICE)");
}

}  // namespace ipt::runtime
