#include "runtime/host_sliced.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/cpu_transpose.hpp"
#include "cpu/thread_team.hpp"
#include "planner/host_slicing.hpp"
#include "runtime/error.hpp"
#include "runtime/executor.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/host_lanes.hpp"
#include "runtime/opencl.hpp"
#include "runtime/transpose.hpp"

namespace ipt::runtime {
namespace {

using planner::Stage;

// Bytes [at, at + bytes) of the matrix, within one slice.
struct Chunk {
  std::uint64_t at = 0, bytes = 0;
  unsigned slice = 0;
};

// Chunks of at most `most` bytes, none across a cut (cuts in bytes, Q + 1 of them).
std::vector<Chunk> chunks_of(const std::vector<std::uint64_t>& cuts, std::uint64_t most) {
  std::vector<Chunk> chunks;
  for (unsigned q = 0; q + 1 < cuts.size(); ++q)
    for (std::uint64_t at = cuts[q]; at < cuts[q + 1]; at += most)
      chunks.push_back({at, std::min<std::uint64_t>(most, cuts[q + 1] - at), q});
  return chunks;
}

std::vector<std::uint64_t> scaled(const std::vector<std::uint64_t>& blocks, std::uint64_t bytes) {
  std::vector<std::uint64_t> out;
  for (const std::uint64_t b : blocks) out.push_back(b * bytes);
  return out;
}

// The host threads that copy through the staging buffers: the request's, or one per
// hardware thread, but no more than one per 4 MiB of the matrix (starting and waking
// them costs more than a small copy).
unsigned copy_threads(const HostRequest& request, std::uint64_t bytes) {
  if (request.threads != 0) return request.threads;
  return static_cast<unsigned>(
      std::min<std::uint64_t>(cpu::default_threads(), 1 + bytes / (std::uint64_t{4} << 20)));
}

void finish_all(TakenLanes& lanes) {
  for (std::size_t q = 0; q < lanes.size(); ++q) clFinish(lanes[q].queue());
}

// Throws when a command the call waits for ended abnormally.
void check_completed(const std::vector<cl::Event>& events) {
  for (const cl::Event& event : events) {
    event.wait();
    cl_int status = CL_COMPLETE;
    check_cl(
        clGetEventInfo(event(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
        "clGetEventInfo");
    if (status < 0)
      fail(IPT_OUT_OF_RESOURCES, "the transposition on the device failed (" +
                                     std::to_string(status) + "); the host memory is unchanged");
  }
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
        chunk_(request.chunk_bytes != 0
                   ? std::min<std::uint64_t>(request.chunk_bytes, kStagingBytes)
                   : kStagingBytes),
        slicing_(planner::plan_host_slicing(M_, N_, slices)),
        lanes_(take_lanes(context, device, slices)),
        team_(copy_threads(request, bytes_)),
        staged_(2 * std::size_t{slices}) {
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
      finish_all(lanes_);  // the uploads read the host memory until they complete
      throw;
    }
  }

  void download() {
    try {
      const std::vector<Chunk> chunks = chunks_of({0, bytes_}, chunk_);
      const unsigned width = slices();
      for (std::size_t first = 0, round = 0; first < chunks.size(); first += width, ++round) {
        const unsigned set = round % 2;
        const std::size_t count = std::min<std::size_t>(width, chunks.size() - first);
        for (std::size_t t = 0; t < count; ++t) {
          const Chunk& c = chunks[first + t];
          faults::point(faults::Site::kEnqueue, "clEnqueueReadBuffer");
          lanes_[t].queue.enqueueReadBuffer(buffer_, CL_FALSE, c.at, c.bytes, lanes_[t].mapped[set],
                                            nullptr, &slot(t, set));
        }
        if (round > 0) unstage(chunks, first - width, width, set ^ 1);
      }
      const std::size_t rounds = (chunks.size() + width - 1) / width;
      if (rounds > 0) {
        const std::size_t first = (rounds - 1) * width;
        unstage(chunks, first, chunks.size() - first, (rounds - 1) % 2);
      }
    } catch (...) {
      const std::string first = cause_of(std::current_exception());
      try {
        finish_all(lanes_);
        faults::point(faults::Site::kEnqueue, "clEnqueueReadBuffer");
        lanes_[0].queue.enqueueReadBuffer(buffer_, CL_TRUE, 0, bytes_, host_);
      } catch (...) {
        fail(IPT_BUFFER_UNDEFINED, "the download failed (" + first +
                                       "), and so did reading the device's transpose again (" +
                                       cause_of(std::current_exception()) +
                                       "): the host memory's contents are undefined");
      }
    }
  }

 private:
  unsigned slices() const { return static_cast<unsigned>(lanes_.size()); }
  cl::Event& slot(std::size_t lane, unsigned set) { return staged_[2 * lane + set]; }

  // A request for a phase on lane q's queue over bytes [offset, offset + bytes).
  TransposeRequest on_lane(unsigned q, std::uint64_t offset_bytes, std::uint64_t bytes) const {
    TransposeRequest call = base_;
    call.queue = lanes_[q].queue();
    call.offset = offset_bytes / elem_;
    // A padded plan may borrow room only in its own slice: the next one may be uploading.
    call.max_bytes = bytes;
    return call;
  }

  // The host copies of a round's chunks (chunk first + t through lane t's staging),
  // shared out over the team: each thread copies its share of every chunk, so that all
  // of them copy whatever the number of slices. copy(t, at, from, bytes) copies bytes
  // [from, from + bytes) of the chunk at `at`.
  template <typename Copy>
  void copy_round(const std::vector<Chunk>& chunks, std::size_t first, std::size_t count,
                  const Copy& copy) {
    const std::uint64_t threads = team_.size();
    team_.run([&](unsigned thread) {
      for (std::size_t t = 0; t < count; ++t) {
        const Chunk& c = chunks[first + t];
        const std::uint64_t from = c.bytes * thread / threads;
        const std::uint64_t to = c.bytes * (thread + 1) / threads;
        if (to > from) copy(t, c.at, from, to - from);
      }
    });
  }

  // Copies the chunks of a round out of the staging buffers of `set` into host memory,
  // once their reads are done.
  void unstage(const std::vector<Chunk>& chunks, std::size_t first, std::size_t count,
               unsigned set) {
    for (std::size_t t = 0; t < count; ++t) slot(t, set).wait();
    copy_round(chunks, first, count,
               [&](std::size_t t, std::uint64_t at, std::uint64_t from, std::uint64_t bytes) {
                 std::memcpy(host_ + at + from,
                             static_cast<unsigned char*>(lanes_[t].mapped[set]) + from,
                             static_cast<std::size_t>(bytes));
               });
  }

  // Rounds of one chunk per lane: the team copies a round into the lanes' staging
  // buffers of one set while the driver moves the round before from the other set; each
  // chunk goes up on its slice's queue, and a slice's phase A follows its last chunk.
  void upload() {
    const std::vector<std::uint64_t> cuts = scaled(slicing_.upload, slicing_.m * N_ * elem_);
    const std::vector<Chunk> chunks = chunks_of(cuts, chunk_);
    const unsigned width = slices();
    unsigned next = 0;  // the first slice whose phase A is not enqueued
    const auto transpose_uploaded = [&](std::uint64_t uploaded) {
      while (next < width && cuts[next + 1] <= uploaded) phase_a(next++, cuts);
    };
    for (std::size_t first = 0, round = 0; first < chunks.size(); first += width, ++round) {
      const unsigned set = round % 2;
      const std::size_t count = std::min<std::size_t>(width, chunks.size() - first);
      for (std::size_t t = 0; t < count; ++t)
        if (slot(t, set)() != nullptr) slot(t, set).wait();  // its last chunk is up
      copy_round(chunks, first, count,
                 [&](std::size_t t, std::uint64_t at, std::uint64_t from, std::uint64_t bytes) {
                   std::memcpy(static_cast<unsigned char*>(lanes_[t].mapped[set]) + from,
                               host_ + at + from, static_cast<std::size_t>(bytes));
                 });
      for (std::size_t t = 0; t < count; ++t) {
        const Chunk& c = chunks[first + t];
        faults::point(faults::Site::kEnqueue, "clEnqueueWriteBuffer");
        lanes_[c.slice].queue.enqueueWriteBuffer(buffer_, CL_FALSE, c.at, c.bytes,
                                                 lanes_[t].mapped[set], nullptr, &slot(t, set));
      }
      const Chunk& last = chunks[first + count - 1];
      transpose_uploaded(last.at + last.bytes);
    }
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
    cl_event done = nullptr;
    call.event = &done;
    enqueue(call);
    last_kernel_ = cl::Event(done);  // takes over the call's reference
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
  const std::uint64_t bytes_, chunk_;
  const planner::HostSlicing slicing_;
  TakenLanes lanes_;
  cpu::ThreadTeam team_;
  std::vector<cl::Event> staged_;  // the last transfer through each lane's staging buffers
  cl::Event last_kernel_;          // the last phase enqueued
  cl::Buffer buffer_;
  TransposeRequest base_;
};

}  // namespace

void sliced_through_device(const HostRequest& request, unsigned slices) {
  // An invalid queue fails here with CL_INVALID_COMMAND_QUEUE (IPT_INVALID_COMMAND_QUEUE).
  const Borrowed<cl::CommandQueue> queue(request.queue);
  const auto context = queue_context(queue);
  const auto device = queue_device(queue);
  // The caller's earlier commands may still write the host memory (a read into it).
  queue.finish();
  SlicedCall call(request, slices, context, device);
  check_completed(call.transpose());
  call.download();
}

}  // namespace ipt::runtime
