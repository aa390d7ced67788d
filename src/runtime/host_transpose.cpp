#include "runtime/host_transpose.hpp"

#include <string>
#include <vector>

#include "cpu/cpu_transpose.hpp"
#include "runtime/device_query.hpp"
#include "runtime/error.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/opencl.hpp"
#include "runtime/transpose.hpp"

namespace ipt::runtime {
namespace {

// Upload, transposition in a buffer of exactly the matrix (the usual scratch beside it,
// never a second matrix), download.
void through_device(const HostRequest& request, std::size_t bytes) {
  cl_context context = nullptr;
  if (clGetCommandQueueInfo(request.queue, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr) !=
      CL_SUCCESS)
    fail(IPT_INVALID_COMMAND_QUEUE, "the command queue is not valid");
  cl_device_id device = nullptr;
  check_cl(clGetCommandQueueInfo(request.queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr),
           "clGetCommandQueueInfo(CL_QUEUE_DEVICE)");
  const Borrowed<cl::CommandQueue> queue(request.queue);
  faults::point(faults::Site::kAllocation, "clCreateBuffer");
  const cl::Buffer buffer(Borrowed<cl::Context>(context), CL_MEM_READ_WRITE, bytes);
  faults::point(faults::Site::kEnqueue, "clEnqueueWriteBuffer");
  cl::Event uploaded;
  queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, bytes, request.host, nullptr, &uploaded);

  TransposeRequest call;
  call.queue = request.queue;
  call.buffer = buffer();
  call.rows = request.rows;
  call.cols = request.cols;
  call.elem_size = request.elem_size;
  const cl_event after_upload = uploaded();
  call.num_events_in_wait_list = 1;
  call.event_wait_list = &after_upload;
  cl_event transposed_handle = nullptr;
  call.event = &transposed_handle;
  call.context = context;
  call.device = device;
  call.buffer_bytes = bytes;
  try {
    execute_transpose(call);
  } catch (...) {
    queue.finish();  // the upload reads the host memory until it completes
    throw;
  }
  const cl::Event transposed(transposed_handle);  // takes over the call's reference
  // The host memory is written only now, after a transposition that completed: a
  // command that failed before leaves it as it was.
  transposed.wait();
  cl_int status = CL_COMPLETE;
  check_cl(clGetEventInfo(transposed(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                          nullptr),
           "clGetEventInfo");
  if (status < 0)
    fail(IPT_OUT_OF_RESOURCES, "the transposition on the device failed (" + std::to_string(status) +
                                   "); the host memory is unchanged");
  faults::point(faults::Site::kEnqueue, "clEnqueueReadBuffer");
  queue.enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, request.host);
}

}  // namespace

ipt_host_scheme host_scheme(const HostRequest& request) {
  if (request.scheme != IPT_HOST_AUTO) return request.scheme;
  if (request.queue == nullptr || request.rows == request.cols) return IPT_HOST_CPU;
  const std::uint64_t bytes = request.rows * request.cols * request.elem_size;
  if (bytes < kHostDeviceFrom) return IPT_HOST_CPU;
  // A matrix that one allocation of the device cannot hold stays on the CPU.
  cl_device_id device = nullptr;
  if (clGetCommandQueueInfo(request.queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr) !=
      CL_SUCCESS)
    fail(IPT_INVALID_COMMAND_QUEUE, "the command queue is not valid");
  const std::uint64_t max_alloc = query_device_profile(device).max_alloc_bytes;
  return max_alloc != 0 && bytes > max_alloc ? IPT_HOST_CPU : IPT_HOST_DEVICE;
}

void execute_host_transpose(const HostRequest& request) {
  if (request.rows <= 1 || request.cols <= 1) return;  // its transpose has the same bytes
  const std::size_t bytes =
      static_cast<std::size_t>(request.rows * request.cols * request.elem_size);
  if (host_scheme(request) == IPT_HOST_CPU)
    cpu::transpose(request.host, request.rows, request.cols, request.elem_size, request.threads);
  else
    through_device(request, bytes);
}

}  // namespace ipt::runtime
