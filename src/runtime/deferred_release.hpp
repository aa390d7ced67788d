// SPDX-License-Identifier: Apache-2.0
// Releasing the last handle of a buffer that enqueued commands still use blocks the
// calling thread until those commands complete on NVIDIA's driver (clReleaseMemObject
// waited 0.5 ms behind a 1 GiB copy). Every call released its scratch on return, so every
// call ran synchronously. Scratch is therefore released by a completion callback of the
// last command that uses it, on the driver's callback thread itself: handed from there to
// a thread of the library's own, the releases deadlocked NVIDIA's driver (580) in every
// run of the thread stress tests (that thread spinning inside the driver, the driver's
// callback thread waiting for a lock inside the driver, the GPU idle).
//
// The callback takes over the caller's reference instead of retaining one of its own: a
// caller that kept its handle released it on its own thread, at times while the callback
// released the other one, and the stacks of hung thread stress tests showed that too
// (a thread spinning in clReleaseMemObject on an on-chip probe's buffer, the callback
// thread waiting for a lock inside the driver).
#pragma once

#include "runtime/opencl.hpp"

namespace ipt::runtime {

// Hands `buffer`'s reference to a callback that releases it on the driver's callback
// thread once `done` completes (or ends abnormally). An rvalue, so that the caller keeps
// no second handle to release on its own thread. Without an event, or when the callback
// cannot be set, `buffer` keeps its reference (released as its handle goes: correct, but
// may block).
void release_when_complete(const cl::Event& done, cl::Buffer&& buffer);

}  // namespace ipt::runtime
