// SPDX-License-Identifier: Apache-2.0
#include "host/host_sliced.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "host/host_lanes.hpp"
#include "host/host_slicing.hpp"
#include "host/host_staging.hpp"
#include "runtime/error.hpp"
#include "runtime/executor.hpp"
#include "runtime/fault_seam.hpp"
#include "runtime/opencl.hpp"
#include "runtime/transpose.hpp"

namespace ipt::host {

using namespace ipt::runtime;  // the layer below: requests, launches, the fault seam
namespace {

using planner::Stage;

std::vector<std::uint64_t> scaled(const std::vector<std::uint64_t>& blocks, std::uint64_t bytes) {
  std::vector<std::uint64_t> out;
  for (const std::uint64_t b : blocks) out.push_back(b * bytes);
  return out;
}

class SlicedCall {
 public:
  SlicedCall(const HostRequest& request, unsigned slices, const cl::Context& context,
             const cl::Device& device)
      : host_(static_cast<unsigned char*>(request.host)),
        M_(request.rows),
        N_(request.cols),
        elem_(request.elem_size),
        bytes_(M_ * N_ * elem_),
        slicing_(plan_host_slicing(M_, N_, slices)),
        lanes_(take_lanes(context, device, slices)),
        stager_(lanes_, staging_threads(request.threads, bytes_),
                request.chunk_bytes != 0 ? request.chunk_bytes : kStagingBytes) {
    faults::point(faults::Site::kAllocation, "clCreateBuffer");
    buffer_ = cl::Buffer(context, CL_MEM_READ_WRITE, bytes_);
    base_.buffer = buffer_();
    base_.elem_size = elem_;
    base_.context = context();
    base_.device = device();
    base_.buffer_bytes = bytes_;
  }

  // Uploads and transposes; the events after which the device holds the transpose.
  std::vector<cl::Event> transpose() {
    try {
      upload();
      return transpose_rest();
    } catch (...) {
      stager_.finish();  // the uploads read the host memory until they complete
      throw;
    }
  }

  void download() { stager_.download(host_, buffer_, bytes_); }

 private:
  unsigned slices() const { return static_cast<unsigned>(lanes_.size()); }
  // A request for a phase on lane q's queue over bytes [offset, offset + bytes).
  TransposeRequest on_lane(unsigned q, std::uint64_t offset_bytes, std::uint64_t bytes) const {
    TransposeRequest call = base_;
    call.queue = lanes_[q].queue();
    call.offset = offset_bytes / elem_;
    // A padded plan may borrow room only in its own slice: the next one may be uploading.
    call.max_bytes = bytes;
    return call;
  }

  // Uploads through the staging buffers, each slice on its lane's queue, its phase A
  // enqueued after its last chunk.
  void upload() {
    const std::vector<std::uint64_t> cuts = scaled(slicing_.upload, slicing_.m * N_ * elem_);
    unsigned next = 0;  // the first slice whose phase A is not enqueued
    const auto transpose_uploaded = [&](std::uint64_t uploaded) {
      while (next < slices() && cuts[next + 1] <= uploaded) phase_a(next++, cuts);
    };
    stager_.upload(host_, buffer_, cuts, transpose_uploaded);
    transpose_uploaded(bytes_);
  }

  // Enqueues a phase on its lane after the phase before (kernels of two lanes never run
  // at once: each fills the device, and what the lanes overlap is transfers with
  // kernels); `wait` holds its other events. Returns its event.
  template <typename Enqueue>
  cl::Event phase(TransposeRequest call, std::vector<cl_event> wait, const Enqueue& enqueue) {
    if (last_kernel_() != nullptr) wait.push_back(last_kernel_());
    call.num_events_in_wait_list = static_cast<cl_uint>(wait.size());
    call.event_wait_list = wait.empty() ? nullptr : wait.data();
    last_kernel_ = enqueue_with_event(call, enqueue);
    // Another lane's queue may wait for this event: its queue must be submitted (OpenCL
    // requires a flush before an event of one queue is waited for on another).
    faults::point(faults::Site::kCall, "clFlush");
    check_cl(clFlush(call.queue), "clFlush");
    return last_kernel_;
  }

  // 010! of the slice's blocks of m rows, each m x N: a batch of transpositions.
  void phase_a(unsigned q, const std::vector<std::uint64_t>& cuts) {
    if (slicing_.m == 1 || cuts[q] == cuts[q + 1]) return;
    TransposeRequest call = on_lane(q, cuts[q], cuts[q + 1] - cuts[q]);
    call.rows = slicing_.m;
    call.cols = N_;
    call.batch = slicing_.upload[q + 1] - slicing_.upload[q];
    phase(call, {}, [](const TransposeRequest& r) { execute_transpose(r); });
  }

  std::vector<cl::Event> transpose_rest() {
    const unsigned width = slices();
    std::vector<cl::Event> uploaded(width);
    for (unsigned q = 0; q < width; ++q) {
      faults::point(faults::Site::kEnqueue, "clEnqueueMarkerWithWaitList");
      lanes_[q].queue.enqueueMarkerWithWaitList(nullptr, &uploaded[q]);
      check_cl(clFlush(lanes_[q].queue()), "clFlush");  // lane 0 waits for it (phase)
    }
    std::vector<cl_event> wait;
    for (const cl::Event& e : uploaded) wait.push_back(e());
    TransposeRequest middle = on_lane(0, 0, bytes_);
    const Stage middle_stage = slicing_.middle();
    const bool whole = slicing_.whole();
    middle.rows = M_;
    middle.cols = N_;
    const cl::Event b = phase(middle, wait, [&](const TransposeRequest& r) {
      if (whole)
        execute_transpose(r);
      else
        execute_stage(r, middle_stage);
    });
    if (slicing_.n == 1) return {b};
    // 0100! of each slice's blocks of n rows of the transpose (with m = 1: a batch of
    // M x n transpositions).
    std::vector<cl::Event> done;
    const std::uint64_t block = slicing_.n * M_ * elem_;
    for (unsigned q = 0; q < width; ++q) {
      const std::uint64_t first = slicing_.download[q], end = slicing_.download[q + 1];
      if (first == end) continue;
      TransposeRequest call = on_lane(q, first * block, (end - first) * block);
      call.rows = M_;
      call.cols = slicing_.n;
      call.batch = end - first;
      const Stage last = slicing_.last(first, end);
      const bool batch = slicing_.m == 1;
      done.push_back(phase(call, {}, [&](const TransposeRequest& r) {
        if (batch)
          execute_transpose(r);
        else
          execute_stage(r, last);
      }));
    }
    return done;
  }

  unsigned char* const host_;
  const std::uint64_t M_, N_;
  const std::size_t elem_;
  const std::uint64_t bytes_;
  const HostSlicing slicing_;
  TakenLanes lanes_;
  Stager stager_;
  cl::Event last_kernel_;  // the last phase enqueued
  cl::Buffer buffer_;
  TransposeRequest base_;
};

}  // namespace

void sliced_through_device(const HostRequest& request, unsigned slices) {
  const Borrowed<cl::CommandQueue> queue(request.queue);
  const auto context = queue_context(queue);
  const auto device = queue_device(queue);
  SlicedCall call(request, slices, context, device);
  for (const cl::Event& done : call.transpose()) wait_completed(done);
  call.download();
}

}  // namespace ipt::host
