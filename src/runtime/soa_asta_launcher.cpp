#include "runtime/soa_asta_launcher.hpp"

#include <algorithm>
#include <string>

#include "runtime/deferred_release.hpp"
#include "runtime/error.hpp"
#include "runtime/kernel_args.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/program_cache.hpp"

namespace ipt::runtime {

cl::Event enqueue_soa_0100(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                           std::uint64_t offset, std::uint64_t I, std::uint64_t A, std::uint64_t B,
                           std::uint64_t C, std::size_t elem_size, const planner::SoaConfig& config,
                           const std::vector<cl::Event>& wait, const ScratchRegion* zeroed_flags) {
  check_elem_size(elem_size);
  if (config.vw == 0 || config.units == 0)
    fail(IPT_INVALID_VALUE, "SoA-ASTA: vw and units must be positive");
  if (I == 0 || A <= 1 || B <= 1 || C == 0)
    return config.dry_run ? cl::Event() : enqueue_identity(queue, wait, config.event);  // identity
  const auto context = queue_context(queue);
  const auto device = queue_device(queue);
  const std::size_t local_mem = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();

  // Chunk L: what the caller asked for, else as much of C as a unit holds. Never more
  // than a unit holds: that is where the authors' register tiling dropped elements.
  const std::uint64_t capacity = planner::soa_chunk_capacity(config, local_mem, elem_size);
  const std::uint64_t L = planner::soa_chunk(config, local_mem, elem_size, C);
  if (L == 0 || L > capacity)
    fail(IPT_OUT_OF_RESOURCES, "SoA-ASTA: a unit holds " + std::to_string(capacity) +
                                   " elements, the chunk needs " + std::to_string(config.chunk));
  const std::uint64_t K = (C + L - 1) / L;
  const std::uint64_t items = I * K * A * B;
  const bool index64 = needs_index64(offset, I * A * B * C, config.force_index64);
  // Flag words are counted in 32 bits (and start slices, checked below).
  if (items > (std::uint64_t{1} << 36))
    fail(IPT_OUT_OF_RESOURCES, "SoA-ASTA: more than 2^36 items (" + std::to_string(items) + ")");

  // Starts are handed out a slice of a flag word at a time: one unit per slice (more
  // would only start and stop), at most max_groups groups. Slices are cut for the units
  // that run at once, a quarter of max_groups' (the default is 64 groups per compute
  // unit; an H200 multiprocessor holds 25 of this kernel's): cutting them for all of
  // max_groups' units made stages of 10^5 items 7-10% slower (more starts cutting chains
  // that would have run on), while stages of 10^2-10^4 items gained 2-4x either way.
  const std::uint64_t max_groups =
      config.max_groups == 0 ? std::uint64_t{65536} : config.max_groups;
  const std::uint64_t concurrent_units = std::max<std::uint64_t>(1, max_groups / 4) * config.units;
  const std::size_t slice_items = config.slice_items != 0
                                      ? config.slice_items
                                      : planner::soa_slice_items(items, concurrent_units);
  std::uint32_t slice_shift = 0;
  while ((std::size_t{32} >> slice_shift) > slice_items) ++slice_shift;
  if ((std::size_t{32} >> slice_shift) != slice_items)
    fail(IPT_INVALID_VALUE, "SoA-ASTA: slice_items must be a power of two from 1 to 32");
  const std::uint64_t slices = ((items + 31) / 32) << slice_shift;
  if (slices + max_groups * config.units >= (std::uint64_t{1} << 32))
    fail(IPT_OUT_OF_RESOURCES, "SoA-ASTA: more start slices than a 32-bit counter holds");
  const std::uint64_t wanted = (slices + config.units - 1) / config.units;
  const std::uint64_t groups = std::min(wanted, max_groups);

  const std::size_t work_group = config.vw * config.units;
  const std::string options =
      element_options(elem_size, index64) + " -DVW=" + std::to_string(config.vw) +
      " -DUNITS=" + std::to_string(config.units) + " -DREGS=" + std::to_string(config.regs);
  PooledKernel pooled(get_program(context, device, "soa_asta", options), "ipt_soa_100", device);
  cl::Kernel& kernel = *pooled;
  // Register tiling needs no local tiles; a local argument may not be empty, so it gets
  // one element it never touches.
  const std::uint64_t local_bytes =
      config.regs > 0 ? elem_size : 2 * std::uint64_t{config.units} * L * elem_size;
  check_launch(pooled, device, work_group, local_bytes, "SoA-ASTA 100!");
  if (config.dry_run) return cl::Event();

  // One bit per item and the start counter: the caller's zeroed scratch region, or a
  // buffer zeroed here and released when the kernel completes (below).
  const std::uint64_t flag_bytes = planner::soa_flag_bytes(items);
  std::vector<cl::Event> after;
  const ScratchRegion flags =
      zeroed_scratch(queue, zeroed_flags, flag_bytes, wait, after, "SoA-ASTA");

  cl_uint arg = 0;
  pooled.set(arg++, buffer);
  pooled.set_index(arg++, index64, offset);
  pooled.set_index(arg++, index64, A);
  pooled.set_index(arg++, index64, B);
  pooled.set_index(arg++, index64, C);
  pooled.set_index(arg++, index64, L);
  pooled.set_index(arg++, index64, K);
  pooled.set_index(arg++, index64, items);
  pooled.set(arg++, flags.buffer);
  pooled.set(arg++, cl_ulong{flags.offset / 4});
  pooled.set(arg++, cl::Local(static_cast<std::size_t>(local_bytes)));
  pooled.set(arg++, cl_uint{slice_shift});
  cl::Event event;
  queue.enqueueNDRangeKernel(
      kernel, cl::NullRange, cl::NDRange(static_cast<std::size_t>(groups) * work_group),
      cl::NDRange(work_group), &after, event_slot(event, config.event || zeroed_flags == nullptr));
  // Allocated here: released by the event's callback (so this launch always has one).
  if (zeroed_flags == nullptr) release_when_complete(event, flags.buffer);
  return event;
}

cl::Event enqueue_soa_100(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                          std::uint64_t offset, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                          std::size_t elem_size, const planner::SoaConfig& config,
                          const std::vector<cl::Event>& wait) {
  return enqueue_soa_0100(queue, buffer, offset, 1, A, B, C, elem_size, config, wait, nullptr);
}

cl::Event enqueue_soa_1000(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                           std::uint64_t offset, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                           std::uint64_t D, std::size_t elem_size, const planner::SoaConfig& config,
                           const std::vector<cl::Event>& wait) {
  return enqueue_soa_0100(queue, buffer, offset, 1, A, B, C * D, elem_size, config, wait, nullptr);
}

}  // namespace ipt::runtime
