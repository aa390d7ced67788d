// Thread safety as ipt.h states it: concurrent calls on different queues and buffers of
// one context, on different contexts, and ipt_clear_cache while others transpose.
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "support/host_reference.hpp"
#include "support/random_data.hpp"
#include "test_support.hpp"

using ipt::support::random_bytes;
using ipt::support::transpose_reference;

namespace {

// Transposes `rounds` random matrices on `context`/`queue`; returns the number of wrong
// results or failed calls.
int transpose_rounds(cl_context context, cl_command_queue queue, unsigned seed, int rounds) {
  int failures = 0;
  for (int round = 0; round < rounds; ++round) {
    const std::size_t n = 1 + (seed * 37 + static_cast<unsigned>(round) * 101) % 150;
    const std::size_t elem_size = std::size_t{1} << ((seed + static_cast<unsigned>(round)) % 5);
    const auto data = random_bytes(n * n * elem_size, seed * 1000u + static_cast<unsigned>(round));
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size(),
                                   const_cast<unsigned char*>(data.data()), &code);
    if (code != CL_SUCCESS) return failures + 1;
    if (ipt_transpose(queue, buffer, 0, n, n, 0, nullptr, nullptr, elem_size) != IPT_SUCCESS)
      ++failures;
    std::vector<unsigned char> back(data.size());
    clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, back.size(), back.data(), 0, nullptr, nullptr);
    if (back != transpose_reference(data, n, n, elem_size)) ++failures;
    clReleaseMemObject(buffer);
  }
  return failures;
}

}  // namespace

TEST_CASE("many threads transpose on their own queues of one context", "[threads]") {
  auto& session = ipt::test::session();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      cl_int code = CL_SUCCESS;
      cl_command_queue queue = clCreateCommandQueue(session.context(), session.device(), 0, &code);
      if (code != CL_SUCCESS) {
        ++failures;
        return;
      }
      failures += transpose_rounds(session.context(), queue, t, 12);
      clReleaseCommandQueue(queue);
    });
  for (auto& thread : threads) thread.join();
  CHECK(failures == 0);
}

TEST_CASE("threads with their own contexts, while another clears the cache", "[threads]") {
  std::atomic<int> failures{0};
  std::atomic<bool> done{false};
  std::thread clearer([&] {
    while (!done) {
      if (ipt_clear_cache() != IPT_SUCCESS) ++failures;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      try {
        ipt::support::Session own;
        failures += transpose_rounds(own.context(), own.queue(), 100 + t, 8);
      } catch (...) {
        ++failures;
      }
    });
  for (auto& thread : threads) thread.join();
  done = true;
  clearer.join();
  CHECK(failures == 0);
}

TEST_CASE("the last error message is per thread", "[threads][api]") {
  std::string seen_by_other;
  CHECK(ipt_transpose_f32(nullptr, nullptr, 0, 1, 1, 0, nullptr, nullptr) ==
        IPT_INVALID_COMMAND_QUEUE);
  std::thread other([&] { seen_by_other = ipt_last_error_message(); });
  other.join();
  CHECK(seen_by_other.empty());
  CHECK_FALSE(std::string(ipt_last_error_message()).empty());
}
