// SPDX-License-Identifier: Apache-2.0
#include "host/host_lanes.hpp"

#include <map>
#include <mutex>
#include <utility>

#include "runtime/fault_seam.hpp"

namespace ipt::host {

using namespace ipt::runtime;  // the layer below: requests, launches, the fault seam
namespace {

using Key = std::pair<cl_context, cl_device_id>;

struct Kept {
  std::mutex mutex;
  // Each lane holds its context through its queue, so a key names a live context.
  std::map<Key, std::vector<std::unique_ptr<Lane>>> lanes;
};

Kept& kept() {
  static Kept* const instance = new Kept;  // never destroyed: lanes may go back at exit
  return *instance;
}

std::unique_ptr<Lane> new_lane(const cl::Context& context, const cl::Device& device) {
  auto lane = std::make_unique<Lane>();
  lane->queue = cl::CommandQueue(context, device);
  for (int s = 0; s < 2; ++s) {
    faults::point(faults::Site::kAllocation, "clCreateBuffer");
    lane->staging[s] =
        cl::Buffer(context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, kStagingBytes);
    faults::point(faults::Site::kEnqueue, "clEnqueueMapBuffer");
    lane->mapped[s] = lane->queue.enqueueMapBuffer(lane->staging[s], CL_TRUE,
                                                   CL_MAP_READ | CL_MAP_WRITE, 0, kStagingBytes);
  }
  return lane;
}

}  // namespace

Lane::~Lane() {
  // Errors are ignored: the buffers go with the lane anyway.
  for (int s = 0; s < 2; ++s)
    if (mapped[s] != nullptr)
      clEnqueueUnmapMemObject(queue(), staging[s](), mapped[s], 0, nullptr, nullptr);
  if (queue() != nullptr) clFinish(queue());
}

TakenLanes::~TakenLanes() {
  try {
    Kept& all = kept();
    const std::lock_guard<std::mutex> lock(all.mutex);
    auto& free = all.lanes[{context_, device_}];
    for (auto& lane : lanes_) free.push_back(std::move(lane));
  } catch (...) {
    // No memory to keep them: the lanes not kept go with this object.
  }
}

TakenLanes take_lanes(const cl::Context& context, const cl::Device& device, unsigned count) {
  std::vector<std::unique_ptr<Lane>> taken;
  {
    Kept& all = kept();
    const std::lock_guard<std::mutex> lock(all.mutex);
    auto& free = all.lanes[{context(), device()}];
    while (taken.size() < count && !free.empty()) {
      taken.push_back(std::move(free.back()));
      free.pop_back();
    }
  }
  // A lane that cannot be made leaves the ones taken for the next call.
  std::vector<std::unique_ptr<Lane>> all_lanes = std::move(taken);
  try {
    while (all_lanes.size() < count) all_lanes.push_back(new_lane(context, device));
  } catch (...) {
    TakenLanes back(context(), device(), std::move(all_lanes));
    throw;
  }
  return TakenLanes(context(), device(), std::move(all_lanes));
}

void clear_host_lanes() {
  std::map<Key, std::vector<std::unique_ptr<Lane>>> dropped;
  {
    Kept& all = kept();
    const std::lock_guard<std::mutex> lock(all.mutex);
    dropped.swap(all.lanes);
  }
}

}  // namespace ipt::host
