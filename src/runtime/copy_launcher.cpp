#include "runtime/copy_launcher.hpp"

#include <algorithm>

#include "runtime/kernel_args.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/program_cache.hpp"

namespace ipt::runtime {

cl::Event enqueue_copy(const cl::CommandQueue& queue, const cl::Buffer& src,
                       std::uint64_t src_offset, const cl::Buffer& dst, std::uint64_t dst_offset,
                       std::uint64_t count, std::size_t elem_size,
                       const std::vector<cl::Event>& wait, bool dry_run, bool event,
                       const ScratchRegion* zero) {
  check_elem_size(elem_size);
  const std::uint64_t zero_words = zero != nullptr ? zero->bytes / 4 : 0;
  if (zero != nullptr && (zero->offset % 4 != 0 || zero->bytes % 4 != 0))
    fail(IPT_INTERNAL_ERROR, "copy: the region to zero is not made of whole 32-bit words");
  if (count == 0 && zero_words == 0)
    return dry_run ? cl::Event() : enqueue_identity(queue, wait, event);
  const auto context = queue_context(queue);
  const auto device = queue_device(queue);
  const bool index64 = needs_index64(std::max(src_offset, dst_offset), count, false);
  constexpr std::size_t kWorkGroup = 256;
  PooledKernel pooled(get_program(context, device, "copy", element_options(elem_size, index64)),
                      "ipt_copy", device);
  check_launch(pooled, device, kWorkGroup, 0, "copy");
  if (dry_run) return cl::Event();
  // A few elements per work-item for large copies; a grid of at most 1024 groups.
  const std::uint64_t items = std::max(count, zero_words);
  const std::uint64_t groups = std::min<std::uint64_t>(1024, (items + kWorkGroup - 1) / kWorkGroup);
  cl::Kernel& kernel = *pooled;
  cl_uint arg = 0;
  pooled.set(arg++, src);
  pooled.set_index(arg++, index64, src_offset);
  pooled.set(arg++, dst);
  pooled.set_index(arg++, index64, dst_offset);
  pooled.set_index(arg++, index64, count);
  // Without a region the zeroing loop runs no iteration; any buffer fills the slot.
  pooled.set(arg++, zero_words > 0 ? zero->buffer : dst);
  pooled.set(arg++, cl_ulong{zero_words > 0 ? zero->offset / 4 : 0});
  pooled.set(arg++, cl_ulong{zero_words});
  cl::Event done;
  queue.enqueueNDRangeKernel(kernel, cl::NullRange,
                             cl::NDRange(static_cast<std::size_t>(groups) * kWorkGroup),
                             cl::NDRange(kWorkGroup), &wait, event_slot(done, event));
  return done;
}

}  // namespace ipt::runtime
