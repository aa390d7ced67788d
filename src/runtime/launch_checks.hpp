// Checks and small helpers shared by the elementary-transposition launchers
// (bs_launcher, pttwac_launcher, soa_asta_launcher).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/error.hpp"
#include "runtime/opencl.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/scratch_region.hpp"

namespace ipt::runtime {

// 32-bit indices only when every index the kernel forms (offset + positions, plus a
// grid-stride step past the end) stays far below 2^32: 2^31 leaves that margin.
inline bool needs_index64(std::uint64_t offset, std::uint64_t elements, bool forced) {
  return forced || offset + elements >= (std::uint64_t{1} << 31);
}

inline void check_elem_size(std::size_t elem_size) {
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8 && elem_size != 16)
    fail(IPT_INVALID_ELEMENT_SIZE,
         "element size " + std::to_string(elem_size) + " is not 1, 2, 4, 8 or 16");
}

// An event that completes when `wait` has: the result of a transposition that moves
// nothing (a dimension of 1).
inline cl::Event enqueue_nothing(const cl::CommandQueue& queue,
                                 const std::vector<cl::Event>& wait) {
  cl::Event event;
  check_cl(queue.enqueueMarkerWithWaitList(&wait, &event), "clEnqueueMarkerWithWaitList");
  return event;
}

// Where a launcher asks the driver to put its command's event: `event`, or nowhere when
// the caller needs none. On NVIDIA's driver (580, H200) with a profiling queue, a kernel
// enqueued with an event took about 10 us of host time against 3.5 us without one, and
// each event also added 4-6 us of GPU time between kernels (probe: 5 short kernels ran in
// 56.5 us with an event each, 30 us with one on the last). A call on an in-order queue
// therefore asks for an event only on its last command.
inline cl::Event* event_slot(cl::Event& event, bool wanted) { return wanted ? &event : nullptr; }

// Whether commands enqueued one after another on `queue` run in that order.
inline bool in_order(const cl::CommandQueue& queue) {
  return (queue.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0;
}

// What a launch that moves nothing (an identity) enqueues: a marker that completes when
// `wait` has, or nothing when the caller wants no event and there is nothing to wait for.
inline cl::Event enqueue_identity(const cl::CommandQueue& queue, const std::vector<cl::Event>& wait,
                                  bool event) {
  if (!event && wait.empty()) return cl::Event();
  return enqueue_nothing(queue, wait);
}

// What a command enqueued after `done` on `queue` must wait for so that it runs after
// `done` (and so after everything `done` waited for): nothing on an in-order queue,
// which orders them already, else `done`. An explicit event between two commands of one
// in-order queue cost about 20 us of GPU time on NVIDIA's driver (580, H200).
inline std::vector<cl::Event> then(const cl::CommandQueue& queue, const cl::Event& done) {
  if (in_order(queue)) return {};
  return {done};
}

// The zeroed scratch of a launch: `given` when the caller has a region (zeroed before
// `wait` completes; it must hold `bytes`), else a buffer of `bytes` allocated and zeroed
// here after `wait` (the launcher releases it when its kernel completes:
// release_when_complete). `after` receives what the kernel must wait for.
inline ScratchRegion zeroed_scratch(const cl::CommandQueue& queue, const ScratchRegion* given,
                                    std::uint64_t bytes, const std::vector<cl::Event>& wait,
                                    std::vector<cl::Event>& after, const char* name) {
  after = wait;
  if (given != nullptr) {
    if (given->bytes < bytes || given->offset % 16 != 0 ||
        given->buffer.getInfo<CL_MEM_SIZE>() < given->offset + given->bytes)
      fail(IPT_INTERNAL_ERROR, std::string(name) + ": the scratch region given holds fewer than " +
                                   std::to_string(bytes) + " bytes or is misplaced");
    return *given;
  }
  ScratchRegion scratch;
  scratch.buffer =
      cl::Buffer(queue_context(queue), CL_MEM_READ_WRITE, static_cast<std::size_t>(bytes));
  scratch.bytes = bytes;
  cl::Event zeroed;
  queue.enqueueFillBuffer(scratch.buffer, cl_uint{0}, 0, static_cast<std::size_t>(bytes), &wait,
                          &zeroed);
  after = then(queue, zeroed);
  return scratch;
}

// Throws IPT_OUT_OF_RESOURCES (nothing enqueued) when the compiled kernel cannot run
// work-groups of `work_group` items (register pressure can lower the limit below the
// device maximum) or the group's local memory exceeds the device's.
inline void check_launch(PooledKernel& pooled, const cl::Device& device, std::size_t work_group,
                         std::uint64_t dynamic_local_bytes, const char* name) {
  const auto limit = pooled.work_group_limit();
  if (limit < work_group)
    fail(IPT_OUT_OF_RESOURCES,
         std::string(name) + " needs work-groups of " + std::to_string(work_group) +
             " work-items; the compiled kernel allows " + std::to_string(limit));
  const auto local = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  const auto fixed = pooled.static_local_bytes();
  if (dynamic_local_bytes + fixed > local)
    fail(IPT_OUT_OF_RESOURCES,
         std::string(name) + " needs " + std::to_string(dynamic_local_bytes + fixed) +
             " bytes of local memory; the device has " + std::to_string(local));
}

}  // namespace ipt::runtime
