// SPDX-License-Identifier: Apache-2.0
#include "host/host_transpose.hpp"

#include <string>
#include <vector>

#include "cpu/cpu_transpose.hpp"
#include "host/host_sliced.hpp"
#include "host/host_staging.hpp"
#include "host/host_streamed.hpp"
#include "runtime/device_query.hpp"
#include "runtime/error.hpp"
#include "runtime/fault_seam.hpp"
#include "runtime/opencl.hpp"
#include "runtime/transpose.hpp"

namespace ipt::host {

using namespace ipt::runtime;  // the layer below: requests, launches, the fault seam
namespace {

void read_back(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::size_t bytes,
               void* host) {
  faults::point(faults::Site::kEnqueue, "clEnqueueReadBuffer");
  queue.enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, host);
}

// Upload, transposition in a buffer of exactly the matrix (the usual scratch beside it,
// never a second matrix), download.
void through_device(const HostRequest& request, std::size_t bytes) {
  const Borrowed<cl::CommandQueue> queue(request.queue);
  const auto cl_context = queue_context(queue);
  const auto device = queue_device(queue);
  faults::point(faults::Site::kAllocation, "clCreateBuffer");
  const cl::Buffer buffer(cl_context, CL_MEM_READ_WRITE, bytes);
  // Pinned: the host memory wrapped in a buffer (CL_MEM_USE_HOST_PTR), which lets the
  // driver move it without staging it through buffers of its own: over PCIe the upload
  // and download of 256 MiB ran at 14 GB/s (2 * bytes / t) this way against 9 from the
  // pageable memory itself; whole calls (ipt-bench host) at 10-20 GB/s against 7-9 from
  // 4 MiB on, but slower below (200 x 300 floats: 1.1 against 3.2 GB/s). Its contents
  // reach the host memory only when it is mapped, after the download.
  cl::Buffer host_buffer;
  if (request.pinning == IPT_HOST_PIN_ON ||
      (request.pinning == IPT_HOST_PIN_AUTO && bytes >= kHostPinFrom)) {
    faults::point(faults::Site::kAllocation, "clCreateBuffer");
    host_buffer =
        cl::Buffer(cl_context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, bytes, request.host);
  }
  cl::Event uploaded;
  if (host_buffer() != nullptr) {
    faults::point(faults::Site::kEnqueue, "clEnqueueCopyBuffer");
    queue.enqueueCopyBuffer(host_buffer, buffer, 0, 0, bytes, nullptr, &uploaded);
  } else {
    faults::point(faults::Site::kEnqueue, "clEnqueueWriteBuffer");
    queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, bytes, request.host, nullptr, &uploaded);
  }

  TransposeRequest call;
  call.queue = request.queue;
  call.buffer = buffer();
  call.rows = request.rows;
  call.cols = request.cols;
  call.elem_size = request.elem_size;
  const cl_event after_upload = uploaded();
  call.num_events_in_wait_list = 1;
  call.event_wait_list = &after_upload;
  call.context = cl_context();
  call.device = device();
  call.buffer_bytes = bytes;
  cl::Event transposed;
  try {
    transposed = enqueue_with_event(call, execute_transpose);
  } catch (...) {
    queue.finish();  // the upload reads the host memory until it completes
    throw;
  }
  // The host memory is written only now, after a transposition that completed: a
  // command that failed before leaves it as it was.
  wait_completed(transposed);
  // The download may have written part of the host memory when it fails; the transpose
  // is still whole in the device buffer, so it is read again, plainly, before giving up.
  try {
    if (host_buffer() == nullptr) {
      read_back(queue, buffer, bytes, request.host);
      return;
    }
    // The map waits for the copy's event: on an out-of-order queue it would not otherwise.
    std::vector<cl::Event> copied(1);
    faults::point(faults::Site::kEnqueue, "clEnqueueCopyBuffer");
    queue.enqueueCopyBuffer(buffer, host_buffer, 0, 0, bytes, nullptr, &copied[0]);
    faults::point(faults::Site::kEnqueue, "clEnqueueMapBuffer");
    void* mapped = queue.enqueueMapBuffer(host_buffer, CL_TRUE, CL_MAP_READ, 0, bytes, &copied);
    cl::Event unmapped;
    faults::point(faults::Site::kEnqueue, "clEnqueueUnmapMemObject");
    queue.enqueueUnmapMemObject(host_buffer, mapped, nullptr, &unmapped);
    unmapped.wait();
  } catch (...) {
    const std::string first = cause_of(std::current_exception());
    try {
      queue.finish();
      read_back(queue, buffer, bytes, request.host);
    } catch (...) {
      const std::string second = cause_of(std::current_exception());
      fail(IPT_BUFFER_UNDEFINED, "the download failed (" + first +
                                     "), and so did reading the "
                                     "device's transpose again (" +
                                     second + "): the host memory's contents are undefined");
    }
  }
}

}  // namespace

// The largest allocation of the queue's device.
std::uint64_t max_alloc_of(cl_command_queue queue) {
  cl_device_id device = nullptr;
  if (clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr) != CL_SUCCESS)
    fail(IPT_INVALID_COMMAND_QUEUE, "the command queue is not valid");
  return query_device_profile(device).max_alloc_bytes;
}

ipt_host_scheme host_scheme(const HostRequest& request) {
  if (request.scheme != IPT_HOST_AUTO) return request.scheme;
  if (request.queue == nullptr || request.rows == request.cols) return IPT_HOST_CPU;
  const std::uint64_t bytes = request.rows * request.cols * request.elem_size;
  // A matrix that one allocation of the device cannot hold is streamed through it
  // (host_stream_part), which beat the CPU on rectangles (80000 x 75000 floats on a GPU
  // behind PCIe and 16 cores: 4.0 against 2.2 GB/s); squares stay on the CPU anyway.
  return bytes < kHostDeviceFrom ? IPT_HOST_CPU : IPT_HOST_DEVICE;
}

std::uint64_t host_stream_part(const HostRequest& request) {
  if (request.part_bytes != 0) return request.part_bytes;
  const std::uint64_t bytes = request.rows * request.cols * request.elem_size;
  const std::uint64_t max_alloc = max_alloc_of(request.queue);
  return max_alloc != 0 && bytes > max_alloc ? max_alloc / 2 : 0;
}

unsigned host_slices(const HostRequest& request) {
  if (request.slices != 0) return request.slices;
  const std::uint64_t bytes = request.rows * request.cols * request.elem_size;
  return bytes >= kHostSlicedFrom ? kHostSlices : 1;
}

void execute_host_transpose(const HostRequest& request) {
  // The caller's earlier commands may still write the host memory (a read into it): every
  // way, the CPU's too, starts once they are done, and a call returns only then, also for
  // a row or a column, whose transpose has the same bytes. No upload may start before
  // either: NVIDIA's driver took the host memory of a non-blocking write at its enqueue (a
  // call transposed the stale contents of a 96 x 128 matrix whose read was still pending),
  // and a CL_MEM_USE_HOST_PTR buffer may cache it when created. An invalid queue fails
  // here (IPT_INVALID_COMMAND_QUEUE).
  if (request.queue != nullptr) Borrowed<cl::CommandQueue>(request.queue).finish();
  if (request.rows <= 1 || request.cols <= 1) return;
  const std::size_t bytes =
      static_cast<std::size_t>(request.rows * request.cols * request.elem_size);
  if (host_scheme(request) == IPT_HOST_CPU)
    cpu::transpose(request.host, request.rows, request.cols, request.elem_size, request.threads);
  else if (const std::uint64_t part = host_stream_part(request); part != 0)
    streamed_through_device(request, part);
  else if (const unsigned slices = host_slices(request); slices > 1)
    sliced_through_device(request, slices);
  else
    through_device(request, bytes);
}

}  // namespace ipt::host
