// SPDX-License-Identifier: Apache-2.0
#include "host/host_staging.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "cpu/cpu_transpose.hpp"
#include "runtime/error.hpp"
#include "runtime/executor.hpp"
#include "runtime/fault_seam.hpp"

namespace ipt::host {

using namespace ipt::runtime;  // the layer below: requests, launches, the fault seam

unsigned staging_threads(unsigned requested, std::uint64_t bytes) {
  // A request beyond a few threads per hardware thread only adds threads that wait for a
  // core (4294967295 started threads until the system refused them).
  if (requested != 0) return std::min(requested, 4 * cpu::default_threads());
  return static_cast<unsigned>(
      std::min<std::uint64_t>(cpu::default_threads(), 1 + bytes / (std::uint64_t{4} << 20)));
}

void wait_completed(const cl::Event& event) {
  event.wait();
  cl_int status = CL_COMPLETE;
  check_cl(
      clGetEventInfo(event(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
      "clGetEventInfo");
  if (status < 0)
    fail(IPT_OUT_OF_RESOURCES, "the transposition on the device failed (" + std::to_string(status) +
                                   "); the host memory is unchanged");
}

Stager::Stager(TakenLanes& lanes, unsigned threads, std::uint64_t chunk)
    : lanes_(lanes),
      team_(threads),
      chunk_(std::min<std::uint64_t>(chunk, kStagingBytes)),
      staged_(2 * lanes.size()) {}

std::vector<Stager::Chunk> Stager::chunks_of(const std::vector<std::uint64_t>& cuts) const {
  std::vector<Chunk> chunks;
  for (unsigned q = 0; q + 1 < cuts.size(); ++q)
    for (std::uint64_t at = cuts[q]; at < cuts[q + 1]; at += chunk_)
      chunks.push_back({at, std::min<std::uint64_t>(chunk_, cuts[q + 1] - at), q});
  return chunks;
}

void Stager::copy_round(
    const std::vector<Chunk>& chunks, std::size_t first, std::size_t count,
    const std::function<void(std::size_t, std::uint64_t, std::uint64_t, std::uint64_t)>& copy) {
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

void Stager::upload(const unsigned char* host, const cl::Buffer& buffer,
                    const std::vector<std::uint64_t>& cuts,
                    const std::function<void(std::uint64_t)>& uploaded) {
  const std::vector<Chunk> chunks = chunks_of(cuts);
  const std::size_t width = lanes_.size();
  for (std::size_t first = 0, round = 0; first < chunks.size(); first += width, ++round) {
    const unsigned set = round % 2;
    const std::size_t count = std::min(width, chunks.size() - first);
    for (std::size_t t = 0; t < count; ++t)
      if (slot(t, set)() != nullptr) slot(t, set).wait();  // its last chunk is up
    copy_round(chunks, first, count,
               [&](std::size_t t, std::uint64_t at, std::uint64_t from, std::uint64_t bytes) {
                 std::memcpy(static_cast<unsigned char*>(lanes_[t].mapped[set]) + from,
                             host + at + from, static_cast<std::size_t>(bytes));
               });
    for (std::size_t t = 0; t < count; ++t) {
      const Chunk& c = chunks[first + t];
      faults::point(faults::Site::kEnqueue, "clEnqueueWriteBuffer");
      lanes_[c.slice].queue.enqueueWriteBuffer(buffer, CL_FALSE, c.at, c.bytes,
                                               lanes_[t].mapped[set], nullptr, &slot(t, set));
    }
    if (uploaded) {
      const Chunk& last = chunks[first + count - 1];
      uploaded(last.at + last.bytes);
    }
  }
}

void Stager::read_rounds(unsigned char* host, const cl::Buffer& buffer, std::uint64_t bytes) {
  const std::vector<Chunk> chunks = chunks_of({0, bytes});
  const std::size_t width = lanes_.size();
  // Copies a round out of the staging buffers of `set` once its reads are done.
  const auto unstage = [&](std::size_t first, std::size_t count, unsigned set) {
    for (std::size_t t = 0; t < count; ++t) slot(t, set).wait();
    copy_round(chunks, first, count,
               [&](std::size_t t, std::uint64_t at, std::uint64_t from, std::uint64_t n) {
                 std::memcpy(host + at + from,
                             static_cast<unsigned char*>(lanes_[t].mapped[set]) + from,
                             static_cast<std::size_t>(n));
               });
  };
  std::size_t first = 0, round = 0;
  for (; first < chunks.size(); first += width, ++round) {
    const unsigned set = round % 2;
    const std::size_t count = std::min(width, chunks.size() - first);
    for (std::size_t t = 0; t < count; ++t) {
      const Chunk& c = chunks[first + t];
      faults::point(faults::Site::kEnqueue, "clEnqueueReadBuffer");
      lanes_[t].queue.enqueueReadBuffer(buffer, CL_FALSE, c.at, c.bytes, lanes_[t].mapped[set],
                                        nullptr, &slot(t, set));
    }
    if (round > 0) unstage(first - width, width, set ^ 1);
  }
  if (round > 0) {
    const std::size_t last = (round - 1) * width;
    unstage(last, chunks.size() - last, (round - 1) % 2);
  }
}

void Stager::download(unsigned char* host, const cl::Buffer& buffer, std::uint64_t bytes) {
  try {
    read_rounds(host, buffer, bytes);
  } catch (...) {
    const std::string first = cause_of(std::current_exception());
    try {
      finish();
      faults::point(faults::Site::kEnqueue, "clEnqueueReadBuffer");
      lanes_[0].queue.enqueueReadBuffer(buffer, CL_TRUE, 0, static_cast<std::size_t>(bytes), host);
    } catch (...) {
      fail(IPT_BUFFER_UNDEFINED, "the download failed (" + first +
                                     "), and so did reading the device's transpose again (" +
                                     cause_of(std::current_exception()) +
                                     "): the host memory's contents are undefined");
    }
  }
}

void Stager::finish() {
  for (std::size_t q = 0; q < lanes_.size(); ++q) clFinish(lanes_[q].queue());
}

}  // namespace ipt::host
