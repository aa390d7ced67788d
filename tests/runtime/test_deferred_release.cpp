// SPDX-License-Identifier: Apache-2.0
// Scratch handed to release_when_complete lives until the command that uses it completes,
// and is released then (runtime/deferred_release.hpp says why not at once).
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>
#include <vector>

#include "helpers/test_support.hpp"
#include "runtime/deferred_release.hpp"

using ipt::test::session;
namespace rt = ipt::runtime;

namespace {

void CL_CALLBACK record_deletion(cl_mem, void* deleted) {
  static_cast<std::atomic<bool>*>(deleted)->store(true);
}

}  // namespace

TEST_CASE("a buffer handed over is released once its command completes, not before",
          "[deferred_release]") {
  const cl::Context context(session().context(), /*retainObject=*/true);
  const cl::CommandQueue queue(session().queue(), /*retainObject=*/true);
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    // A command that completes only when the test opens its gate.
    cl::UserEvent gate(context);
    const std::vector<cl::Event> wait{gate};
    cl::Event command;
    queue.enqueueMarkerWithWaitList(&wait, &command);
    // Freed once seen set: a buffer deleted after the test gave up must not write into
    // a flag that is gone.
    auto* deleted = new std::atomic<bool>(false);
    cl::Buffer buffer(context, CL_MEM_READ_WRITE, 64);
    REQUIRE(clSetMemObjectDestructorCallback(buffer(), record_deletion, deleted) == CL_SUCCESS);
    rt::release_when_complete(command, std::move(buffer));  // the test's handle goes with it

    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK_FALSE(deleted->load());

    gate.setStatus(CL_COMPLETE);
    queue.finish();
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!deleted->load() && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const bool released = deleted->load();
    if (released) delete deleted;
    CHECK(released);
  }
}
