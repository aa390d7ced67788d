// SPDX-License-Identifier: Apache-2.0
// The asynchronous host scheme's slicing (planner/host_slicing.hpp): its factors and cuts
// on every shape class, and its three phases, carried out on the host on random data,
// giving the transpose.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "helpers/test_seed.hpp"
#include "host/host_slicing.hpp"

using ipt::host::HostSlicing;
using ipt::planner::Stage;

namespace {

using Matrix = std::vector<std::uint32_t>;

// 0100! on (I, A, B, C) from `at`: (i, a, b, c) -> (i, b, a, c).
void permute(Matrix& data, std::uint64_t at, const Stage& s) {
  const Matrix in(data.begin() + static_cast<std::ptrdiff_t>(at),
                  data.begin() + static_cast<std::ptrdiff_t>(at + s.I * s.A * s.B * s.C));
  for (std::uint64_t i = 0; i < s.I; ++i)
    for (std::uint64_t a = 0; a < s.A; ++a)
      for (std::uint64_t b = 0; b < s.B; ++b)
        for (std::uint64_t c = 0; c < s.C; ++c)
          data[at + ((i * s.B + b) * s.A + a) * s.C + c] = in[((i * s.A + a) * s.B + b) * s.C + c];
}

// The phases as the runtime runs them, slice by slice.
Matrix run_phases(const HostSlicing& h, Matrix data) {
  const std::uint64_t M = h.rows, N = h.cols;
  if (h.whole()) {
    permute(data, 0, {Stage::Kind::k0100, 1, M, N, 1});
    return data;
  }
  for (std::uint64_t q = 0; q + 1 < h.upload.size(); ++q)
    for (std::uint64_t block = h.upload[q]; block < h.upload[q + 1]; ++block)
      permute(data, block * h.m * N, {Stage::Kind::k0100, 1, h.m, N, 1});  // A: m x N
  const Stage middle = h.middle();
  CHECK(middle.I * middle.A * middle.B * middle.C == M * N);
  permute(data, 0, middle);
  for (std::uint64_t q = 0; q + 1 < h.download.size(); ++q) {
    const Stage last = h.last(h.download[q], h.download[q + 1]);
    CHECK(last.I == h.download[q + 1] - h.download[q]);
    permute(data, h.download[q] * h.n * M, last);
  }
  return data;
}

}  // namespace

TEST_CASE("host slicing: factors, cuts and phases that transpose", "[planner][host]") {
  IPT_TEST_SEED(seed, 2810);
  std::mt19937_64 random(seed);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> shapes = {
      {64, 96}, {97, 89}, {96, 97},   {97, 96}, {2, 300},   {300, 2},   {1, 64},
      {64, 1},  {3, 5},   {128, 128}, {62, 66}, {1024, 33}, {31, 1024}, {1000, 3}};
  std::uniform_int_distribution<std::uint64_t> side(1, 400);
  for (int i = 0; i < 40; ++i) shapes.emplace_back(side(random), side(random));
  for (const auto& [rows, cols] : shapes)
    for (unsigned slices = 1; slices <= 9; ++slices) {
      INFO(rows << " x " << cols << " in " << slices << " slices");
      const HostSlicing h = ipt::host::plan_host_slicing(rows, cols, slices);
      REQUIRE(h.slices() == slices);
      CHECK(rows % h.m == 0);
      CHECK(cols % h.n == 0);
      CHECK(h.m <= ipt::host::kSliceFactor);
      CHECK(h.n <= ipt::host::kSliceFactor);
      CHECK((h.whole() || h.m * h.n >= ipt::host::kMinSliceSuper));
      if (h.m > 1) CHECK(rows / h.m >= slices);
      if (h.n > 1) CHECK(cols / h.n >= slices);
      CHECK(h.upload.front() == 0);
      CHECK(h.upload.back() == rows / h.m);
      CHECK(h.download.front() == 0);
      CHECK(h.download.back() == cols / h.n);
      CHECK(std::is_sorted(h.upload.begin(), h.upload.end()));
      CHECK(std::is_sorted(h.download.begin(), h.download.end()));
      Matrix data(rows * cols), expected(rows * cols);
      for (auto& x : data) x = static_cast<std::uint32_t>(random());
      for (std::uint64_t r = 0; r < rows; ++r)
        for (std::uint64_t c = 0; c < cols; ++c) expected[c * rows + r] = data[r * cols + c];
      CHECK(run_phases(h, data) == expected);
    }
  // A factor on each side where the shape has one; a prime side has none.
  const HostSlicing both = ipt::host::plan_host_slicing(4096, 2048, 4);
  CHECK(both.m == 32);
  CHECK(both.n == 32);
  const HostSlicing prime = ipt::host::plan_host_slicing(9973, 2048, 4);
  CHECK(prime.m == 1);
  CHECK(prime.n == 32);
  CHECK(ipt::host::plan_host_slicing(9973, 10007, 4).whole());
  CHECK_THROWS_AS(ipt::host::plan_host_slicing(10, 10, 0), std::invalid_argument);
  CHECK_THROWS_AS(ipt::host::plan_host_slicing(10, 10, 17), std::invalid_argument);
}

TEST_CASE("host streaming: blocks that fit a part, parts that cover, phases that transpose",
          "[planner][host]") {
  IPT_TEST_SEED(seed, 2811);
  std::mt19937_64 random(seed);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> shapes = {
      {64, 96}, {97, 89}, {96, 97}, {97, 96}, {2, 300}, {300, 2}, {128, 128}, {1024, 33}};
  std::uniform_int_distribution<std::uint64_t> side(1, 400);
  for (int i = 0; i < 30; ++i) shapes.emplace_back(side(random), side(random));
  for (const auto& [rows, cols] : shapes)
    for (const std::size_t elem_size : {1, 4, 16})
      for (const std::uint64_t part :
           {std::uint64_t{1000}, std::uint64_t{20000}, rows * cols * 4}) {
        INFO(rows << " x " << cols << ", " << elem_size << "-byte elements, parts of " << part);
        const HostSlicing h = ipt::host::plan_host_streaming(rows, cols, elem_size, part);
        CHECK(rows % h.m == 0);
        CHECK(cols % h.n == 0);
        CHECK(h.m <= ipt::host::kStreamFactor);
        CHECK(h.n <= ipt::host::kStreamFactor);
        if (!h.whole()) {
          CHECK(h.m * h.n >= ipt::host::kMinSliceSuper);
          for (std::size_t k = 0; k + 1 < h.upload.size(); ++k)
            CHECK((h.upload[k + 1] - h.upload[k]) * h.m * cols * elem_size <= part);
          for (std::size_t k = 0; k + 1 < h.download.size(); ++k)
            CHECK((h.download[k + 1] - h.download[k]) * h.n * rows * elem_size <= part);
        }
        CHECK(h.upload.front() == 0);
        CHECK(h.upload.back() == rows / h.m);
        CHECK(h.download.front() == 0);
        CHECK(h.download.back() == cols / h.n);
        Matrix data(rows * cols), expected(rows * cols);
        for (auto& x : data) x = static_cast<std::uint32_t>(random());
        for (std::uint64_t r = 0; r < rows; ++r)
          for (std::uint64_t c = 0; c < cols; ++c) expected[c * rows + r] = data[r * cols + c];
        CHECK(run_phases(h, data) == expected);
      }
  CHECK_THROWS_AS(ipt::host::plan_host_streaming(10, 10, 4, 0), std::invalid_argument);
}
