// SPDX-License-Identifier: Apache-2.0
// Scratch buffers kept across calls. A call's scratch (flags, counters, the bytes padding
// borrows) was a new buffer every call, released by a completion callback; on NVIDIA's
// driver creating and first filling it took 11-22 us of host time before the call's first
// kernel, and calls of small matrices are bound by their host time. Reusing buffers cut
// the median skinny call under 10^6 elements from 74 to 50 us.
//
// A call hands its buffers back as soon as it has enqueued its commands, tagged with its
// last command's event; a later call may take a buffer once that event has completed, or
// at once when it enqueues on the same in-order queue (its commands run after the tagged
// ones). Handing buffers back from a completion callback instead cost every small call
// 3-5 us (marker to end, median 26.8 against 22.8 us for 1294 x 1339 floats in one
// session, with the callback's clSetEventCallback gone), and more in its slowest tenth
// (p90 39 against 25 us). Asking every kept buffer's tag for its status on each take cost
// as much again (clGetEventInfo), so a take on the tag's own queue asks nothing. A
// queue's handle cannot name another queue while the tag is incomplete: a queue with
// unfinished commands is not deleted.
#pragma once

#include <cstdint>

#include "runtime/opencl.hpp"

namespace ipt::runtime {

// Where a buffer is about to be used: its context, the queue and whether that queue runs
// its commands in order.
struct ScratchUse {
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  bool in_order = false;
};

// A taken buffer and its tag from the last use, which the caller drops only once its own
// commands are enqueued: dropping the last reference to an event took a driver up to
// 1 us, and before the enqueue that delays the call's first command.
struct TakenScratch {
  cl::Buffer buffer;
  cl::Event previous;  // none for a new buffer
  bool fresh = false;  // zero scratch only: a new buffer, which the caller fills
};

// A buffer of at least `bytes` bytes in use.context: a kept one that is free for this
// use (above), else a new one. Its contents are undefined.
TakenScratch take_scratch(const ScratchUse& use, std::uint64_t bytes);

// Zero scratch: buffers whose bytes are all zero whenever no call uses them, for the
// kernels that leave their scratch as they found it (kernels/onchip.cl) and the flags
// that a call's last kernel clears (planner/launch_plan.cpp), so that such a call needs
// no fill (one command fewer: microseconds of host time with the GPU idle). A buffer of
// at least `bytes` bytes: a kept one, all zero by the time this use's commands run, or a
// new one (`fresh`), whose contents are undefined and which the caller fills before use.
// A kept buffer whose tag has ended abnormally may be dirty (a command cut short between
// the kernel that sets flags and the one that clears them): it is released and the
// caller gets a new one to fill, on its tag's own queue too, so that one status query
// (of the buffer taken) is the price of a zero take there. A tag still pending on the
// same in-order queue cannot say how it will end, and the buffer is handed out all the
// same: should it fail later because its wait list did, its commands never ran and left
// the buffer as they found it; a command that fails while it runs leaves that call's
// matrix undefined too (ipt.h), and this one's then rests on the driver cutting short the
// commands queued after it (not testable on PoCL, which aborts). (Uploading zeros from the
// host instead cost a call of 10^8 elements, whose fallback flags take 12 MB, 4-35 ms.)
TakenScratch take_zero_scratch(const ScratchUse& use, std::uint64_t bytes);

// Hands `buffer` back, tagged with `last` (the last command enqueued on use.queue that
// uses it). A few buffers per context are kept (the largest ones, none over 16 MiB); the
// rest are released once `last` completes. Without an event the buffer is released as its
// handle goes (correct, but may block: deferred_release.hpp).
void give_back_scratch(const cl::Event& last, const ScratchUse& use, cl::Buffer buffer);

// The same for zero scratch. The caller vouches that the buffer is all zero again once
// `last` completes (the kernels that use it leave it so, or the call's last kernel clears
// what earlier ones left), and says whether it was `fresh` when taken: such a buffer goes
// to its own queue too only once its tag has been seen complete, since its first fill
// never runs when the call's wait list fails.
void give_back_zero_scratch(const cl::Event& last, const ScratchUse& use, cl::Buffer buffer,
                            bool fresh);

// Releases every kept buffer (those still in use once their commands complete), and with
// them the library's references to their contexts.
void clear_scratch_cache();

// Buffers kept now, of either kind (for tests).
std::size_t scratch_cache_size();

}  // namespace ipt::runtime
