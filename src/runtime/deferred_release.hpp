// Releasing the last handle of a buffer that enqueued commands still use blocks the
// calling thread until those commands complete on NVIDIA's driver (580, H200:
// clReleaseMemObject waited 0.5 ms behind a 1 GiB copy). Every call released its scratch
// on return, so every call ran synchronously. Scratch is therefore released by a
// completion callback of the last command that uses it.
#pragma once

#include "runtime/opencl.hpp"

namespace ipt::runtime {

// Keeps `buffer` alive until `done` completes (or ends abnormally), then releases it
// from the driver's callback thread. Without an event, or when the callback cannot be
// set, the buffer is released as its handle goes (correct, but may block).
void release_when_complete(const cl::Event& done, cl::Buffer buffer);

}  // namespace ipt::runtime
