#include "runtime/bs_launcher.hpp"

#include <algorithm>
#include <string>

#include "runtime/error.hpp"
#include "runtime/kernel_args.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/program_cache.hpp"

namespace ipt::runtime {

cl::Event enqueue_bs_010(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                         std::uint64_t offset, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                         std::size_t elem_size, const planner::BsConfig& config,
                         const std::vector<cl::Event>& wait, const ScratchRegion* zero) {
  check_elem_size(elem_size);
  if (config.work_group == 0 || config.tiles_per_group == 0)
    fail(IPT_INVALID_VALUE, "BS: work_group and tiles_per_group must be positive");
  if (zero != nullptr && (zero->offset % 4 != 0 || zero->bytes % 4 != 0))
    fail(IPT_INTERNAL_ERROR, "BS: words to zero not aligned");
  if ((A == 0 || B <= 1 || C <= 1) && zero != nullptr)
    fail(IPT_INTERNAL_ERROR, "BS: words to zero, but an identity transposition");
  if (A == 0 || B <= 1 || C <= 1)
    return config.dry_run ? cl::Event() : enqueue_identity(queue, wait, config.event);  // identity
  const auto context = queue_context(queue);
  const auto device = queue_device(queue);
  const std::uint64_t n = B * C;
  const bool index64 = needs_index64(offset, A * n, config.force_index64);
  PooledKernel pooled(get_program(context, device, "bs", element_options(elem_size, index64)),
                      "ipt_bs_010", device);
  cl::Kernel& kernel = *pooled;
  const std::uint64_t tiles = std::min(config.tiles_per_group, A);
  const std::uint64_t local_bytes = planner::bs_local_elements(n, tiles) * elem_size;
  check_launch(pooled, device, config.work_group, local_bytes, "BS 010!");
  if (config.dry_run) return cl::Event();

  const std::uint64_t chunks = (A + tiles - 1) / tiles;
  // The kernel grid-strides over chunks, so a capped grid is always enough.
  const std::uint64_t groups =
      std::min(chunks, config.max_groups == 0 ? std::uint64_t{65536} : config.max_groups);
  cl_uint arg = 0;
  pooled.set(arg++, buffer);
  pooled.set_index(arg++, index64, offset);
  pooled.set_index(arg++, index64, A);
  pooled.set_index(arg++, index64, B);
  pooled.set_index(arg++, index64, C);
  pooled.set_index(arg++, index64, tiles);
  pooled.set(arg++, cl::Local(static_cast<std::size_t>(local_bytes)));
  // Without a region the zeroing loop runs no iteration; any buffer fills the slot.
  pooled.set(arg++, zero != nullptr ? zero->buffer : buffer);
  pooled.set(arg++, cl_ulong{zero != nullptr ? zero->offset / 4 : 0});
  pooled.set(arg++, cl_ulong{zero != nullptr ? zero->bytes / 4 : 0});
  cl::Event event;
  queue.enqueueNDRangeKernel(
      kernel, cl::NullRange, cl::NDRange(static_cast<std::size_t>(groups) * config.work_group),
      cl::NDRange(config.work_group), &wait, event_slot(event, config.event));
  return event;
}

}  // namespace ipt::runtime
