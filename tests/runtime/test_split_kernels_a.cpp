// SPDX-License-Identifier: Apache-2.0
// Split-matrix variants of the kernels (IPT_SPLIT): BS, PTTWAC (local and global flags)
// and the re-stride run on a matrix whose first `split` elements are in a buffer that
// ends there and whose other elements are in call scratch (split_check.hpp). Splits at
// the first element, at a tile or chunk boundary, in the middle and before the last
// element, so that tiles, chunks, cycles and rows straddle the split.
#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "helpers/split_check.hpp"
#include "helpers/test_support.hpp"
#include "planner/families/bs.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/launch_plan.hpp"

using ipt::planner::Region;
using ipt::test::after_tail;
using ipt::test::check_split_step;
using ipt::test::split_site;

namespace {

constexpr std::uint64_t kOffset = 3;

// The split points of a matrix of `elements` elements cut in units (tiles, rows, chunks):
// one unit in and three, besides the first, middle and last element.
std::vector<std::uint64_t> splits_of(std::uint64_t elements, std::uint64_t unit) {
  return ipt::test::split_points(elements, {unit, 3 * unit});
}

struct Shape {
  std::uint64_t A, B, C;
};

}  // namespace

TEST_CASE("BS 010! on a split matrix", "[split][bs]") {
  const Shape shapes[] = {{7, 5, 9}, {5, 32, 33}, {40, 3, 4}, {3, 64, 2}, {13, 16, 16}};
  std::uint64_t seed = 100;
  int ran = 0;
  for (const bool index64 : {false, true})
    for (const std::uint64_t tiles_per_group : {1, 4})
      for (const std::size_t elem_size : {1, 4, 8, 16})
        for (const Shape& s : shapes) {
          ipt::planner::BsConfig config;
          config.work_group = 64;
          config.tiles_per_group = tiles_per_group;
          config.max_groups = 3;  // groups grid-stride over chunks on both sides of the split
          const std::uint64_t n = s.B * s.C, elements = s.A * n;
          for (const std::uint64_t split : splits_of(elements, n)) {
            INFO("A " << s.A << " B " << s.B << " C " << s.C << " elem " << elem_size
                      << " tiles/group " << tiles_per_group << " index64 " << index64 << " split "
                      << split);
            const auto site = split_site(elem_size, kOffset, split, elements, index64);
            // The words BS zeroes on the way go after the tail.
            const auto step =
                ipt::planner::bs_step(site, s.A, s.B, s.C, config, after_tail(site, 64));
            REQUIRE(step.index64 == index64);
            // Tiles beyond a GPU's local memory (4 tiles of 32 x 33 16-byte elements) are
            // refused, as test_elementary_bs.cpp checks; the split changes nothing there.
            if (step.local_bytes > ipt::test::device_local_mem()) continue;
            ++ran;
            CHECK(check_split_step(step, site, elements, ++seed) == "");
          }
        }
  CHECK(ran > 100);  // most configurations fit any device's local memory
}

TEST_CASE("PTTWAC 010! on a split matrix, local flags", "[split][pttwac]") {
  const Shape shapes[] = {{3, 7, 9}, {4, 33, 31}, {9, 2, 5}, {2, 100, 3}};
  std::uint64_t seed = 200;
  for (const bool index64 : {false, true})
    for (const std::size_t spreading : {1, 16})
      for (const std::size_t elem_size : {1, 4, 8, 16})
        for (const Shape& s : shapes) {
          ipt::planner::PttwacConfig config;
          config.work_group = 32;
          config.spreading = spreading;
          config.max_groups = 2;
          const std::uint64_t n = s.B * s.C, elements = s.A * n;
          for (const std::uint64_t split : splits_of(elements, n)) {
            INFO("A " << s.A << " B " << s.B << " C " << s.C << " elem " << elem_size
                      << " spreading " << spreading << " index64 " << index64 << " split "
                      << split);
            const auto site = split_site(elem_size, kOffset, split, elements, index64);
            const auto step = ipt::planner::pttwac_step(site, s.A, s.B, s.C, config);
            REQUIRE(step.index64 == index64);
            CHECK(check_split_step(step, site, elements, ++seed) == "");
          }
        }
}

TEST_CASE("PTTWAC 010! on a split matrix, global flags", "[split][pttwac]") {
  const Shape shapes[] = {{3, 7, 9}, {2, 33, 31}, {1, 40, 3}};
  std::uint64_t seed = 300;
  for (const bool index64 : {false, true})
    for (const std::size_t elem_size : {1, 4, 16})
      for (const Shape& s : shapes) {
        ipt::planner::PttwacConfig config;
        config.global_flags = true;
        const std::uint64_t n = s.B * s.C, elements = s.A * n;
        for (const std::uint64_t split : splits_of(elements, n)) {
          INFO("A " << s.A << " B " << s.B << " C " << s.C << " elem " << elem_size << " index64 "
                    << index64 << " split " << split);
          const auto site = split_site(elem_size, kOffset, split, elements, index64);
          const std::uint64_t flag_bytes = ipt::planner::soa_flag_bytes(s.A * s.B * s.C, false);
          const auto step =
              ipt::planner::pttwac_step(site, s.A, s.B, s.C, config, after_tail(site, flag_bytes));
          REQUIRE(step.index64 == index64);
          CHECK(check_split_step(step, site, elements, ++seed) == "");
        }
      }
}

TEST_CASE("restride in words on a split matrix", "[split][restride][words]") {
  // Rows of 1- and 2-byte elements that fill words move in words also on a split matrix
  // when the split and the tail's place keep every unit on one side; the split points
  // here fall on word boundaries and off them.
  struct Case {
    std::uint64_t rows, len, s_in, s_out;
  };
  const Case cases[] = {{60, 48, 48, 64}, {60, 48, 64, 48}, {100, 36, 36, 38}, {100, 36, 38, 36}};
  std::uint64_t seed = 900;
  int in_words = 0;
  for (const bool index64 : {false, true})  // 64-bit: the kernels of matrices past 2^31
    for (const std::size_t elem_size : {1, 2})
      for (const Case& c : cases) {
        ipt::planner::RestrideConfig config;
        config.work_group = 16;
        config.per_item = 4;
        config.force_index64 = index64;
        const std::uint64_t elements = c.rows * std::max(c.s_in, c.s_out);
        for (const std::uint64_t split : splits_of(elements, std::max(c.s_in, c.s_out) * 2 + 1)) {
          INFO("rows " << c.rows << " len " << c.len << " " << c.s_in << " -> " << c.s_out
                       << " elem " << elem_size << " split " << split << " index64 " << index64);
          const auto site = split_site(elem_size, 4, split, elements);
          const auto step = ipt::planner::restride_step(
              site, c.rows, c.len, c.s_in, c.s_out, config,
              after_tail(site, ipt::planner::restride_scratch_bytes(config, c.rows * c.len)));
          in_words += step.options.rfind("-DIPT_ELEM_BYTES=4 ", 0) == 0;
          CHECK(step.index64 == index64);
          CHECK(check_split_step(step, site, elements, ++seed) == "");
        }
      }
  CHECK(in_words > 0);
}

TEST_CASE("restride on a split matrix, padding and unpadding", "[split][restride]") {
  struct Case {
    std::uint64_t rows, len, s_in, s_out;
  };
  const Case cases[] = {{100, 37, 37, 38},   {100, 37, 38, 37}, {17, 300, 300, 303},
                        {17, 300, 303, 300}, {500, 3, 3, 4},    {500, 3, 4, 3},
                        {2, 2, 2, 3},        {2, 2, 3, 2},      {60, 50, 50, 80},
                        {60, 50, 80, 50}};
  std::uint64_t seed = 400;
  // 32-bit indices; 64-bit ones with the offsets within a chunk in 32 bits (as planned);
  // 64-bit ones throughout.
  for (const int width : {32, 64, 128})
    for (const std::size_t elem_size : {1, 4, 8, 16})
      for (const Case& c : cases) {
        const bool index64 = width > 32;
        ipt::planner::RestrideConfig config;
        config.work_group = 16;
        config.per_item = 2;  // chunks of 32: many groups wait on each other across the split
        config.force_offsets64 = width > 64;
        const std::uint64_t elements = c.rows * std::max(c.s_in, c.s_out);
        for (const std::uint64_t split : splits_of(elements, std::max(c.s_in, c.s_out))) {
          INFO("rows " << c.rows << " len " << c.len << " " << c.s_in << " -> " << c.s_out
                       << " elem " << elem_size << " width " << width << " split " << split);
          const auto site = split_site(elem_size, kOffset, split, elements, index64);
          const std::uint64_t flag_bytes =
              ipt::planner::restride_scratch_bytes(config, c.rows * c.len);
          const auto step = ipt::planner::restride_step(site, c.rows, c.len, c.s_in, c.s_out,
                                                        config, after_tail(site, flag_bytes));
          REQUIRE(step.index64 == index64);
          // Every element of the extent: moved rows and the gaps left as they were.
          CHECK(check_split_step(step, site, elements, ++seed) == "");
        }
      }
}

TEST_CASE("restride stores wide words on a split matrix whose destinations precede the split",
          "[split][restride][units]") {
  // A padded plan on a buffer of exactly the matrix keeps the padded rows' last elements
  // in scratch: the unpad reads them from there and stores every element into the buffer.
  // The pads move element by element.
  struct Case {
    std::uint64_t rows, len, s_in, s_out;
  };
  const Case cases[] = {{100, 37, 38, 37}, {17, 300, 303, 300}, {60, 50, 80, 50},
                        {100, 37, 37, 38}, {17, 300, 300, 303}, {60, 50, 50, 80}};
  std::uint64_t seed = 3000;
  int in_words = 0;
  for (const bool index64 : {false, true})
    for (const std::size_t elem_size : {1, 2, 4})
      for (const Case& c : cases) {
        ipt::planner::RestrideConfig config;
        config.work_group = 32;
        config.per_item = 16;
        config.word_bytes = 16;
        const std::uint64_t elements = c.rows * std::max(c.s_in, c.s_out);
        for (const std::uint64_t split :
             ipt::test::split_points(elements, {c.rows * c.len, c.rows * c.len + 1})) {
          INFO("rows " << c.rows << " len " << c.len << " " << c.s_in << " -> " << c.s_out
                       << " elem " << elem_size << " index64 " << index64 << " split " << split);
          const auto site = split_site(elem_size, kOffset, split, elements, index64);
          const auto step = ipt::planner::restride_step(
              site, c.rows, c.len, c.s_in, c.s_out, config,
              after_tail(site, ipt::planner::restride_scratch_bytes(config, c.rows * c.len)));
          // Words only for an unpad whose destinations all lie before the split.
          const bool words = step.options.find(" -DIPT_UNITS=") != std::string::npos;
          CHECK(words == (c.s_out < c.s_in && split >= c.rows * c.len));
          in_words += words;
          CHECK(check_split_step(step, site, elements, ++seed) == "");
        }
      }
  CHECK(in_words > 0);
}

TEST_CASE("restride loads the rare units of a split matrix's wide-word unpad by the group",
          "[split][restride][units]") {
  // A unit whose words cross the split, or pass the tail's end, or whose sources cross a
  // row's end, is loaded element by element by the whole group (IPT_RARE_ITEMS); units
  // past the split load their words from the tail. Splits at, just after and well after
  // the last destination, up to the last source element.
  std::uint64_t seed = 4000;
  int rare = 0;
  for (const bool index64 : {false, true})
    for (const std::size_t elem_size : {1, 2})
      for (const std::uint64_t len : {180, 600, 1001})
        for (const std::uint64_t gap : {1, 3, 17}) {
          const std::uint64_t rows = 23, elements = rows * (len + gap), dest = rows * len;
          ipt::planner::RestrideConfig config;
          config.work_group = 64;
          config.per_item = 16;
          config.word_bytes = 16;
          for (const std::uint64_t split :
               {dest, dest + 1, dest + 7, dest + 17, (dest + elements) / 2, elements - 1}) {
            INFO("len " << len << " gap " << gap << " elem " << elem_size << " index64 " << index64
                        << " split " << split);
            const auto site = split_site(elem_size, kOffset, split, elements, index64);
            const auto step = ipt::planner::restride_step(
                site, rows, len, len + gap, len, config,
                after_tail(site, ipt::planner::restride_scratch_bytes(config, dest)));
            rare += step.options.find(" -DIPT_RARE_ITEMS=") != std::string::npos;
            CHECK(check_split_step(step, site, elements, ++seed) == "");
          }
        }
  CHECK(rare > 0);
}
