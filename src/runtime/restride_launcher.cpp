#include "runtime/restride_launcher.hpp"

#include <algorithm>
#include <string>

#include "runtime/deferred_release.hpp"
#include "runtime/error.hpp"
#include "runtime/kernel_args.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/program_cache.hpp"

namespace ipt::runtime {

cl::Event enqueue_restride(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                           std::uint64_t offset, std::uint64_t rows, std::uint64_t len,
                           std::uint64_t s_in, std::uint64_t s_out, std::size_t elem_size,
                           const planner::RestrideConfig& config,
                           const std::vector<cl::Event>& wait, const ScratchRegion* given_scratch) {
  check_elem_size(elem_size);
  if (config.work_group == 0 || config.per_item == 0)
    fail(IPT_INVALID_VALUE, "restride: work_group and per_item must be positive");
  if (s_in < len || s_out < len)
    fail(IPT_INVALID_VALUE, "restride: a stride is shorter than the row");
  if (rows == 0 || len == 0 || s_in == s_out || (rows == 1))
    return config.dry_run ? cl::Event()
                          : enqueue_identity(queue, wait, config.event);  // nothing moves
  const auto context = queue_context(queue);
  const auto device = queue_device(queue);
  const std::uint64_t extent = rows * std::max(s_in, s_out);
  const bool index64 = needs_index64(offset, extent, config.force_index64);
  const std::string options = element_options(elem_size, index64) +
                              " -DWG=" + std::to_string(config.work_group) +
                              " -DPER_ITEM=" + std::to_string(config.per_item);
  PooledKernel pooled(get_program(context, device, "restride", options), "ipt_restride", device);
  cl::Kernel& kernel = *pooled;
  check_launch(pooled, device, config.work_group, 0, "restride");
  if (config.dry_run) return cl::Event();

  const std::uint64_t chunk = config.work_group * config.per_item;
  const std::uint64_t chunks = (rows * len + chunk - 1) / chunk;
  // The id counter, then one "read" flag per chunk: the caller's zeroed scratch, or a
  // buffer zeroed here.
  const std::uint64_t scratch_bytes = planner::restride_scratch_bytes(config, rows * len);
  std::vector<cl::Event> after;
  const ScratchRegion scratch =
      zeroed_scratch(queue, given_scratch, scratch_bytes, wait, after, "restride");
  cl_uint arg = 0;
  pooled.set(arg++, buffer);
  pooled.set_index(arg++, index64, offset);
  pooled.set_index(arg++, index64, rows);
  pooled.set_index(arg++, index64, len);
  pooled.set_index(arg++, index64, s_in);
  pooled.set_index(arg++, index64, s_out);
  pooled.set_index(arg++, index64, chunks);
  pooled.set(arg++, scratch.buffer);
  pooled.set(arg++, cl_ulong{scratch.offset / 4});
  cl::Event event;
  queue.enqueueNDRangeKernel(kernel, cl::NullRange,
                             cl::NDRange(static_cast<std::size_t>(chunks) * config.work_group),
                             cl::NDRange(config.work_group), &after,
                             event_slot(event, config.event || given_scratch == nullptr));
  if (given_scratch == nullptr) release_when_complete(event, scratch.buffer);  // allocated here
  return event;
}

}  // namespace ipt::runtime
