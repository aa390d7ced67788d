// SPDX-License-Identifier: Apache-2.0
// The 2- and 3-stage sequences (and one-stage) through the public API: each sequence
// forced with IPT_OVERRIDES, automatic plans on random shapes as a 48 KiB NVIDIA-like and
// a 32 KiB / 64-wide AMD-like device would make them, skinny AoS <-> SoA shapes, and
// forced plans that cannot work. Results checked in full with guard bytes.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "helpers/test_support.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::ScopedEnv;
using ipt::test::session;

namespace {

void transpose_and_check(std::size_t rows, std::size_t cols, std::size_t elem_size,
                         std::uint64_t seed) {
  INFO(rows << " x " << cols << ", elem_size " << elem_size);
  CHECK(ipt::test::transpose_through_api(rows, cols, elem_size, seed % 7, elem_size + 5, seed) ==
        "");
}

}  // namespace

TEST_CASE("each sequence forced on shapes with factors", "[sequences]") {
  const std::pair<std::size_t, std::size_t> shapes[] = {
      {60, 84}, {96, 40}, {120, 126}, {36, 2000}, {2000, 36}, {64, 64}, {8, 12}};
  for (const char* forced : {"sequence=1", "sequence=2.1", "sequence=2.2", "sequence=3.1",
                             "sequence=3.2", "sequence=4.1", "sequence=4.2"}) {
    ScopedEnv env("IPT_OVERRIDES", forced);
    INFO(forced);
    std::uint64_t seed = 10;
    for (std::size_t elem_size : {1, 4, 16})
      for (auto [rows, cols] : shapes) transpose_and_check(rows, cols, elem_size, ++seed);
  }
}

TEST_CASE("sequences with forced factors", "[sequences]") {
  // Every shape here is divisible by each forced m (rows) and n (cols).
  const std::pair<std::size_t, std::size_t> shapes[] = {{60, 84}, {120, 36}, {24, 1200}};
  for (const char* forced :
       {"sequence=3.1,m=6,n=12", "sequence=3.2,m=12,n=4", "sequence=3.1,m=4,n=4",
        "sequence=2.1,m=4", "sequence=2.2,n=4", "sequence=4.1,m=12,n=6", "sequence=4.2,m=4,n=12"}) {
    ScopedEnv env("IPT_OVERRIDES", forced);
    INFO(forced);
    std::uint64_t seed = 50;
    for (std::size_t elem_size : {2, 8})
      for (auto [rows, cols] : shapes) transpose_and_check(rows, cols, elem_size, ++seed);
  }
}

TEST_CASE("automatic plans on random shapes, NVIDIA-like and AMD-like profiles",
          "[sequences][large]") {
  IPT_TEST_SEED(seed, 2015);
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::size_t> side(1, 3000);
  for (const char* profile : {"local_mem=49152", "local_mem=32768,max_wg=256,simd=64"}) {
    ScopedEnv env("IPT_OVERRIDES", profile);
    INFO(profile);
    for (int i = 0; i < 30; ++i) {  // test_padding.cpp runs 600 more
      const std::size_t rows = side(random), cols = side(random);
      transpose_and_check(rows, cols, std::size_t{1} << (i % 5), 100 + i);
    }
  }
}

TEST_CASE("skinny AoS <-> SoA shapes", "[sequences]") {
  ScopedEnv env("IPT_OVERRIDES", "local_mem=49152");
  std::uint64_t seed = 300;
  for (std::size_t k : {2, 3, 5, 8, 17, 32})
    for (std::size_t elem_size : {4, 8}) {
      transpose_and_check(20000, k, elem_size, ++seed);
      transpose_and_check(k, 20000, elem_size, ++seed);
    }
  transpose_and_check(1000000, 3, 4, ++seed);
}

TEST_CASE("a forced plan that cannot work is refused, buffer untouched", "[sequences][bad_input]") {
  for (const char* forced : {"sequence=3.1,m=7,n=4", "sequence=2.1,m=60,local_mem=4096",
                             "sequence=square", "sequence=4.3", "padded_rows=59",
                             "padding=off,padded_cols=85", "padding=maybe", "sequence=4.2,m=7"}) {
    ScopedEnv env("IPT_OVERRIDES", forced);
    INFO(forced);
    GuardedMatrix m(60, 84, 4, 3, 8, 77);
    CHECK(ipt_transpose_f32(session().queue(), m.buffer(), 3, 60, 84, 0, nullptr, nullptr) ==
          IPT_INVALID_VALUE);
    CHECK(m.check_unchanged() == "");
  }
  // A padded shape the buffer has no room for (8 bytes after the matrix).
  ScopedEnv env("IPT_OVERRIDES", "padded_rows=61");
  GuardedMatrix m(60, 84, 4, 3, 8, 78);
  CHECK(ipt_transpose_f32(session().queue(), m.buffer(), 3, 60, 84, 0, nullptr, nullptr) ==
        IPT_BUFFER_TOO_SMALL);
  CHECK(std::string(ipt_last_error_message()).find("padded") != std::string::npos);
  CHECK(m.check_unchanged() == "");
}

TEST_CASE("elements move in wider words where the super-elements allow", "[sequences]") {
  // Factors whose super-elements fill words of 2 and 4 elements, at offsets that do and do
  // not fall on a word, against the same plans moving single elements (word=1) or in
  // narrower words.
  const std::pair<std::size_t, std::size_t> shapes[] = {{60, 84}, {120, 36}, {24, 1200}};
  for (const char* forced :
       {"sequence=2.1,m=4", "sequence=2.2,n=6", "sequence=3.2,m=6,n=12", "sequence=2.1,m=4,word=1",
        "sequence=3.1,m=6,n=4,word=2", "sequence=2.2,n=6,word=8"}) {
    ScopedEnv env("IPT_OVERRIDES", forced);
    std::uint64_t seed = 70;
    for (std::size_t elem_size : {1, 2, 4, 8})
      for (std::size_t offset : {0, 1, 2, 4})
        for (auto [rows, cols] : shapes) {
          INFO(forced << ": " << rows << " x " << cols << ", elem_size " << elem_size << ", offset "
                      << offset);
          CHECK(ipt::test::transpose_through_api(rows, cols, elem_size, offset, 7, ++seed) == "");
        }
  }
}
