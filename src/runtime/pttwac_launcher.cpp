#include "runtime/pttwac_launcher.hpp"

#include <algorithm>
#include <string>

#include "runtime/error.hpp"
#include "runtime/kernel_args.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/soa_asta_launcher.hpp"

namespace ipt::runtime {
namespace {

int log2_of_spreading(std::size_t spreading) {
  for (int k = 0; k <= 5; ++k)
    if (spreading == (std::size_t{1} << k)) return k;
  fail(IPT_INVALID_VALUE,
       "PTTWAC: spreading factor " + std::to_string(spreading) + " is not 1, 2, 4, 8, 16 or 32");
}

}  // namespace

cl::Event enqueue_pttwac_010(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                             std::uint64_t offset, std::uint64_t A, std::uint64_t B,
                             std::uint64_t C, std::size_t elem_size,
                             const planner::PttwacConfig& config,
                             const std::vector<cl::Event>& wait,
                             const ScratchRegion* zeroed_flags) {
  check_elem_size(elem_size);
  const int log2_spreading = log2_of_spreading(config.spreading);
  if (config.work_group == 0) fail(IPT_INVALID_VALUE, "PTTWAC: work_group must be positive");
  if (A == 0 || B <= 1 || C <= 1)
    return config.dry_run ? cl::Event() : enqueue_identity(queue, wait, config.event);  // identity

  if (config.global_flags) {
    // 010! on (A, B, C) is 0100! on (A, B, C, 1): super-elements of one element, one unit
    // per work-item, flags in global memory.
    return enqueue_soa_0100(queue, buffer, offset, A, B, C, 1, elem_size,
                            planner::pttwac_global_soa(config), wait, zeroed_flags);
  }

  const auto context = queue_context(queue);
  const auto device = queue_device(queue);
  const std::uint64_t n = B * C;
  const bool index64 = needs_index64(offset, A * n, config.force_index64);
  const std::string options = element_options(elem_size, index64) +
                              " -DLOG2_SPREAD=" + std::to_string(log2_spreading) +
                              " -DFLAG_PADDING=" + (config.padding ? "1" : "0");
  PooledKernel pooled(get_program(context, device, "pttwac", options), "ipt_pttwac_010", device);
  cl::Kernel& kernel = *pooled;
  const std::uint64_t words = planner::pttwac_flag_words(n, config.spreading, config.padding);
  check_launch(pooled, device, config.work_group, words * 4, "PTTWAC 010!");
  if (config.dry_run) return cl::Event();

  const std::uint64_t groups =
      std::min(A, config.max_groups == 0 ? std::uint64_t{65536} : config.max_groups);
  cl_uint arg = 0;
  pooled.set(arg++, buffer);
  pooled.set_index(arg++, index64, offset);
  pooled.set_index(arg++, index64, A);
  pooled.set_index(arg++, index64, B);
  pooled.set_index(arg++, index64, C);
  pooled.set_index(arg++, index64, words);
  pooled.set(arg++, cl::Local(static_cast<std::size_t>(words * 4)));
  cl::Event event;
  queue.enqueueNDRangeKernel(
      kernel, cl::NullRange, cl::NDRange(static_cast<std::size_t>(groups) * config.work_group),
      cl::NDRange(config.work_group), &wait, event_slot(event, config.event));
  return event;
}

}  // namespace ipt::runtime
