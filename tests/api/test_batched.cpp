// SPDX-License-Identifier: Apache-2.0
// ipt_transpose_batched: batches of 1 and of many, every element size, shapes that take
// each batched plan (one BS kernel, the square kernel, the stages over the batch, prime
// and skinny sides), random data, the bytes before and after the batch checked, and bad
// input that leaves the buffer unchanged.
#include <catch2/catch.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "helpers/test_support.hpp"
#include "ipt/ipt.h"
#include "support/host_reference.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::ScopedEnv;
using ipt::test::session;

namespace {

// Each matrix of the batch transposed in its place: 010! on (batch, rows, cols).
std::string batch_check(const GuardedMatrix& m, std::size_t batch, std::size_t rows,
                        std::size_t cols, std::size_t elem_size) {
  return m.check_holds(ipt::support::permute_010(m.matrix_before(), batch, rows, cols, elem_size));
}

std::string transpose_batch(std::size_t batch, std::size_t rows, std::size_t cols,
                            std::size_t elem_size, std::uint64_t seed) {
  const std::size_t offset = (rows + 3 * cols + batch) % 7;
  GuardedMatrix m(batch * rows, cols, elem_size, offset, 3 * elem_size + 5, seed);
  cl_event done = nullptr;
  const ipt_status status = ipt_transpose_batched(session().queue(), m.buffer(), offset, batch,
                                                  rows, cols, 0, nullptr, &done, elem_size);
  if (status != IPT_SUCCESS)
    return std::string(ipt_status_string(status)) + ": " + ipt_last_error_message();
  REQUIRE(clWaitForEvents(1, &done) == CL_SUCCESS);
  clReleaseEvent(done);
  return batch_check(m, batch, rows, cols, elem_size);
}

using Shape = std::pair<std::size_t, std::size_t>;

}  // namespace

TEST_CASE("batches of small matrices, every element size", "[batched][api]") {
  std::uint64_t seed = 9100;
  const std::vector<Shape> shapes = {{64, 100}, {97, 89}, {1, 7},    {7, 1},
                                     {31, 31},  {2, 3},   {13, 1009}};
  for (std::size_t elem_size : {1, 2, 4, 8, 16})
    for (const auto& [rows, cols] : shapes)
      for (std::size_t batch : {1, 2, 37}) {
        INFO("batch of " << batch << " x " << rows << " x " << cols << ", " << elem_size
                         << " bytes");
        CHECK(transpose_batch(batch, rows, cols, elem_size, ++seed) == "");
      }
}

TEST_CASE("batches of matrices larger than a work-group's tile", "[batched][api]") {
  // 16 KiB of local memory: these shapes take the square kernel or the stages of one
  // matrix over the batch (prime sides: the stages of cycle following) rather than one
  // BS tile per matrix.
  ScopedEnv env("IPT_OVERRIDES", "local_mem=16384");
  std::uint64_t seed = 9300;
  const std::vector<Shape> shapes = {{200, 200}, {257, 257}, {600, 400}, {101, 103},
                                     {3, 4099},  {4099, 2},  {480, 96}};
  for (const auto& [rows, cols] : shapes)
    for (std::size_t elem_size : {1, 4, 8})
      for (std::size_t batch : {1, 3}) {
        INFO("batch of " << batch << " x " << rows << " x " << cols << ", " << elem_size
                         << " bytes");
        CHECK(transpose_batch(batch, rows, cols, elem_size, ++seed) == "");
      }
}

TEST_CASE("batches of squares in vector rows", "[batched][api][vectors]") {
  // The square kernel's vector rows over a batch: each matrix's rows start at another
  // element of a 16-byte vector (n odd), full and partial tiles.
  ScopedEnv env("IPT_OVERRIDES", "local_mem=16384,square.vectors=on");
  std::uint64_t seed = 9500;
  for (const std::size_t n : {65, 131, 200, 257})
    for (std::size_t batch : {2, 5}) {
      INFO("batch of " << batch << " x " << n << " x " << n);
      CHECK(transpose_batch(batch, n, n, 4, ++seed) == "");
    }
}

TEST_CASE("a batch of one is ipt_transpose, twice gives back the original", "[batched][api]") {
  const std::size_t rows = 123, cols = 45;
  GuardedMatrix m(rows, cols, 4, 2, 8, 77);
  REQUIRE(ipt_transpose_batched_f32(session().queue(), m.buffer(), 2, 1, rows, cols, 0, nullptr,
                                    nullptr) == IPT_SUCCESS);
  CHECK(m.check_transposed() == "");
  GuardedMatrix b(5 * rows, cols, 8, 1, 16, 78);
  REQUIRE(ipt_transpose_batched_f64(session().queue(), b.buffer(), 1, 5, rows, cols, 0, nullptr,
                                    nullptr) == IPT_SUCCESS);
  CHECK(batch_check(b, 5, rows, cols, 8) == "");
  REQUIRE(ipt_transpose_batched_f64(session().queue(), b.buffer(), 1, 5, cols, rows, 0, nullptr,
                                    nullptr) == IPT_SUCCESS);
  CHECK(b.check_unchanged() == "");
}

TEST_CASE("bad batches leave the buffer unchanged", "[batched][api][bad_input]") {
  GuardedMatrix m(4 * 10, 20, 4, 0, 8, 80);
  cl_command_queue queue = session().queue();
  // Past the buffer: one matrix more than it holds.
  CHECK(ipt_transpose_batched_f32(queue, m.buffer(), 0, 5, 10, 20, 0, nullptr, nullptr) ==
        IPT_BUFFER_TOO_SMALL);
  CHECK(std::string(ipt_last_error_message()).find("batch") != std::string::npos);
  // batch * rows * cols * elem_size past size_t.
  CHECK(ipt_transpose_batched_f32(queue, m.buffer(), 0, SIZE_MAX / 100, 10, 20, 0, nullptr,
                                  nullptr) == IPT_SIZE_OVERFLOW);
  CHECK(ipt_transpose_batched(queue, m.buffer(), 0, 4, 10, 20, 0, nullptr, nullptr, 3) ==
        IPT_INVALID_ELEMENT_SIZE);
  CHECK(ipt_transpose_batched(queue, nullptr, 0, 4, 10, 20, 0, nullptr, nullptr, 4) ==
        IPT_INVALID_MEM_OBJECT);
  // An empty batch returns at once, with an event that completes.
  cl_event done = nullptr;
  CHECK(ipt_transpose_batched_f32(queue, m.buffer(), 0, 0, 10, 20, 0, nullptr, &done) ==
        IPT_SUCCESS);
  REQUIRE(done != nullptr);
  CHECK(clWaitForEvents(1, &done) == CL_SUCCESS);
  clReleaseEvent(done);
  // Whatever the sides of its matrices: an empty batch holds no byte to overflow.
  CHECK(ipt_transpose_batched_f32(queue, m.buffer(), 0, 0, SIZE_MAX, SIZE_MAX, 0, nullptr,
                                  nullptr) == IPT_SUCCESS);
  ipt_plan_info info{};
  CHECK(ipt_plan_batched(session().device(), 0, SIZE_MAX, SIZE_MAX, 4, nullptr, &info) ==
        IPT_SUCCESS);
  CHECK(info.num_stages == 0);
  CHECK(m.check_unchanged() == "");
}

TEST_CASE("ipt_plan_batched describes the batch's plan", "[batched][plan_api]") {
  ipt_plan_info info{};
  REQUIRE(ipt_plan_batched(session().device(), 10000, 64, 100, 4, nullptr, &info) == IPT_SUCCESS);
  CHECK(std::string(info.description).find("a batch of 10000 matrices of 64 x 100") == 0);
  CHECK(info.padded_rows == 64);
  CHECK(info.padded_cols == 100);
  CHECK(info.borrowed_bytes == 0);
  CHECK(info.num_stages == 1);
  ipt_plan_options padded{};
  padded.padded_rows = 65;
  CHECK(ipt_plan_batched(session().device(), 4, 64, 100, 4, &padded, &info) == IPT_INVALID_VALUE);
  CHECK(ipt_plan_batched(session().device(), 0, 64, 100, 4, nullptr, &info) == IPT_SUCCESS);
  CHECK(info.num_stages == 0);
}

TEST_CASE("a batch of prime-sided matrices past the memory budget runs in parts",
          "[batched][api][memory]") {
  // Prime sides, a GPU's local memory and no on-chip kernel: one plan over the batch would
  // flag every element (3% of f32 matrices, 12.5% of bytes); in parts it stays within 0.6%.
  ScopedEnv env("IPT_OVERRIDES", "onchip=off,local_mem=49152");
  std::uint64_t seed = 9500;
  for (const auto& [batch, rows, cols, elem_size] :
       {std::tuple<std::size_t, std::size_t, std::size_t, std::size_t>{3, 1009, 1013, 4},
        {3, 1013, 1019, 1},
        {2, 1013, 1009, 8}}) {
    INFO("batch of " << batch << " x " << rows << " x " << cols << ", " << elem_size << " bytes");
    ipt_plan_info info{};
    REQUIRE(ipt_plan_batched(session().device(), batch, rows, cols, elem_size, nullptr, &info) ==
            IPT_SUCCESS);
    INFO(info.description);
    CHECK(std::string(info.description).find(" parts of ") != std::string::npos);
    CHECK(info.borrowed_bytes == 0);
    CHECK(static_cast<double>(info.scratch_bytes) <=
          0.006 * static_cast<double>(batch * rows * cols * elem_size));
    CHECK(transpose_batch(batch, rows, cols, elem_size, ++seed) == "");
  }
}
