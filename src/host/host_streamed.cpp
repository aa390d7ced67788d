// SPDX-License-Identifier: Apache-2.0
#include "host/host_streamed.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "cpu/cpu_transpose.hpp"
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

// Enqueues a phase on the part buffer's first `count` blocks; returns its event.
using DevicePhase =
    std::function<cl::Event(TransposeRequest call, std::uint64_t first, std::uint64_t count)>;
// The same phase on the CPU, on the host bytes of blocks [first, first + count).
using CpuPhase = std::function<void(unsigned char* part, std::uint64_t first, std::uint64_t count)>;

class StreamedCall {
 public:
  StreamedCall(const HostRequest& request, const HostSlicing& slicing, const cl::Context& context,
               const cl::Device& device)
      : host_(static_cast<unsigned char*>(request.host)),
        largest_(largest_part(slicing, request.elem_size)),
        lanes_(take_lanes(context, device, kHostSlices)),
        stager_(lanes_, staging_threads(request.threads, largest_),
                request.chunk_bytes != 0 ? request.chunk_bytes : kStagingBytes) {
    faults::point(faults::Site::kAllocation, "clCreateBuffer");
    part_ = cl::Buffer(context, CL_MEM_READ_WRITE, largest_);
    // Each part's kernels follow its upload on lane 0's queue (Stager::upload).
    base_.queue = lanes_[0].queue();
    base_.buffer = part_();
    base_.elem_size = request.elem_size;
    base_.context = context();
    base_.device = device();
    base_.buffer_bytes = largest_;
  }

  // Each part of `cuts` (blocks of block_bytes) through the device, or on the CPU once
  // the device has failed.
  void run(const std::vector<std::uint64_t>& cuts, std::uint64_t block_bytes,
           const DevicePhase& on_device, const CpuPhase& on_cpu) {
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
      const std::uint64_t first = cuts[k], count = cuts[k + 1] - cuts[k];
      unsigned char* const part = host_ + first * block_bytes;
      const std::uint64_t bytes = count * block_bytes;
      if (device_ok_ && through_device(part, bytes, first, count, on_device)) continue;
      on_cpu(part, first, count);
    }
  }

 private:
  static std::uint64_t largest_part(const HostSlicing& slicing, std::size_t e) {
    std::uint64_t largest = 0;
    for (std::size_t k = 0; k + 1 < slicing.upload.size(); ++k)
      largest = std::max(
          largest, (slicing.upload[k + 1] - slicing.upload[k]) * slicing.m * slicing.cols * e);
    for (std::size_t k = 0; k + 1 < slicing.download.size(); ++k)
      largest = std::max(
          largest, (slicing.download[k + 1] - slicing.download[k]) * slicing.n * slicing.rows * e);
    return largest;
  }

  // Uploads, transposes and downloads one part; false (the host bytes untouched) when the
  // device failed before the download.
  bool through_device(unsigned char* part, std::uint64_t bytes, std::uint64_t first,
                      std::uint64_t count, const DevicePhase& on_device) {
    try {
      stager_.upload(part, part_, {0, bytes});
      TransposeRequest call = base_;
      call.max_bytes = bytes;
      wait_completed(on_device(call, first, count));
    } catch (...) {
      stager_.finish();  // the upload reads the host bytes until it completes
      device_ok_ = false;
      return false;
    }
    stager_.download(part, part_, bytes);
    return true;
  }

  unsigned char* const host_;
  const std::uint64_t largest_;
  TakenLanes lanes_;
  Stager stager_;
  cl::Buffer part_;
  TransposeRequest base_;
  bool device_ok_ = true;
};

// Host work on one block (or the whole grid) after the host memory was first written:
// the CPU path throws only before it moves anything (its workspace), so it is tried again
// on the calling thread alone, with the least workspace; when that fails too the matrix
// is half-way, and the call says so.
template <typename Work>
void on_host(unsigned threads, const Work& work) {
  try {
    work(threads);
  } catch (...) {
    const std::string cause = cause_of(std::current_exception());
    try {
      work(1u);
    } catch (...) {
      fail(IPT_BUFFER_UNDEFINED, "host work of a streamed transposition failed (" + cause +
                                     "), and again on one thread (" +
                                     cause_of(std::current_exception()) +
                                     "): the host memory's contents are undefined");
    }
  }
}

}  // namespace

void streamed_through_device(const HostRequest& request, std::uint64_t part_bytes) {
  const std::uint64_t M = request.rows, N = request.cols;
  const std::size_t e = request.elem_size;
  const HostSlicing slicing = plan_host_streaming(M, N, e, part_bytes);
  const Borrowed<cl::CommandQueue> queue(request.queue);
  if (slicing.whole()) {
    cpu::transpose(request.host, M, N, e, request.threads);
    return;
  }
  const auto context = queue_context(queue);
  const auto device = queue_device(queue);
  StreamedCall call(request, slicing, context, device);
  const std::uint64_t m = slicing.m, n = slicing.n, Mb = M / m;
  const unsigned threads = request.threads;
  // A: blocks of m rows, each m x N, transposed.
  if (m > 1)
    call.run(
        slicing.upload, m * N * e,
        [&](TransposeRequest r, std::uint64_t, std::uint64_t count) {
          r.rows = m;
          r.cols = N;
          r.batch = count;
          return enqueue_with_event(r, execute_transpose);
        },
        [&](unsigned char* part, std::uint64_t, std::uint64_t count) {
          for (std::uint64_t b = 0; b < count; ++b)
            on_host(threads, [&](unsigned t) { cpu::transpose(part + b * m * N * e, m, N, e, t); });
        });
  // B: the grid of blocks of n m elements, on the host.
  on_host(threads,
          [&](unsigned t) { cpu::transpose_blocks(request.host, Mb, N / n, n * m * e, t); });
  // C: blocks of n rows of the transpose, each an Mb x n grid of m-element blocks.
  if (n > 1)
    call.run(
        slicing.download, n * M * e,
        [&](TransposeRequest r, std::uint64_t first, std::uint64_t count) {
          if (m == 1) {
            r.rows = M;
            r.cols = n;
            r.batch = count;
            return enqueue_with_event(r, execute_transpose);
          }
          const planner::Stage last = slicing.last(first, first + count);
          return enqueue_with_event(r, [&](const TransposeRequest& c) { execute_stage(c, last); });
        },
        [&](unsigned char* part, std::uint64_t, std::uint64_t count) {
          for (std::uint64_t b = 0; b < count; ++b) {
            unsigned char* const block = part + b * n * M * e;
            on_host(threads, [&](unsigned t) {
              if (m == 1)
                cpu::transpose(block, M, n, e, t);
              else
                cpu::transpose_blocks(block, Mb, n, m * e, t);
            });
          }
        });
}

}  // namespace ipt::host
