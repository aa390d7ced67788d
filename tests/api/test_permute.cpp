// SPDX-License-Identifier: Apache-2.0
// ipt_permute and ipt_plan_permute on the test device: every permutation of ranks 2 to 5
// on random tensors (sides of 1, primes, skinny axes), every element size, offsets, the
// bytes around the tensor unchanged, events, and bad input refused with the buffer
// unchanged. Rollback under fault injection: tests/runtime/test_fault_injection.cpp.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "helpers/test_support.hpp"
#include "support/host_reference.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::session;
using u64 = std::uint64_t;

namespace {

std::string text_of(const std::vector<std::size_t>& dims, const std::vector<std::size_t>& perm,
                    std::size_t elem_size) {
  std::string out = "dims";
  for (const std::size_t d : dims) out += " " + std::to_string(d);
  out += ", perm";
  for (const std::size_t p : perm) out += " " + std::to_string(p);
  return out + ", " + std::to_string(elem_size) + "-byte elements";
}

// Permutes a random tensor `offset` elements into its buffer (`after` guard bytes after
// it) and waits; empty when the buffer holds numpy.transpose's result and every guard
// byte is unchanged, else what went wrong.
std::string permute_and_check(const std::vector<std::size_t>& dims,
                              const std::vector<std::size_t>& perm, std::size_t elem_size,
                              std::size_t offset, std::size_t after, std::uint64_t seed) {
  const std::size_t elements =
      std::accumulate(dims.begin(), dims.end(), std::size_t{1}, std::multiplies<>());
  GuardedMatrix tensor(elements, 1, elem_size, offset, after, seed);
  cl_event done = nullptr;
  const ipt_status status = ipt_permute(session().queue(), tensor.buffer(), offset, dims.size(),
                                        dims.data(), perm.data(), elem_size, 0, nullptr, &done);
  if (status != IPT_SUCCESS)
    return std::string("ipt_permute: ") + ipt_status_string(status) + ": " +
           ipt_last_error_message();
  if (done == nullptr) return "no event";
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  const std::vector<u64> sizes(dims.begin(), dims.end());
  return tensor.check_holds(
      ipt::support::permute_axes(tensor.matrix_before(), sizes, perm, elem_size));
}

}  // namespace

TEST_CASE("ipt_permute gives numpy.transpose's order for every permutation to rank 5",
          "[permute]") {
  std::mt19937_64 random(ipt::test::seed(5201));
  // Sides: 1s, primes and powers of two, and a skinny axis now and then.
  const std::size_t sides[] = {1, 2, 3, 5, 7, 8, 13, 16, 31};
  std::size_t elem_index = 0;
  for (std::size_t rank = 2; rank <= 5; ++rank) {
    std::vector<std::size_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    do {
      std::vector<std::size_t> dims;
      std::size_t elements = 1;
      for (std::size_t a = 0; a < rank; ++a) {
        std::size_t side = sides[random() % std::size(sides)];
        if (random() % 8 == 0) side = 97 + random() % 300;  // skinny
        while (side > 1 && elements * side > 40000) side /= 2;
        dims.push_back(side);
        elements *= side;
      }
      const std::size_t elem_size = std::size_t{1} << (elem_index++ % 5);
      const std::size_t offset = random() % 3 == 0 ? random() % 7 : 0;
      INFO(text_of(dims, perm, elem_size) << ", offset " << offset);
      CHECK(permute_and_check(dims, perm, elem_size, offset, 13 + random() % 16, random()) == "");
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST_CASE("ipt_permute moves common layouts and tensors past the memory bound", "[permute]") {
  std::uint64_t seed = 5300;
  struct Case {
    std::vector<std::size_t> dims, perm;
    std::size_t elem_size;
  };
  const Case cases[] = {
      {{2, 3, 17, 19}, {0, 2, 3, 1}, 4},  // NCHW -> NHWC
      {{2, 17, 19, 3}, {0, 3, 1, 2}, 4},  // NHWC -> NCHW
      {{2, 33, 4, 16}, {0, 2, 1, 3}, 4},  // [B][S][H][D] -> [B][H][S][D]
      {{3, 41, 2}, {1, 0, 2}, 4},         // complex floats: 8-byte elements
      {{24, 20, 28}, {2, 0, 1}, 8},       // xyz -> zxy
      {{24, 20, 28}, {1, 2, 0}, 2},       // xyz -> yzx
      {{29, 31, 37}, {2, 1, 0}, 4},       // primes, reversed: two swaps or more
      {{5, 1, 7, 1}, {3, 2, 0, 1}, 16},   // sides of 1: one transposition
      {{7, 11}, {0, 1}, 4},               // the identity
      {{1}, {0}, 1},                      // one element
      {{2, 3, 2, 3, 2, 3, 2, 3}, {7, 6, 5, 4, 3, 2, 1, 0}, 1},  // rank 8
      // Past 10^6 elements, where the planner keeps to the memory bound: 0100! passes of
      // small super-elements give way to transpositions.
      {{101, 103, 107}, {2, 0, 1}, 4},
      {{64, 131, 127, 3}, {1, 3, 0, 2}, 2},
  };
  for (const Case& c : cases) {
    INFO(text_of(c.dims, c.perm, c.elem_size));
    CHECK(permute_and_check(c.dims, c.perm, c.elem_size, 3, 20, ++seed) == "");
  }
}

TEST_CASE("ipt_permute waits for its wait list and an empty tensor returns at once", "[permute]") {
  const std::vector<std::size_t> dims{13, 7, 5}, perm{2, 0, 1};
  GuardedMatrix tensor(13 * 7 * 5, 1, 4, 0, 16, 5401);
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(session().context(), &err);
  REQUIRE(err == CL_SUCCESS);
  cl_event done = nullptr;
  REQUIRE(ipt_permute(session().queue(), tensor.buffer(), 0, 3, dims.data(), perm.data(), 4, 1,
                      &gate, &done) == IPT_SUCCESS);
  REQUIRE(done != nullptr);
  cl_int state = CL_COMPLETE;
  REQUIRE(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, nullptr) ==
          CL_SUCCESS);
  CHECK(state != CL_COMPLETE);  // waits for the gate
  REQUIRE(clSetUserEventStatus(gate, CL_COMPLETE) == CL_SUCCESS);
  REQUIRE(clWaitForEvents(1, &done) == CL_SUCCESS);
  clReleaseEvent(done);
  clReleaseEvent(gate);
  const std::vector<u64> sizes(dims.begin(), dims.end());
  CHECK(tensor.check_holds(ipt::support::permute_axes(tensor.matrix_before(), sizes, perm, 4)) ==
        "");
  // An axis of size 0: nothing to move, but an event all the same.
  const std::vector<std::size_t> empty{4, 0, 3};
  done = nullptr;
  CHECK(ipt_permute(session().queue(), tensor.buffer(), 0, 3, empty.data(), perm.data(), 4, 0,
                    nullptr, &done) == IPT_SUCCESS);
  CHECK(done != nullptr);
  if (done != nullptr) {
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
  }
}

TEST_CASE("ipt_permute refuses bad input with the buffer unchanged", "[permute]") {
  GuardedMatrix tensor(120, 1, 4, 0, 8, 5501);
  const std::size_t dims[] = {2, 3, 4, 5, 1, 1, 1, 1, 1}, perm[] = {3, 2, 1, 0, 4, 5, 6, 7, 8};
  const std::size_t repeat[] = {0, 0, 1, 2}, past[] = {0, 1, 2, 4};
  const std::size_t huge[] = {SIZE_MAX / 2, 3, 1, 1};
  const std::size_t large[] = {2, 3, 4, 6};  // 144 elements: past the buffer
  cl_command_queue q = session().queue();
  cl_mem b = tensor.buffer();
  struct Bad {
    const char* what;
    ipt_status status;
    ipt_status got;
  };
  const Bad bad[] = {
      {"rank 0", IPT_INVALID_VALUE, ipt_permute(q, b, 0, 0, dims, perm, 4, 0, nullptr, nullptr)},
      {"rank 9", IPT_INVALID_VALUE, ipt_permute(q, b, 0, 9, dims, perm, 4, 0, nullptr, nullptr)},
      {"dims NULL", IPT_INVALID_VALUE,
       ipt_permute(q, b, 0, 4, nullptr, perm, 4, 0, nullptr, nullptr)},
      {"perm NULL", IPT_INVALID_VALUE,
       ipt_permute(q, b, 0, 4, dims, nullptr, 4, 0, nullptr, nullptr)},
      {"a repeated axis", IPT_INVALID_VALUE,
       ipt_permute(q, b, 0, 4, dims, repeat, 4, 0, nullptr, nullptr)},
      {"an axis past the rank", IPT_INVALID_VALUE,
       ipt_permute(q, b, 0, 4, dims, past, 4, 0, nullptr, nullptr)},
      {"elem_size 3", IPT_INVALID_ELEMENT_SIZE,
       ipt_permute(q, b, 0, 4, dims, perm, 3, 0, nullptr, nullptr)},
      {"a size that overflows", IPT_SIZE_OVERFLOW,
       ipt_permute(q, b, 0, 4, huge, perm, 4, 0, nullptr, nullptr)},
      {"an offset that overflows", IPT_SIZE_OVERFLOW,
       ipt_permute(q, b, SIZE_MAX / 2, 4, dims, perm, 4, 0, nullptr, nullptr)},
      {"a tensor past the buffer", IPT_BUFFER_TOO_SMALL,
       ipt_permute(q, b, 0, 4, large, perm, 4, 0, nullptr, nullptr)},
      {"an offset past the buffer", IPT_BUFFER_TOO_SMALL,
       ipt_permute(q, b, 3, 4, dims, perm, 4, 0, nullptr, nullptr)},
      {"a wait list without events", IPT_INVALID_EVENT_WAIT_LIST,
       ipt_permute(q, b, 0, 4, dims, perm, 4, 1, nullptr, nullptr)},
      {"no queue", IPT_INVALID_COMMAND_QUEUE,
       ipt_permute(nullptr, b, 0, 4, dims, perm, 4, 0, nullptr, nullptr)},
      {"no buffer", IPT_INVALID_MEM_OBJECT,
       ipt_permute(q, nullptr, 0, 4, dims, perm, 4, 0, nullptr, nullptr)},
  };
  REQUIRE(clFinish(q) == CL_SUCCESS);
  for (const Bad& b_ : bad) {
    INFO(b_.what);
    CHECK(b_.got == b_.status);
  }
  CHECK(tensor.check_unchanged() == "");
  // The valid call with these arguments works.
  cl_event done = nullptr;
  REQUIRE(ipt_permute(q, b, 0, 4, dims, perm, 4, 0, nullptr, &done) == IPT_SUCCESS);
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  CHECK(tensor.check_holds(ipt::support::permute_axes(tensor.matrix_before(), {2, 3, 4, 5},
                                                      {3, 2, 1, 0}, 4)) == "");
}

TEST_CASE("ipt_plan_permute shows the reduced permutation and its swaps", "[permute]") {
  ipt_permute_info info{};
  const std::size_t nchw[] = {8, 64, 56, 56}, to_nhwc[] = {0, 2, 3, 1};
  REQUIRE(ipt_plan_permute(session().device(), 4, nchw, to_nhwc, 4, &info) == IPT_SUCCESS);
  CHECK(info.rank == 3);
  CHECK(info.dims[0] == 8);
  CHECK(info.dims[1] == 64);
  CHECK(info.dims[2] == 56 * 56);
  CHECK(info.perm[0] == 0);
  CHECK(info.perm[1] == 2);
  CHECK(info.perm[2] == 1);
  CHECK(info.elem_size == 4);
  CHECK(info.num_swaps == 1);
  CHECK(info.num_stages >= 1);
  CHECK(std::string(info.description).find("block swap") != std::string::npos);
  // Complex floats keep their pairs: 8-byte elements.
  const std::size_t pairs[] = {300, 500, 2}, swap_ab[] = {1, 0, 2};
  REQUIRE(ipt_plan_permute(session().device(), 3, pairs, swap_ab, 4, &info) == IPT_SUCCESS);
  CHECK(info.elem_size == 8);
  CHECK(info.rank == 2);
  // The identity and an empty tensor plan no kernel.
  const std::size_t identity[] = {0, 1, 2, 3};
  REQUIRE(ipt_plan_permute(session().device(), 4, nchw, identity, 4, &info) == IPT_SUCCESS);
  CHECK(info.num_stages == 0);
  CHECK(info.num_swaps == 0);
  const std::size_t empty[] = {8, 0, 56, 56};
  REQUIRE(ipt_plan_permute(session().device(), 4, empty, to_nhwc, 4, &info) == IPT_SUCCESS);
  CHECK(info.num_stages == 0);
  // Bad input.
  CHECK(ipt_plan_permute(session().device(), 4, nchw, to_nhwc, 4, nullptr) == IPT_INVALID_VALUE);
  const std::size_t not_a_permutation[] = {1, 2, 3, 3};
  CHECK(ipt_plan_permute(session().device(), 4, nchw, not_a_permutation, 4, &info) ==
        IPT_INVALID_VALUE);
  CHECK(ipt_plan_permute(session().device(), 4, nchw, to_nhwc, 5, &info) ==
        IPT_INVALID_ELEMENT_SIZE);
  CHECK(ipt_plan_permute(nullptr, 4, nchw, to_nhwc, 4, &info) == IPT_INVALID_DEVICE);
}

TEST_CASE("ipt_permute from several threads at once", "[permute][threads]") {
  // Each thread permutes tensors of its own, of shapes the others use too (one plan kept
  // for all) and of its own; Catch's assertions are made after the threads end.
  constexpr int kThreads = 4, kCalls = 6;
  std::vector<std::string> problems(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &problems] {
      for (int k = 0; k < kCalls && problems[t].empty(); ++k) {
        const std::vector<std::size_t> dims =
            k % 2 == 0 ? std::vector<std::size_t>{6, 7, 8, 9}
                       : std::vector<std::size_t>{5, static_cast<std::size_t>(3 + t), 11, 2};
        const std::vector<std::size_t> perm{3, 1, 0, 2};
        problems[t] = permute_and_check(dims, perm, 4, t, 8, 5600 + 10 * t + k);
      }
    });
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t);
    CHECK(problems[t] == "");
  }
}
