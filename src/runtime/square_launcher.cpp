#include "runtime/square_launcher.hpp"

#include <string>

#include "runtime/error.hpp"
#include "runtime/kernel_args.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/program_cache.hpp"

namespace ipt::runtime {

cl::Kernel square_kernel(const cl::Context& context, const cl::Device& device,
                         std::size_t elem_size, const planner::SquarePlan& plan) {
  const std::string options = element_options(elem_size, plan.index64) +
                              " -DTILE=" + std::to_string(plan.tile) +
                              " -DWG_ROWS=" + std::to_string(plan.wg_rows);
  cl::Kernel kernel(get_program(context, device, "square", options)->program(), "ipt_square_swap");
  const std::size_t wg = plan.tile * plan.wg_rows;
  const auto limit = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);
  if (limit < wg) throw WorkGroupTooLarge(wg, limit);
  return kernel;
}

cl::Event enqueue_square(const cl::CommandQueue& queue, cl::Kernel& kernel,
                         const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t n,
                         const planner::SquarePlan& plan, const std::vector<cl::Event>& wait,
                         bool event_wanted) {
  cl_uint arg = 0;
  kernel.setArg(arg++, buffer);
  set_index_arg(kernel, arg++, plan.index64, offset);
  set_index_arg(kernel, arg++, plan.index64, n);
  set_index_arg(kernel, arg++, plan.index64, plan.num_pairs);
  cl::Event event;
  queue.enqueueNDRangeKernel(
      kernel, cl::NullRange, cl::NDRange(plan.grid_x * plan.tile, plan.grid_y * plan.wg_rows),
      cl::NDRange(plan.tile, plan.wg_rows), &wait, event_slot(event, event_wanted));
  return event;
}

cl::Event enqueue_square(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                         std::uint64_t offset, std::uint64_t n, std::size_t elem_size,
                         const planner::SquarePlan& plan, const std::vector<cl::Event>& wait) {
  cl::Kernel kernel = square_kernel(queue_context(queue), queue_device(queue), elem_size, plan);
  return enqueue_square(queue, kernel, buffer, offset, n, plan, wait);
}

}  // namespace ipt::runtime
