#include "runtime/onchip_launcher.hpp"

#include <string>

#include "runtime/error.hpp"
#include "runtime/kernel_args.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/program_cache.hpp"

namespace ipt::runtime {

ScratchRegion onchip_decision(const ScratchRegion& sync) {
  if (sync.empty()) return {};
  return {sync.buffer, sync.offset + 4, 4};
}

cl::Event enqueue_onchip(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                         std::uint64_t offset, std::uint64_t rows, std::uint64_t cols,
                         std::size_t elem_size, const planner::OnChipConfig& config,
                         const std::vector<cl::Event>& wait, const ScratchRegion* sync,
                         const OnChipLaunch& launch) {
  check_elem_size(elem_size);
  if (!planner::onchip_fits(config, rows, cols))
    fail(IPT_INTERNAL_ERROR, "on-chip attempt for a matrix that does not fit");
  const auto context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const auto device = queue.getInfo<CL_QUEUE_DEVICE>();
  const bool index64 = needs_index64(offset, rows * cols, false);
  const std::string options =
      element_options(elem_size, index64) + " -DWG=" + std::to_string(config.work_group) +
      " -DTILES=" + std::to_string(config.tiles) + " -DSTAGE=" + std::to_string(config.stage);
  PooledKernel pooled(get_program(context, device, "onchip", options), "ipt_onchip", device);
  cl::Kernel& kernel = *pooled;
  check_launch(pooled, device, config.work_group, 0, "on-chip transposition");
  if (launch.dry_run) return cl::Event();
  if (sync == nullptr || sync->bytes < kOnChipSyncBytes || sync->offset % 16 != 0)
    fail(IPT_INTERNAL_ERROR, "on-chip attempt without its zeroed scratch");

  cl_uint arg = 0;
  kernel.setArg(arg++, buffer);
  set_index_arg(kernel, arg++, index64, offset);
  kernel.setArg(arg++, static_cast<cl_uint>(rows));
  kernel.setArg(arg++, static_cast<cl_uint>(cols));
  kernel.setArg(arg++, sync->buffer);
  kernel.setArg(arg++, cl_ulong{sync->offset / 4});
  kernel.setArg(arg++, static_cast<cl_uint>(config.groups + (launch.give_up ? 1 : 0)));
  kernel.setArg(arg++, cl_uint{launch.give_up ? 16u : config.patience});
  cl::Event event;
  queue.enqueueNDRangeKernel(
      kernel, cl::NullRange,
      cl::NDRange(static_cast<std::size_t>(config.groups * config.work_group)),
      cl::NDRange(config.work_group), &wait, event_slot(event, launch.event));
  return event;
}

}  // namespace ipt::runtime
