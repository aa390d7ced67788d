// SPDX-License-Identifier: Apache-2.0
// A call whose command fails part-way, while host allocations fail too, still returns the
// status that says what state the buffer is in: IPT_ROLLED_BACK (whole again once the
// commands complete), IPT_BUFFER_UNDEFINED, or another status only where the buffer is
// unchanged. Building the undo's message allocates; a failure there once escaped before
// the undo was enqueued, and the call returned IPT_OUT_OF_HOST_MEMORY ("unchanged") over a
// matrix left part-way permuted.
//
// This program replaces the global operator new (the library is linked in statically, so
// it takes that one) with one that makes the n-th allocation from a point on fail, or
// every one from it; the library's fault seam (helpers/fault_injection.hpp) makes one of
// the call's commands fail. For each command of a three-kernel plan and each n, the call's
// status is checked against the buffer's bytes once the queue is idle.
#include <CL/cl.h>
#include <ipt/ipt.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "helpers/failing_allocations.hpp"
#include "helpers/fault_injection.hpp"
#include "support/device_select.hpp"

int main() {
  namespace faults = ipt::runtime::faults;
  try {
    ipt::support::Session session;
    // No on-chip plan and little local memory: three kernels on a CPU device too
    // (0100!, 010!, 100!), so that a failed command can follow enqueued ones.
    faults::steer_overrides(std::string("onchip=off,local_mem=8192"));
    constexpr std::size_t rows = 400, cols = 390;
    std::vector<float> data(rows * cols);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i % 9973) + 0.25f;
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE,
                                   data.size() * sizeof(float), nullptr, &code);
    if (code != CL_SUCCESS) return 2;
    const auto upload = [&] {
      return clEnqueueWriteBuffer(session.queue(), buffer, CL_TRUE, 0, data.size() * sizeof(float),
                                  data.data(), 0, nullptr, nullptr) == CL_SUCCESS;
    };
    const auto unchanged = [&] {
      std::vector<float> back(data.size());
      clFinish(session.queue());
      return clEnqueueReadBuffer(session.queue(), buffer, CL_TRUE, 0, back.size() * sizeof(float),
                                 back.data(), 0, nullptr, nullptr) == CL_SUCCESS &&
             back == data;
    };
    // Programs built and plans checked, with memory: what the calls below reuse.
    if (!upload() || ipt_transpose_f32(session.queue(), buffer, 0, rows, cols, 0, nullptr,
                                       nullptr) != IPT_SUCCESS) {
      std::fprintf(stderr, "rollback_out_of_memory: the first call failed: %s\n",
                   ipt_last_error_message());
      return 1;
    }
    clFinish(session.queue());
    int wrong = 0, rolled_back = 0;
    long runs = 0;
    for (std::uint64_t command = 2; command <= 4; ++command)
      for (const bool all : {false, true})
        for (long from = 1; from <= 40; ++from) {
          if (!upload()) return 2;
          faults::arm({command});
          ipt::test::fail_allocations(from, all);
          const ipt_status status =
              ipt_transpose_f32(session.queue(), buffer, 0, rows, cols, 0, nullptr, nullptr);
          ipt::test::allow_allocations();
          faults::disarm();
          ++runs;
          rolled_back += status == IPT_ROLLED_BACK;
          // Every status but IPT_BUFFER_UNDEFINED says the buffer is (or will be) whole.
          if (status == IPT_SUCCESS || (status != IPT_BUFFER_UNDEFINED && !unchanged())) {
            std::fprintf(stderr,
                         "command %llu failing, allocation %ld%s failing: status %d, but the "
                         "buffer %s\n",
                         static_cast<unsigned long long>(command), from, all ? " on" : "", status,
                         status == IPT_SUCCESS ? "call succeeded" : "changed");
            ++wrong;
          }
        }
    faults::steer_overrides(std::nullopt);
    clReleaseMemObject(buffer);
    if (rolled_back == 0) {
      std::fprintf(stderr, "rollback_out_of_memory: no call was rolled back: the test missed\n");
      return 1;
    }
    if (wrong != 0) return 1;
    std::printf("rollback_out_of_memory: %ld calls, %d rolled back, every status true\n", runs,
                rolled_back);
    return 0;
  } catch (const std::exception& e) {
    ipt::test::allow_allocations();
    std::fprintf(stderr, "rollback_out_of_memory: %s\n", e.what());
    return 2;
  }
}
