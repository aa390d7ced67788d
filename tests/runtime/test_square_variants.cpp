// SPDX-License-Identifier: Apache-2.0
// The square kernel in every variant the planner can choose (tile 8/16/32/64, several
// work-group heights, 32- and 64-bit indices, padded and swizzled tiles), its step run
// alone.
#include <catch2/catch.hpp>

#include "helpers/split_check.hpp"
#include "helpers/step_check.hpp"
#include "helpers/test_support.hpp"
#include "planner/families/square.hpp"
#include "planner/launch_plan.hpp"
#include "runtime/error.hpp"
#include "runtime/launcher.hpp"
#include "support/step_run.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::session;

TEST_CASE("square kernel variants", "[square][variants]") {
  const cl::CommandQueue queue(session().queue(), true);
  std::size_t max_wg = 0;
  clGetDeviceInfo(session().device(), CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg,
                  nullptr);
  int refused = 0, variants = 0;
  for (std::size_t tile : {8, 16, 32, 64}) {
    for (std::size_t wg_rows : {std::size_t{1}, std::size_t{4}, tile}) {
      if (tile * wg_rows > max_wg) continue;
      for (bool index64 : {false, true}) {
        for (std::size_t elem_size : {1, 4, 16}) {
          for (std::size_t n : {1, 2, 7, 8, 9, 31, 33, 64, 97, 130}) {
            ++variants;
            ipt::planner::SquarePlan plan;
            plan.tile = tile;
            plan.wg_rows = wg_rows;
            // Rows of 3 groups: several grid rows, the last one partly idle.
            plan = ipt::planner::complete_square_plan(plan, n, 3);
            const auto site = ipt::test::site_of(elem_size, 5, index64);
            const auto step = ipt::planner::square_step(site, n, plan);
            INFO("tile " << tile << " rows " << wg_rows << " idx64 " << index64 << " elem "
                         << elem_size << " n " << n);
            REQUIRE(step.index64 == index64);
            GuardedMatrix m(n, n, elem_size, 5, 7, n * tile + wg_rows);
            const cl::Buffer buffer(m.buffer(), true);
            try {
              ipt::support::run_steps(queue, buffer, {step}, elem_size, 5).wait();
              CHECK(m.check_transposed() == "");
            } catch (const ipt::runtime::WorkGroupTooLarge& e) {
              // Register pressure made this variant's compiled limit smaller than its
              // work-group (seen on NVIDIA for 32 x 32 work-items of 16-byte elements);
              // it must then refuse without touching the data.
              CHECK(e.limit < tile * wg_rows);
              CHECK(tile * wg_rows > 256);  // the sizes the planner picks always run
              CHECK(m.check_unchanged() == "");
              ++refused;
            } catch (const ipt::Error& e) {
              // Two tiles of 64 x 65 16-byte elements (133 KB) exceed a GPU's local
              // memory: refused before anything is enqueued, the data untouched.
              CHECK(e.status() == IPT_OUT_OF_RESOURCES);
              CHECK(ipt::planner::square_local_bytes(tile, elem_size) >
                    ipt::test::device_local_mem());
              CHECK(m.check_unchanged() == "");
              ++refused;
            }
          }
        }
      }
    }
  }
  CHECK(refused < variants);
}

TEST_CASE("square kernel with swizzled tiles", "[square][variants][tile_layout]") {
  // Swizzled tiles (IPT_SWIZZLE=1) in every element size, in tiles of each width the
  // planner picks, with work-groups of one row, a few rows and a whole tile; full and
  // partial tiles, several pairs per grid row. Checked as the padded ones above.
  const cl::CommandQueue queue(session().queue(), true);
  std::size_t max_wg = 0;
  clGetDeviceInfo(session().device(), CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg,
                  nullptr);
  struct Variant {
    std::size_t tile, wg_rows;
    bool index64;
  };
  for (const Variant v : {Variant{8, 8, false}, Variant{16, 2, false}, Variant{32, 4, true},
                          Variant{64, 4, false}, Variant{64, 1, false}}) {
    if (v.tile * v.wg_rows > max_wg) continue;
    for (std::size_t elem_size : {1, 2, 4, 8, 16}) {
      ipt::planner::SquarePlan plan;
      plan.tile = v.tile;
      plan.wg_rows = v.wg_rows;
      plan.layout = ipt::planner::TileLayout::kSwizzled;
      const std::size_t local = ipt::planner::square_local_bytes(v.tile, elem_size, plan.layout);
      // Two swizzled tiles of 64 x 64 16-byte elements (128 KiB) exceed most devices.
      if (local > ipt::test::device_local_mem()) continue;
      for (std::size_t n : {1, 7, 9, 33, 64, 97, 130}) {
        plan = ipt::planner::complete_square_plan(plan, n, 3);
        const auto site = ipt::test::site_of(elem_size, 5, v.index64);
        const auto step = ipt::planner::square_step(site, n, plan);
        INFO("tile " << v.tile << " rows " << v.wg_rows << " elem " << elem_size << " n " << n);
        REQUIRE(step.options.find("-DIPT_SWIZZLE=1") != std::string::npos);
        GuardedMatrix m(n, n, elem_size, 5, 7, n * v.tile + v.wg_rows);
        const cl::Buffer buffer(m.buffer(), true);
        ipt::support::run_steps(queue, buffer, {step}, elem_size, 5).wait();
        CHECK(m.check_transposed() == "");
      }
    }
  }
}

TEST_CASE("square kernel in word tiles", "[square][variants][words]") {
  // 1- and 2-byte elements move in 4-byte words where n is a multiple of the word and the
  // matrix starts on a 4-byte boundary; elsewhere (n not a multiple, an odd offset) the
  // same plan moves them one by one. Full and partial tiles, diagonal and mirrored pairs,
  // several pairs per grid row, work-groups of one and several rows, both index widths.
  const cl::CommandQueue queue(session().queue(), true);
  std::size_t max_wg = 0;
  clGetDeviceInfo(session().device(), CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg,
                  nullptr);
  int words = 0;
  for (const std::size_t elem_size : {1, 2}) {
    const std::size_t word = 4 / elem_size;
    // The planner's word tiles (128 x 2 for 1-byte elements, 64 x 4 for 2-byte ones)
    // among others.
    for (const std::size_t tile : {8, 32, 64, 128})
      for (const std::size_t wg_rows : {1, 2, 4}) {
        if (tile * wg_rows > max_wg || (tile == 128 && (elem_size != 1 || wg_rows != 2)) ||
            (wg_rows == 2 && tile != 128))
          continue;
        for (const bool index64 : {false, true})
          for (const std::uint64_t offset : {0, 4, 3})
            for (const std::size_t n : {4, 8, 12, 60, 64, 68, 100, 132, 7, 130}) {
              ipt::planner::SquarePlan plan;
              plan.tile = tile;
              plan.wg_rows = wg_rows;
              plan = ipt::planner::complete_square_plan(plan, n, 3);
              const auto site = ipt::test::site_of(elem_size, offset, index64);
              const auto step = ipt::planner::square_step(site, n, plan);
              const bool in_words = n % word == 0 && offset * elem_size % 4 == 0;
              INFO("tile " << tile << " rows " << wg_rows << " idx64 " << index64 << " elem "
                           << elem_size << " offset " << offset << " n " << n);
              REQUIRE((step.options.find("-DIPT_WORDS=" + std::to_string(word)) !=
                       std::string::npos) == in_words);
              REQUIRE(step.local[0] * step.local[1] == tile * wg_rows);
              words += in_words;
              GuardedMatrix m(n, n, elem_size, offset, 9, n * tile + wg_rows + offset);
              const cl::Buffer buffer(m.buffer(), true);
              ipt::support::run_steps(queue, buffer, {step}, elem_size, offset).wait();
              CHECK(m.check_transposed() == "");
            }
      }
  }
  CHECK(words > 100);
  // Swizzled plans, and profiles without words (IPT_OVERRIDES word=1), stay element by
  // element.
  ipt::planner::SquarePlan plan;
  plan.tile = 64;
  plan.wg_rows = 4;
  plan = ipt::planner::complete_square_plan(plan, 128, 3);
  const auto site = ipt::test::site_of(1, 0, false);
  CHECK(ipt::planner::square_step(site, 128, plan).options.find("IPT_WORDS") != std::string::npos);
  plan.words = false;
  CHECK(ipt::planner::square_step(site, 128, plan).options.find("IPT_WORDS") == std::string::npos);
  plan.words = true;
  plan.layout = ipt::planner::TileLayout::kSwizzled;
  CHECK(ipt::planner::square_step(site, 128, plan).options.find("IPT_WORDS") == std::string::npos);
}

TEST_CASE("batches of squares in word tiles", "[square][variants][words][batched]") {
  // Three matrices back to back, each swapped alone: the word tiles' matrix base.
  const cl::CommandQueue queue(session().queue(), true);
  for (const std::size_t elem_size : {1, 2})
    for (const std::size_t n : {4, 68, 130}) {
      if (n % (4 / elem_size) != 0) continue;
      ipt::planner::SquarePlan plan;
      plan.tile = 32;
      plan.wg_rows = 4;
      plan = ipt::planner::complete_square_plan(plan, n, 5, 3);
      const auto step = ipt::planner::square_step(ipt::test::site_of(elem_size, 0), n, plan);
      REQUIRE(step.options.find("-DIPT_WORDS=") != std::string::npos);
      INFO("elem " << elem_size << " n " << n);
      // Against the host reference of the step's move: each n x n matrix transposed.
      CHECK(ipt::test::check_step(step, ipt::test::site_of(elem_size, 0), 3 * n * n, 11, 77 + n) ==
            "");
    }
}

TEST_CASE("square kernel in vector rows", "[square][variants][vectors]") {
  // 4-byte rows in aligned 16-byte vectors, the up to 3 elements before the first and after
  // the last moved by the whole work-group: every offset mod 4 (rows starting at each
  // element of a vector), n from 1 to beyond two tiles (rows of 0 to 3 head and tail
  // elements, tiles narrower than one vector), full and partial tiles, diagonal and
  // mirrored pairs, both layouts and index widths, batches.
  std::size_t max_wg = 0;
  clGetDeviceInfo(session().device(), CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg,
                  nullptr);
  struct Variant {
    std::size_t tile, wg_rows;
    ipt::planner::TileLayout layout;
    bool index64;
  };
  using ipt::planner::TileLayout;
  int moved = 0;
  for (const Variant v :
       {Variant{64, 4, TileLayout::kPadded, false}, Variant{64, 4, TileLayout::kSwizzled, true},
        Variant{64, 1, TileLayout::kPadded, true}, Variant{32, 8, TileLayout::kPadded, false},
        Variant{32, 4, TileLayout::kSwizzled, false}, Variant{16, 4, TileLayout::kPadded, false},
        Variant{24, 2, TileLayout::kPadded, false}}) {
    if (v.tile * v.wg_rows > max_wg) continue;
    for (const std::uint64_t offset : {0, 1, 2, 3})
      for (const std::size_t n : {1, 2, 3, 5, 8, 13, 17, 31, 64, 65, 66, 67, 97, 130, 131}) {
        for (const std::uint64_t matrices : {1, 3}) {
          ipt::planner::SquarePlan plan;
          plan.tile = v.tile;
          plan.wg_rows = v.wg_rows;
          plan.layout = v.layout;
          plan.vectors = true;
          plan = ipt::planner::complete_square_plan(plan, n, 3, matrices);
          const auto site = ipt::test::site_of(4, offset, v.index64);
          const auto step = ipt::planner::square_step(site, n, plan);
          INFO("tile " << v.tile << " rows " << v.wg_rows << " layout "
                       << ipt::planner::tile_layout_name(v.layout) << " idx64 " << v.index64
                       << " offset " << offset << " n " << n << " matrices " << matrices);
          REQUIRE(step.options.find("-DIPT_VECTORS=1") != std::string::npos);
          ++moved;
          CHECK(ipt::test::check_step(step, site, matrices * n * n, 13, 500 + n + offset) == "");
        }
      }
  }
  CHECK(moved > 600);
}

TEST_CASE("vector rows only where the step allows them", "[square][variants][vectors]") {
  // 8-byte elements, a split matrix, and tiles that are not a multiple of 4 x wg_rows stay
  // element by element even in a plan that takes vectors; 4-byte elements of a plan that
  // does not take them too.
  ipt::planner::SquarePlan plan;
  plan.tile = 64;
  plan.wg_rows = 4;
  plan.vectors = true;
  plan = ipt::planner::complete_square_plan(plan, 100, 3);
  const auto vectors = [&](const ipt::planner::StepSite& site) {
    return ipt::planner::square_step(site, 100, plan).options.find("IPT_VECTORS") !=
           std::string::npos;
  };
  CHECK(vectors(ipt::test::site_of(4, 0)));
  CHECK_FALSE(vectors(ipt::test::site_of(8, 0)));
  CHECK_FALSE(vectors(ipt::test::site_of(2, 0)));
  CHECK_FALSE(vectors(ipt::test::split_site(4, 0, 5000, 100 * 100)));
  plan.tile = 8;
  CHECK_FALSE(vectors(ipt::test::site_of(4, 0)));
  plan.tile = 64;
  plan.vectors = false;
  CHECK_FALSE(vectors(ipt::test::site_of(4, 0)));
}

TEST_CASE("square kernel with its pairs in bands of tile columns", "[square][variants][bands]") {
  // Bands of 1, 2, 3, 8, 16 and 32 tile columns over 1 to 38 tile columns: bands whole and partial
  // (the last one narrower), each band's rectangle above the diagonal and its triangle;
  // element by element, in vector rows, in word tiles; both index widths; batches, whose
  // matrices each start their bands anew.
  struct Variant {
    std::size_t elem_size, tile, wg_rows;
    bool vectors, words;
  };
  int moved = 0;
  for (const Variant v : {Variant{4, 8, 4, false, false}, Variant{8, 8, 2, false, false},
                          Variant{4, 16, 4, true, false}, Variant{1, 16, 1, false, true},
                          Variant{2, 8, 2, false, true}})
    for (const bool index64 : {false, true})
      for (const std::uint64_t band : {1, 2, 3, 8, 16, 32})
        for (const std::size_t n : {1, 7, 8, 9, 24, 65, 100, 130, 164, 300})
          for (const std::uint64_t matrices : {1, 2}) {
            ipt::planner::SquarePlan plan;
            plan.tile = v.tile;
            plan.wg_rows = v.wg_rows;
            plan.vectors = v.vectors;
            plan.words = v.words;
            plan.band = band;
            plan = ipt::planner::complete_square_plan(plan, n, 5, matrices);
            const auto site = ipt::test::site_of(v.elem_size, 0, index64);
            const auto step = ipt::planner::square_step(site, n, plan);
            INFO("elem " << v.elem_size << " tile " << v.tile << " idx64 " << index64 << " band "
                         << band << " n " << n << " matrices " << matrices << ": " << step.what);
            REQUIRE(step.what.find("bands of " + std::to_string(band)) != std::string::npos);
            ++moved;
            CHECK(ipt::test::check_step(step, site, matrices * n * n, 17, 900 + n + band) == "");
          }
  CHECK(moved == 5 * 2 * 6 * 10 * 2);
}
