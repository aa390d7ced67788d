#include "runtime/onchip_launcher.hpp"

#include <algorithm>
#include <string>

#include "runtime/deferred_release.hpp"
#include "runtime/error.hpp"
#include "runtime/kernel_args.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/program_cache.hpp"

namespace ipt::runtime {
namespace {

// Launches the kernel once on a 1 x 1 matrix (every group finds the poll closed and takes
// the fallback, which has nothing to move), so that a device that refuses its work-group
// says so now, while nothing of the call has been enqueued. Throws IPT_OUT_OF_RESOURCES.
void try_launch(const cl::CommandQueue& queue, PooledKernel& pooled,
                const planner::OnChipConfig& config, bool index64) {
  const auto context = queue_context(queue);
  cl_uint closed[onchip_scratch_bytes(1) / 4] = {0x80000000u, 2};
  const cl::Buffer sync(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof closed, closed);
  const cl::Buffer one(context, CL_MEM_READ_WRITE, 16);
  cl_uint arg = 0;
  pooled.set(arg++, one);
  pooled.set_index(arg++, index64, 0);
  pooled.set(arg++, cl_uint{1});
  pooled.set(arg++, cl_uint{1});
  pooled.set(arg++, cl_uint{1});
  pooled.set(arg++, cl_uint{1});
  pooled.set(arg++, sync);
  pooled.set(arg++, cl_ulong{0});
  pooled.set(arg++, static_cast<cl_uint>(config.groups));
  pooled.set(arg++, cl_uint{0});
  pooled.set(arg++, sync);
  pooled.set(arg++, cl_ulong{0});
  pooled.set(arg++, cl_ulong{0});
  pooled.set(arg++, cl::Buffer());
  cl::Event done;
  try {
    queue.enqueueNDRangeKernel(
        *pooled, cl::NullRange,
        cl::NDRange(static_cast<std::size_t>(config.groups * config.work_group)),
        cl::NDRange(config.work_group), nullptr, &done);
  } catch (const cl::Error& e) {
    fail(IPT_OUT_OF_RESOURCES, "on-chip transposition: the device refuses work-groups of " +
                                   std::to_string(config.work_group) + " work-items (" +
                                   std::to_string(e.err()) + ")");
  }
  release_when_complete(done, sync);
  release_when_complete(done, one);
}

}  // namespace

cl::Event enqueue_onchip(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                         std::uint64_t offset, std::uint64_t instances, std::uint64_t rows,
                         std::uint64_t cols, std::size_t elem_size,
                         const planner::OnChipConfig& config, const std::vector<cl::Event>& wait,
                         const ScratchRegion* scratch, const OnChipLaunch& launch) {
  check_elem_size(elem_size);
  if (!planner::onchip_fits(config, rows, cols) || instances == 0 || instances > UINT32_MAX)
    fail(IPT_INTERNAL_ERROR, "on-chip attempt for a matrix that does not fit");
  const std::uint64_t per_round =
      std::min(instances, config.groups * config.tiles / planner::onchip_tiles(config, rows, cols));
  const planner::OnChipTile tile = planner::onchip_tile(config, rows, cols);
  const auto device = queue_device(queue);
  const bool index64 = needs_index64(offset, instances * rows * cols, false);
  ProgramRef program;
  if (launch.program != nullptr) {
    program = *launch.program;
  } else {
    const std::string options =
        element_options(elem_size, index64) + " -DWG=" + std::to_string(config.work_group) +
        " -DTR=" + std::to_string(tile.rows) + " -DTC=" + std::to_string(tile.cols) +
        " -DTILES=" + std::to_string(config.tiles) +
        " -DSTAGE=" + std::to_string(planner::onchip_stage_tiles(config, tile)) +
        " -DFLAGS_AT=" + std::to_string(kOnChipFlagsAt / 4);
    program = get_program(queue_context(queue), device, "onchip", options);
  }
  if (launch.built != nullptr) *launch.built = program;
  PooledKernel pooled(program, "ipt_onchip", device);
  // NVIDIA's driver (580, H200) reports 256 as this kernel's work-group limit although it
  // compiled it for 1024 work-items (reqd_work_group_size; 64 registers) and runs it so:
  // a kernel compiled for exactly the configured size is checked by launching it.
  const std::size_t compiled = pooled.compiled_work_group();
  const bool trusted = compiled == config.work_group && pooled.work_group_limit() < compiled;
  if (!trusted) check_launch(pooled, device, config.work_group, 0, "on-chip transposition");
  if (launch.dry_run) {
    if (trusted) try_launch(queue, pooled, config, index64);
    return cl::Event();
  }
  if (scratch == nullptr || scratch->bytes < onchip_scratch_bytes(instances * rows * cols) ||
      scratch->offset % 16 != 0)
    fail(IPT_INTERNAL_ERROR, "on-chip transposition without its zero scratch");
  const ScratchRegion* zero = launch.zero;
  if (zero != nullptr && (zero->offset % 4 != 0 || zero->bytes % 4 != 0))
    fail(IPT_INTERNAL_ERROR, "on-chip transposition: words to zero not aligned");

  cl_uint arg = 0;
  pooled.set(arg++, buffer);
  pooled.set_index(arg++, index64, offset);
  pooled.set(arg++, static_cast<cl_uint>(rows));
  pooled.set(arg++, static_cast<cl_uint>(cols));
  pooled.set(arg++, static_cast<cl_uint>(instances));
  pooled.set(arg++, static_cast<cl_uint>(per_round));
  pooled.set(arg++, scratch->buffer);
  pooled.set(arg++, cl_ulong{scratch->offset / 4});
  pooled.set(arg++, static_cast<cl_uint>(config.groups + (launch.give_up ? 1 : 0)));
  pooled.set(arg++, cl_uint{launch.give_up ? 16u : config.patience});
  pooled.set(arg++, zero != nullptr ? zero->buffer : scratch->buffer);
  pooled.set(arg++, cl_ulong{zero != nullptr ? zero->offset / 4 : 0});
  pooled.set(arg++, cl_ulong{zero != nullptr ? zero->bytes / 4 : 0});
  if (launch.report != nullptr && launch.report->offset != 0)
    fail(IPT_INTERNAL_ERROR, "on-chip transposition: a report word not at its buffer's start");
  pooled.set(arg++, launch.report != nullptr ? launch.report->buffer : cl::Buffer());
  cl::Event event;
  queue.enqueueNDRangeKernel(
      *pooled, cl::NullRange,
      cl::NDRange(static_cast<std::size_t>(config.groups * config.work_group)),
      cl::NDRange(config.work_group), &wait, event_slot(event, launch.event));
  return event;
}

}  // namespace ipt::runtime
