// SPDX-License-Identifier: Apache-2.0
// Releasing the last handle of a buffer that enqueued commands still use blocks the
// calling thread until those commands complete on NVIDIA's driver (clReleaseMemObject
// waited 0.5 ms behind a 1 GiB copy). Every call released its scratch on return, so every
// call ran synchronously. Scratch is therefore released by a completion callback of the
// last command that uses it, on the driver's callback thread itself: handed from there to
// a thread of the library's own, the releases deadlocked NVIDIA's driver (580) in every
// run of the thread stress tests (that thread spinning inside the driver, the driver's
// callback thread waiting for a lock inside the driver, the GPU idle).
#pragma once

#include "runtime/opencl.hpp"

namespace ipt::runtime {

// A completion callback that owns one reference to the cl_mem it is given.
using BufferCallback = void(CL_CALLBACK*)(cl_event, cl_int, void* mem);

// Keeps `buffer` alive until `done` completes (or ends abnormally), then hands a
// reference to `callback` on the driver's callback thread. Without an event, or when the
// callback cannot be set, nothing is handed over: the buffer is released as its handle
// goes (correct, but may block).
void when_complete(const cl::Event& done, const cl::Buffer& buffer, BufferCallback callback);

// when_complete with a callback that releases the buffer.
void release_when_complete(const cl::Event& done, cl::Buffer buffer);

}  // namespace ipt::runtime
