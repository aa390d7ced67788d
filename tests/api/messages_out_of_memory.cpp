// SPDX-License-Identifier: Apache-2.0
// A call that fails while the host is out of memory still returns a status: building its
// error message allocates, and an allocation that fails there must not end the process
// (std::terminate, as an exception leaving a handler of a noexcept function would).
//
// This program replaces the global operator new, which libipt's calls then use too, with
// one that a test can make fail: the n-th allocation from a point on, or every one. Between
// each such call and the next, allocations succeed again. The calls it makes fail on
// their arguments (an element size of 3) or ask for a padded size: each must return a
// status (the argument's, or IPT_OUT_OF_HOST_MEMORY), leave the buffer unchanged, and
// then, with memory back, succeed or fail as before.
#include <CL/cl.h>
#include <ipt/ipt.h>

#include <cstdio>
#include <vector>

#include "helpers/failing_allocations.hpp"
#include "support/device_select.hpp"

int main() {
  try {
    ipt::support::Session session;
    std::vector<unsigned char> data(5 * 7 * 4);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 37 + 11);
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   data.size(), data.data(), &code);
    if (code != CL_SUCCESS) return 2;
    cl_device_id device = nullptr;
    clGetCommandQueueInfo(session.queue(), CL_QUEUE_DEVICE, sizeof device, &device, nullptr);
    // Once with memory: the statuses the calls return then, and what fills the caches.
    const ipt_status bad_size =
        ipt_transpose(session.queue(), buffer, 0, 5, 7, 0, nullptr, nullptr, 3);
    size_t bytes = 0;
    const ipt_status padded = ipt_padded_size(device, 5, 7, 4, &bytes);
    if (bad_size != IPT_INVALID_ELEMENT_SIZE || padded != IPT_SUCCESS) {
      std::fprintf(stderr, "messages_out_of_memory: unexpected statuses %d and %d\n", bad_size,
                   padded);
      return 1;
    }
    int failures = 0;
    long runs = 0;
    for (const bool all : {false, true})
      for (long from = 1; from <= 64; ++from) {
        ipt::test::fail_allocations(from, all);
        const ipt_status s1 =
            ipt_transpose(session.queue(), buffer, 0, 5, 7, 0, nullptr, nullptr, 3);
        const ipt_status s2 = ipt_padded_size(device, 5, 7, 4, &bytes);
        ipt::test::allow_allocations();
        ++runs;
        if (s1 != IPT_INVALID_ELEMENT_SIZE && s1 != IPT_OUT_OF_HOST_MEMORY) {
          std::fprintf(stderr, "from %ld%s: ipt_transpose returned %d\n", from, all ? " on" : "",
                       s1);
          ++failures;
        }
        if (s2 != IPT_SUCCESS && s2 != IPT_OUT_OF_HOST_MEMORY) {
          std::fprintf(stderr, "from %ld%s: ipt_padded_size returned %d\n", from, all ? " on" : "",
                       s2);
          ++failures;
        }
      }
    std::vector<unsigned char> back(data.size());
    if (clEnqueueReadBuffer(session.queue(), buffer, CL_TRUE, 0, back.size(), back.data(), 0,
                            nullptr, nullptr) != CL_SUCCESS ||
        back != data) {
      std::fprintf(stderr, "messages_out_of_memory: the buffer changed\n");
      ++failures;
    }
    // Memory back: the calls answer as before, with their messages.
    if (ipt_transpose(session.queue(), buffer, 0, 5, 7, 0, nullptr, nullptr, 3) !=
            IPT_INVALID_ELEMENT_SIZE ||
        ipt_last_error_message()[0] == '\0' ||
        ipt_padded_size(device, 5, 7, 4, &bytes) != IPT_SUCCESS) {
      std::fprintf(stderr, "messages_out_of_memory: the calls differ once memory is back\n");
      ++failures;
    }
    clReleaseMemObject(buffer);
    if (failures != 0) return 1;
    std::printf("messages_out_of_memory: %ld runs with allocations failing, every call returned\n",
                runs);
    return 0;
  } catch (const std::exception& e) {
    ipt::test::allow_allocations();
    std::fprintf(stderr, "messages_out_of_memory: %s\n", e.what());
    return 2;
  }
}
