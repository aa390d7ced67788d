// Scratch buffers kept across calls. A call's scratch (flags, counters, the bytes padding
// borrows) was a new buffer every call, released by a completion callback; on NVIDIA's
// driver (580, H200) creating and first filling it took 11-22 us of host time before the
// call's first kernel, and calls of small matrices are bound by their host time. Reusing
// buffers cut the median skinny call under 10^6 elements from 74 to 50 us (A/B in one
// session, docs/performance.md). A finished call hands its buffer back here; the next
// call on the same context takes one that is large enough.
#pragma once

#include <cstdint>

#include "runtime/opencl.hpp"

namespace ipt::runtime {

// A buffer of at least `bytes` bytes in `context`: one a finished call handed back, else
// a new one. Its contents are undefined.
cl::Buffer take_scratch(const cl::Context& context, std::uint64_t bytes);

// Hands `buffer` back once `done` completes (from the driver's callback thread); without
// an event, or when the callback cannot be set, it is simply released as its handle goes.
// A few buffers per context are kept (the largest ones, none over 16 MiB); the rest are
// released.
void give_back_scratch_when_complete(const cl::Event& done, cl::Buffer buffer);

// Zero scratch: buffers whose bytes are all zero whenever no command uses them, for the
// kernels that leave their scratch as they found it (kernels/onchip.cl), so that a call
// of such a kernel needs no fill (one command fewer: 8-10 us of an idle H200). A buffer
// of at least `bytes` bytes in `context`: a kept one, all zero, or a new one, whose
// contents are undefined and which the caller fills before use (`fresh`). (Uploading
// zeros from the host instead cost a call of 10^8 elements, whose fallback flags take
// 12 MB, 4-35 ms.)
cl::Buffer take_zero_scratch(const cl::Context& context, std::uint64_t bytes, bool* fresh);

// Keeps `buffer` as zero scratch once `done` completes successfully; a command that ended
// abnormally may have left it dirty, so it is then released. The caller vouches that
// every command using the buffer leaves it zero and completes before `done`.
void give_back_zero_scratch_when_complete(const cl::Event& done, cl::Buffer buffer);

// Releases every kept buffer (and with them the library's references to their contexts).
void clear_scratch_cache();

// Buffers kept now, of either kind (for tests).
std::size_t scratch_cache_size();

}  // namespace ipt::runtime
