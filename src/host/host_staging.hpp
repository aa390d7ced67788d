// SPDX-License-Identifier: Apache-2.0
// Moves host memory to and from a device buffer through the pinned staging buffers of
// taken lanes (host_lanes.hpp), in rounds of one chunk per lane: a team of host threads
// copies one round into (or out of) the staging buffers of one set while the driver moves
// the round before through the other set, at the speed of pinned memory. Used by the
// asynchronous host scheme (host_sliced.hpp) and by streaming (host_streamed.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "cpu/thread_team.hpp"
#include "host/host_lanes.hpp"
#include "runtime/opencl.hpp"

namespace ipt::host {

// The host threads that copy through staging buffers: `requested`, or one per hardware
// thread but no more than one per 4 MiB of `bytes` (waking threads costs more than a
// small copy).
unsigned staging_threads(unsigned requested, std::uint64_t bytes);

// Waits for `event` and throws ipt::Error IPT_OUT_OF_RESOURCES when its command ended
// abnormally: the device's work that the host paths wait for before writing host memory.
void wait_completed(const cl::Event& event);

class Stager {
 public:
  // Chunks of at most `chunk` bytes (at most kStagingBytes).
  Stager(TakenLanes& lanes, unsigned threads, std::uint64_t chunk);

  // Copies host[cuts.front(), cuts.back()) into `buffer` at the same offsets. cuts (in
  // bytes) split the range into slices: no chunk spans two, and slice q's chunks go up on
  // lane q's queue (one cut pair: all on lane 0's). After each round, `uploaded(end)`
  // with the end of the range enqueued so far (for work that follows a slice on its
  // lane's queue). Returns once every chunk is enqueued; the last two rounds may still
  // be reading the staging buffers, whose next use waits for them. Throws cl::Error or
  // ipt::Error; the caller then finishes the lanes' queues before the host memory goes.
  void upload(const unsigned char* host, const cl::Buffer& buffer,
              const std::vector<std::uint64_t>& cuts,
              const std::function<void(std::uint64_t)>& uploaded = {});

  // Copies `buffer` [0, bytes) into host[0, bytes), after every command enqueued on the
  // lanes so far. A command that fails is followed by one plain read of the whole range;
  // when that fails too, throws ipt::Error IPT_BUFFER_UNDEFINED.
  void download(unsigned char* host, const cl::Buffer& buffer, std::uint64_t bytes);

  // Waits for every lane's queue (errors ignored).
  void finish();

 private:
  struct Chunk {
    std::uint64_t at = 0, bytes = 0;
    unsigned slice = 0;
  };
  std::vector<Chunk> chunks_of(const std::vector<std::uint64_t>& cuts) const;
  cl::Event& slot(std::size_t lane, unsigned set) { return staged_[2 * lane + set]; }
  // copy(t, at, from, bytes): bytes [from, from + bytes) of chunk first + t (at `at`),
  // through lane t's staging buffer; the team shares every chunk out.
  void copy_round(
      const std::vector<Chunk>& chunks, std::size_t first, std::size_t count,
      const std::function<void(std::size_t, std::uint64_t, std::uint64_t, std::uint64_t)>& copy);
  void read_rounds(unsigned char* host, const cl::Buffer& buffer, std::uint64_t bytes);

  TakenLanes& lanes_;
  cpu::ThreadTeam team_;
  const std::uint64_t chunk_;
  std::vector<cl::Event> staged_;  // the last transfer through each staging buffer
};

}  // namespace ipt::host
