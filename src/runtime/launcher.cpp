// SPDX-License-Identifier: Apache-2.0
#include "runtime/launcher.hpp"

#include <string>
#include <vector>

#include "runtime/fault_seam.hpp"

namespace ipt::runtime {
namespace {

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

}  // namespace

ProgramRef prepare_step(const cl::Context& context, const cl::Device& device,
                        const planner::Step& step) {
  ProgramRef program = get_program(context, device, planner::family_source(step.family),
                                   step.options, step.groups_per_unit);
  PooledKernel kernel(program, planner::family_kernel(step.family), device);
  const std::size_t work_group = static_cast<std::size_t>(step.work_group());
  const std::string name = std::string(planner::family_kernel(step.family));
  // NVIDIA's driver reports 256 as the on-chip kernel's work-group limit although it
  // compiled it for its configured work-items (reqd_work_group_size: 1024 or 512; 64
  // registers) and runs it so: a kernel compiled for exactly the configured size is
  // checked by launching it, which its probe does (Step::probed_launch).
  const std::size_t compiled = kernel.compiled_work_group();
  if (!step.probed_launch || compiled != work_group || kernel.work_group_limit() >= compiled) {
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
  return program;
}

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
