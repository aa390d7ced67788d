// SPDX-License-Identifier: Apache-2.0
#include "runtime/launcher.hpp"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "runtime/deferred_release.hpp"
#include "runtime/fault_seam.hpp"

namespace ipt::runtime {
namespace {

std::atomic<std::size_t> probes{0}, verdicts{0};

using planner::Buffer;
using planner::KernelArg;

const cl::Buffer& bound(const BoundBuffers& buffers, Buffer which) {
  static const cl::Buffer none;
  const cl::Buffer* buffer = nullptr;
  switch (which) {
    case Buffer::kMatrix:
      buffer = buffers.matrix;
      break;
    case Buffer::kScratch:
      buffer = buffers.scratch;
      break;
    case Buffer::kZeroScratch:
      buffer = buffers.zero_scratch;
      break;
    case Buffer::kReport:
      buffer = buffers.report;
      break;
    case Buffer::kNone:
      break;
  }
  if (buffer == nullptr && which != Buffer::kReport && which != Buffer::kNone)
    fail(IPT_INTERNAL_ERROR, "a step names a buffer the call has not bound");
  return buffer != nullptr ? *buffer : none;
}

void set_args(PooledKernel& kernel, const planner::Step& step, const BoundBuffers& buffers) {
  cl_uint index = 0;
  for (const KernelArg& arg : step.args) {
    switch (arg.kind) {
      case KernelArg::Kind::kBuffer:
        kernel.set(index, bound(buffers, arg.buffer));
        break;
      case KernelArg::Kind::kIndex:
        kernel.set_index(index, step.index64, arg.value);
        break;
      case KernelArg::Kind::kUint:
        kernel.set(index, static_cast<cl_uint>(arg.value));
        break;
      case KernelArg::Kind::kUlong:
        kernel.set(index, static_cast<cl_ulong>(arg.value));
        break;
      case KernelArg::Kind::kLocal:
        kernel.set(index, cl::Local(static_cast<std::size_t>(arg.value)));
        break;
    }
    ++index;
  }
}

cl::NDRange range(unsigned dims, const std::uint64_t* sizes) {
  if (dims == 2)
    return cl::NDRange(static_cast<std::size_t>(sizes[0]), static_cast<std::size_t>(sizes[1]));
  return cl::NDRange(static_cast<std::size_t>(sizes[0]));
}

// What a probe's read brings back to its program, owned by the read's callback.
struct ProbeReading {
  ProgramRef program;
  CachedProgram::Residency unjudged;  // what a probe that brings back no verdict leaves
  cl_uint decision = 0;
};

void CL_CALLBACK settle(cl_event, cl_int status, void* data) {
  const std::unique_ptr<ProbeReading> reading(static_cast<ProbeReading*>(data));
  using Residency = CachedProgram::Residency;
  reading->program->settle_probe(status != CL_COMPLETE ? reading->unjudged
                                 : reading->decision == planner::kOnChipAllResident
                                     ? Residency::kResident
                                     : Residency::kCrowded);
  ++verdicts;
}

// Launches the on-chip kernel's probe (planner::onchip_probe_step) on buffers of its own,
// after what the queue holds, and has its report read back without waiting for it: the
// read's callback settles the program's residency (pending: CachedProgram::start_probe).
// On an out-of-order queue the commands enqueued next wait for the probe, so that the
// call's own kernels cannot crowd it. Throws IPT_OUT_OF_RESOURCES when the device refuses
// the launch or the probe's buffers; past the launch, a failure only leaves the program
// `unjudged` (unprobed, or crowded for a recheck: the verdict is advice; the kernel's
// fallback keeps every call right).
void probe_onchip(const cl::CommandQueue& queue, const cl::Context& context, PooledKernel& kernel,
                  const ProgramRef& program, const planner::Step& step,
                  CachedProgram::Residency unjudged) {
  const planner::Step probe = planner::onchip_probe_step(step, faults::onchip_probe_groups());
  std::vector<cl_uint> zeros(planner::kOnChipScratchBytes / 4, 0);
  cl::Buffer sync, one, report;
  try {
    faults::point(faults::Site::kAllocation, "clCreateBuffer");
    sync = cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zeros.size() * 4,
                      zeros.data());
    one = cl::Buffer(context, CL_MEM_READ_WRITE, 16);
    report = cl::Buffer(context, CL_MEM_READ_WRITE, 4);
  } catch (const cl::Error& e) {
    fail(IPT_OUT_OF_RESOURCES,
         "on-chip transposition: no memory for its probe (" + std::to_string(e.err()) + ")");
  }
  BoundBuffers buffers;
  buffers.matrix = &one;
  buffers.zero_scratch = &sync;
  buffers.report = &report;
  set_args(kernel, probe, buffers);
  std::vector<cl::Event> done(1);
  try {
    faults::point(faults::Site::kEnqueue, "clEnqueueNDRangeKernel");
    queue.enqueueNDRangeKernel(*kernel, cl::NullRange, range(probe.dims, probe.global),
                               range(probe.dims, probe.local), nullptr, &done[0]);
  } catch (const cl::Error& e) {
    fail(IPT_OUT_OF_RESOURCES, "on-chip transposition: the device refuses work-groups of " +
                                   std::to_string(probe.work_group()) + " work-items (" +
                                   std::to_string(e.err()) + ")");
  }
  ++probes;
  program->accept_launch();
  release_when_complete(done[0], sync);
  release_when_complete(done[0], one);
  auto reading = std::make_unique<ProbeReading>();
  reading->program = program;
  reading->unjudged = unjudged;
  cl::Event read;
  try {
    if (!in_order(queue)) {
      faults::point(faults::Site::kEnqueue, "clEnqueueBarrierWithWaitList");
      queue.enqueueBarrierWithWaitList(&done);
    }
    faults::point(faults::Site::kEnqueue, "clEnqueueReadBuffer");
    queue.enqueueReadBuffer(report, CL_FALSE, 0, 4, &reading->decision, &done, &read);
  } catch (const cl::Error&) {
    release_when_complete(done[0], report);
    program->settle_probe(unjudged);  // accepted, not judged: probed again
    return;
  }
  release_when_complete(read, report);
  try {
    if (read.setCallback(CL_COMPLETE, settle, reading.get()) == CL_SUCCESS) {
      reading.release();  // the callback's now
      return;
    }
  } catch (const cl::Error&) {
  }
  // No callback: left unjudged rather than waited for (the queue may hold commands that
  // wait for the caller). The read may still write into the reading, which is left to it.
  program->settle_probe(unjudged);
  reading->program.reset();
  static_cast<void>(reading.release());
}

}  // namespace

ProgramRef prepare_step(const cl::CommandQueue& queue, const cl::Context& context,
                        const cl::Device& device, const planner::Step& step) {
  ProgramRef program =
      get_program(context, device, planner::family_source(step.family), step.options);
  PooledKernel kernel(program, planner::family_kernel(step.family), device);
  const std::size_t work_group = static_cast<std::size_t>(step.work_group());
  const std::string name = std::string(planner::family_kernel(step.family));
  // NVIDIA's driver reports 256 as the on-chip kernel's work-group limit although it
  // compiled it for its configured work-items (reqd_work_group_size: 1024 or 512; 64
  // registers) and runs it so: a kernel compiled for exactly the configured size is
  // checked by launching it, which the probe does.
  const std::size_t compiled = kernel.compiled_work_group();
  const bool onchip = step.family == planner::Family::kOnChip;
  if (!onchip || compiled != work_group || kernel.work_group_limit() >= compiled) {
    const std::size_t limit = kernel.work_group_limit();
    if (limit < work_group)
      throw WorkGroupTooLarge(name + " needs work-groups of " + std::to_string(work_group) +
                                  " work-items; the compiled kernel allows " +
                                  std::to_string(limit),
                              limit);
    const auto local = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    const std::uint64_t needed = step.local_bytes + kernel.static_local_bytes();
    if (needed > local)
      fail(IPT_OUT_OF_RESOURCES, name + " needs " + std::to_string(needed) +
                                     " bytes of local memory; the device has " +
                                     std::to_string(local));
  }
  // One thread probes; another that finds the probe being launched waits for the launch
  // (a moment), so that no thread uses a program whose launch nobody has seen accepted.
  while (onchip) {
    if (program->start_probe()) {
      try {
        probe_onchip(queue, context, kernel, program, step, CachedProgram::Residency::kUnprobed);
      } catch (...) {
        program->settle_probe(CachedProgram::Residency::kUnprobed);
        throw;
      }
      break;
    }
    if (program->launch_accepted()) break;
    std::this_thread::yield();
  }
  return program;
}

void recheck_crowded(const cl::CommandQueue& queue, const ProgramRef& program,
                     const planner::Step& step) {
  const auto age = faults::crowded_recheck_age().value_or(kCrowdedRecheckAge);
  if (!program->start_recheck(CachedProgram::Clock::now(), age)) return;
  try {
    const auto device = queue_device(queue);
    PooledKernel kernel(program, planner::family_kernel(step.family), device);
    probe_onchip(queue, queue_context(queue), kernel, program, step,
                 CachedProgram::Residency::kCrowded);
  } catch (...) {
    // Advice only: the program stays avoided, and is checked again when this verdict is old.
    program->settle_probe(CachedProgram::Residency::kCrowded);
  }
}

std::size_t onchip_probe_count() { return probes.load(); }

std::size_t onchip_probe_verdicts() { return verdicts.load(); }

cl::Event enqueue_step(const cl::CommandQueue& queue, PooledKernel& kernel,
                       const planner::Step& step, const BoundBuffers& buffers,
                       const std::vector<cl::Event>& wait, bool event) {
  set_args(kernel, step, buffers);
  cl::Event done;
  faults::point(faults::Site::kEnqueue, "clEnqueueNDRangeKernel");
  queue.enqueueNDRangeKernel(*kernel, cl::NullRange, range(step.dims, step.global),
                             range(step.dims, step.local), &wait, event_slot(done, event));
  return done;
}

}  // namespace ipt::runtime
