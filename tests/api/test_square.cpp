// SPDX-License-Identifier: Apache-2.0
// Square in-place transposition through the public API: every size 1..70, primes, powers
// of two and their neighbours up to 2049 and a few larger, for every element size, with
// random data, an offset, and guard bytes on both sides that must stay unchanged.
#include <catch2/catch.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "helpers/test_support.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::session;

namespace {

std::vector<std::size_t> square_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1; n <= 70; ++n) sizes.push_back(n);
  for (std::size_t n : {71, 97, 101, 127, 131, 251, 257, 509, 521, 1021, 1031, 2027, 2039})
    sizes.push_back(n);
  for (std::size_t p = 128; p <= 2048; p *= 2)
    for (std::size_t n : {p - 1, p, p + 1}) sizes.push_back(n);
  return sizes;
}

void transpose_and_check(std::size_t n, std::size_t elem_size, std::uint64_t seed) {
  const std::size_t offset = (n * 7 + elem_size) % 13;
  GuardedMatrix m(n, n, elem_size, offset, 3 * elem_size + 5, seed);
  cl_event done = nullptr;
  REQUIRE(ipt_transpose(session().queue(), m.buffer(), offset, n, n, 0, nullptr, &done,
                        elem_size) == IPT_SUCCESS);
  REQUIRE(done != nullptr);
  REQUIRE(clWaitForEvents(1, &done) == CL_SUCCESS);
  clReleaseEvent(done);
  INFO("n = " << n << ", elem_size = " << elem_size << ", offset = " << offset);
  CHECK(m.check_transposed() == "");
}

}  // namespace

TEST_CASE("square transpose of every size class, each element size", "[square][api]") {
  for (std::size_t elem_size : {1, 2, 4, 8, 16}) {
    for (std::size_t n : square_sizes()) transpose_and_check(n, elem_size, n * 31 + elem_size);
  }
}

TEST_CASE("square transpose of larger matrices", "[square][api][large]") {
  for (std::size_t n : {3001, 4096, 4099}) transpose_and_check(n, 4, n);
  transpose_and_check(3001, 8, 17);
  transpose_and_check(2500, 16, 18);
}

TEST_CASE("f32 and f64 entry points transpose 4- and 8-byte elements", "[square][api]") {
  for (std::size_t n : {1, 33, 100}) {
    GuardedMatrix a(n, n, 4, 2, 8, n);
    REQUIRE(ipt_transpose_f32(session().queue(), a.buffer(), 2, n, n, 0, nullptr, nullptr) ==
            IPT_SUCCESS);
    CHECK(a.check_transposed() == "");
    GuardedMatrix b(n, n, 8, 3, 8, n + 1);
    REQUIRE(ipt_transpose_f64(session().queue(), b.buffer(), 3, n, n, 0, nullptr, nullptr) ==
            IPT_SUCCESS);
    CHECK(b.check_transposed() == "");
  }
}

TEST_CASE("transposing twice gives back the original", "[square][api]") {
  const std::size_t n = 257;
  GuardedMatrix m(n, n, 4, 0, 0, 99);
  // The first call against the host reference: the round trip alone would also pass calls
  // that do nothing.
  REQUIRE(ipt_transpose_f32(session().queue(), m.buffer(), 0, n, n, 0, nullptr, nullptr) ==
          IPT_SUCCESS);
  CHECK(m.check_transposed() == "");
  REQUIRE(ipt_transpose_f32(session().queue(), m.buffer(), 0, n, n, 0, nullptr, nullptr) ==
          IPT_SUCCESS);
  CHECK(m.check_unchanged() == "");
}

TEST_CASE("square transpose with forced tiles through IPT_OVERRIDES", "[square][api][overrides]") {
  for (const char* forced : {"square.tile=8,square.wg_rows=8", "square.tile=16,square.wg_rows=1",
                             "square.tile=24,square.wg_rows=6", "square.tile=64,square.wg_rows=4",
                             "local_mem=16384,max_wg=64"}) {
    ipt::test::ScopedEnv env("IPT_OVERRIDES", forced);
    INFO(forced);
    for (std::size_t n : {1, 23, 64, 65, 200}) transpose_and_check(n, 4, n + 1000);
  }
}

TEST_CASE("square transpose with swizzled tiles through IPT_OVERRIDES",
          "[square][api][overrides][tile_layout]") {
  // The planner's tile for each element size, and a forced one; `tiles` sets both
  // families' layout, `square.tiles` this one's.
  for (const char* forced :
       {"square.tiles=swizzled", "tiles=swizzled,square.tile=16,square.wg_rows=2"}) {
    ipt::test::ScopedEnv env("IPT_OVERRIDES", forced);
    INFO(forced);
    for (std::size_t elem_size : {1, 2, 4, 8, 16})
      for (std::size_t n : {1, 23, 64, 65, 200}) transpose_and_check(n, elem_size, n + 2000);
  }
  // XOR keeps a row's columns within it only for a power-of-two width.
  ipt::test::ScopedEnv env("IPT_OVERRIDES", "square.tiles=swizzled,square.tile=24");
  GuardedMatrix m(40, 40, 4, 0, 4, 78);
  CHECK(ipt_transpose_f32(session().queue(), m.buffer(), 0, 40, 40, 0, nullptr, nullptr) ==
        IPT_INVALID_VALUE);
  CHECK(std::string(ipt_last_error_message()).find("power of two") != std::string::npos);
  CHECK(m.check_unchanged() == "");
}

TEST_CASE("square transpose with vector rows through IPT_OVERRIDES",
          "[square][api][overrides][vectors]") {
  // The planner takes vector rows for 4-byte elements on a device with cache lines where
  // rows do not start on them (line=128 plans as such a device), or wherever
  // square.vectors=on; 8-byte elements stay element by element. Offsets (n * 7 + 4) % 13
  // start the rows at every element of a 16-byte vector.
  for (const char* forced : {"line=128", "square.vectors=on", "square.vectors=on,tiles=swizzled",
                             "square.vectors=on,square.tile=32,square.wg_rows=8"}) {
    ipt::test::ScopedEnv env("IPT_OVERRIDES", forced);
    INFO(forced);
    ipt_plan_info info;
    REQUIRE(ipt_plan(session().device(), 1001, 1001, 4, nullptr, &info) == IPT_SUCCESS);
    CHECK(std::string(info.description).find("16-byte vectors") != std::string::npos);
    for (std::size_t n : {1, 3, 5, 23, 64, 65, 66, 67, 131, 200, 257, 1001})
      transpose_and_check(n, 4, n + 3000);
    transpose_and_check(131, 8, 3131);
  }
  // The planner's choice: 1024 floats are whole lines, 1001 are not; off keeps them
  // element by element.
  for (const auto& [forced, n, vectors] :
       {std::tuple{"line=128", 1024, false}, std::tuple{"line=128", 1001, true},
        std::tuple{"line=128,square.vectors=off", 1001, false},
        std::tuple{"line=0", 1001, false}}) {
    ipt::test::ScopedEnv env("IPT_OVERRIDES", forced);
    INFO(forced << " n " << n);
    ipt_plan_info info;
    REQUIRE(ipt_plan(session().device(), n, n, 4, nullptr, &info) == IPT_SUCCESS);
    CHECK((std::string(info.description).find("16-byte vectors") != std::string::npos) == vectors);
    REQUIRE(ipt_plan(session().device(), n, n, 8, nullptr, &info) == IPT_SUCCESS);
    CHECK(std::string(info.description).find("16-byte vectors") == std::string::npos);
  }
}

TEST_CASE("square transpose with its pairs in bands through IPT_OVERRIDES",
          "[square][api][overrides][bands]") {
  // square.bands=on orders the pairs in bands (of 32 tile columns of floats) whatever the
  // matrix (the planner takes them only for tile columns of more than 6 MiB); with vector rows,
  // word tiles, 8- and 16-byte elements, and small tiles that make several bands of a small matrix.
  for (const char* forced : {"square.bands=on", "square.bands=on,square.tile=8,square.wg_rows=2",
                             "square.bands=on,square.vectors=on,tiles=swizzled"}) {
    ipt::test::ScopedEnv env("IPT_OVERRIDES", forced);
    INFO(forced);
    ipt_plan_info info;
    REQUIRE(ipt_plan(session().device(), 1001, 1001, 4, nullptr, &info) == IPT_SUCCESS);
    CHECK(std::string(info.description).find("bands of 32 tile columns") != std::string::npos);
    for (std::size_t n : {1, 9, 64, 65, 131, 257, 1001})
      for (std::size_t elem_size : {1, 2, 4, 8, 16})
        transpose_and_check(n, elem_size, n * 5 + elem_size);
  }
  // square.bands=off, and the planner's choice for a small matrix: down the tile columns.
  for (const char* forced : {"square.bands=off", "line=128"}) {
    ipt::test::ScopedEnv env("IPT_OVERRIDES", forced);
    ipt_plan_info info;
    REQUIRE(ipt_plan(session().device(), 1001, 1001, 4, nullptr, &info) == IPT_SUCCESS);
    CHECK(std::string(info.description).find("bands") == std::string::npos);
  }
}

TEST_CASE("a forced tile that does not fit is refused, buffer untouched", "[square][bad_input]") {
  ipt::test::ScopedEnv env("IPT_OVERRIDES", "max_wg=64,square.tile=32,square.wg_rows=8");
  GuardedMatrix m(40, 40, 4, 0, 4, 77);
  CHECK(ipt_transpose_f32(session().queue(), m.buffer(), 0, 40, 40, 0, nullptr, nullptr) ==
        IPT_INVALID_VALUE);
  CHECK(std::string(ipt_last_error_message()).find("IPT_OVERRIDES") != std::string::npos);
  CHECK(m.check_unchanged() == "");
}
