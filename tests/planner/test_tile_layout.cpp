// SPDX-License-Identifier: Apache-2.0
// The local tile layouts of the square and on-chip kernels (planner/tile_layout.hpp,
// SWZ_COL of kernels/common.cl) in a model of local memory banks, without a device: the
// swizzled layout holds every element of a tile once, and every access of both kernels
// to it is conflict-free, for every element size and tile shape the planner uses;
// the padded layout is never better, and in some of them worse.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "planner/tile_layout.hpp"

using ipt::planner::swizzled_column;
using ipt::planner::TileLayout;

namespace {

// 32 banks of 4-byte words. A warp's access is served in groups of lanes that move at
// most 128 bytes (32 lanes of 1-4 bytes, 16 of 8, 8 of 16); a group takes as many passes
// as the most distinct words any one bank holds among its lanes' elements.
struct Banks {
  std::size_t elem_size;

  std::size_t group_lanes() const { return elem_size > 4 ? 128 / elem_size : 32; }

  std::size_t passes(const std::vector<std::uint64_t>& elements) const {
    std::map<std::uint64_t, std::set<std::uint64_t>> words_of_bank;
    for (std::uint64_t e : elements)
      for (std::uint64_t w = e * elem_size / 4; w <= (e * elem_size + elem_size - 1) / 4; ++w)
        words_of_bank[w % 32].insert(w);
    std::size_t most = 0;
    for (const auto& [bank, words] : words_of_bank) most = std::max(most, words.size());
    return most;
  }

  // Passes of one warp instruction (its lanes' elements, lane order), and the fewest it
  // could take (one per group).
  void add(const std::vector<std::uint64_t>& warp, std::size_t& total, std::size_t& fewest) const {
    const std::size_t lanes = group_lanes();
    for (std::size_t g = 0; g < warp.size(); g += lanes) {
      const auto end = warp.begin() + static_cast<std::ptrdiff_t>(std::min(warp.size(), g + lanes));
      total += passes({warp.begin() + static_cast<std::ptrdiff_t>(g), end});
      ++fewest;
    }
  }
};

// Element (r, c) of a rows x width tile: its index in the tile's local array.
using Layout = std::function<std::uint64_t(std::uint64_t, std::uint64_t)>;

Layout layout_of(TileLayout layout, std::uint64_t rows, std::uint64_t width,
                 std::size_t elem_size) {
  if (layout == TileLayout::kPadded) return [=](auto r, auto c) { return r * (width + 1) + c; };
  return [=](auto r, auto c) { return r * width + swizzled_column(r, c, rows, width, elem_size); };
}

struct Cost {
  std::size_t writes = 0, reads = 0, fewest_writes = 0, fewest_reads = 0;
};

// The square kernel (square.cl): a tile x wg_rows work-group, warps of 32 consecutive
// work-items (x = local id 0 fastest). load_tile writes element (r, x), r = local id 1
// + k * wg_rows; store_transposed reads element (x, r).
Cost square_cost(TileLayout which, std::uint64_t tile, std::uint64_t wg_rows, std::size_t elem) {
  const Banks banks{elem};
  const Layout at = layout_of(which, tile, tile, elem);
  Cost cost;
  const std::uint64_t items = tile * wg_rows;
  for (std::uint64_t first = 0; first < items; first += 32)
    for (std::uint64_t k = 0; k < tile / wg_rows; ++k) {
      std::vector<std::uint64_t> writes, reads;
      for (std::uint64_t id = first; id < std::min(items, first + 32); ++id) {
        const std::uint64_t x = id % tile, r = id / tile + k * wg_rows;
        writes.push_back(at(r, x));
        reads.push_back(at(x, r));
      }
      banks.add(writes, cost.writes, cost.fewest_writes);
      banks.add(reads, cost.reads, cost.fewest_reads);
    }
  return cost;
}

// The on-chip kernel (onchip.cl): work-items lid of a group of wg, tiles of tr x tc
// (tr * tc = 1024). Pass p of the loads writes element (p * LOAD_ROWS + lid / tc,
// lid % tc); pass p of the stores reads element (lid % tr, p * STORE_COLS + lid / tr).
Cost onchip_cost(TileLayout which, std::uint64_t wg, std::uint64_t tr, std::uint64_t tc,
                 std::size_t elem) {
  const Banks banks{elem};
  const Layout at = layout_of(which, tr, tc, elem);
  Cost cost;
  for (std::uint64_t first = 0; first < wg; first += 32)
    for (std::uint64_t p = 0; p < tr * tc / wg; ++p) {
      std::vector<std::uint64_t> writes, reads;
      for (std::uint64_t lid = first; lid < first + 32; ++lid) {
        writes.push_back(at(p * (wg / tc) + lid / tc, lid % tc));
        reads.push_back(at(lid % tr, p * (wg / tr) + lid / tr));
      }
      banks.add(writes, cost.writes, cost.fewest_writes);
      banks.add(reads, cost.reads, cost.fewest_reads);
    }
  return cost;
}

}  // namespace

TEST_CASE("a swizzled tile keeps every element once, in its own row", "[tile_layout]") {
  for (std::size_t elem : {1, 2, 4, 8, 16})
    for (std::uint64_t rows = 1; rows <= 1024; rows *= 2)
      for (std::uint64_t width = 1; width <= 1024; width *= 2) {
        INFO(rows << " x " << width << ", " << elem << "-byte elements");
        for (std::uint64_t r = 0; r < rows; r += std::max<std::uint64_t>(1, rows / 64)) {
          std::vector<bool> taken(width);
          for (std::uint64_t c = 0; c < width; ++c) {
            const std::uint64_t at = swizzled_column(r, c, rows, width, elem);
            REQUIRE(at < width);
            REQUIRE_FALSE(taken[at]);
            taken[at] = true;
            // 1- and 2-byte elements of one 4-byte word stay together.
            if (elem < 4) CHECK((at ^ c) % (4 / elem) == 0);
          }
        }
      }
  // 4-byte elements in 32 x 32 tiles: the classic c ^ r.
  for (std::uint64_t r = 0; r < 32; ++r)
    for (std::uint64_t c = 0; c < 32; ++c) CHECK(swizzled_column(r, c, 32, 32, 4) == (c ^ r));
}

TEST_CASE("swizzled square tiles are conflict-free, padded ones not always", "[tile_layout]") {
  std::size_t padded_worse = 0;
  for (std::size_t elem : {1, 2, 4, 8, 16})
    for (std::uint64_t tile : {8, 16, 32, 64})
      for (std::uint64_t wg_rows : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{4}, tile}) {
        INFO("tile " << tile << " x " << wg_rows << " work-items, " << elem << "-byte elements");
        const Cost swizzled = square_cost(TileLayout::kSwizzled, tile, wg_rows, elem);
        const Cost padded = square_cost(TileLayout::kPadded, tile, wg_rows, elem);
        CHECK(swizzled.writes == swizzled.fewest_writes);
        CHECK(swizzled.reads == swizzled.fewest_reads);
        CHECK(padded.writes >= swizzled.writes);
        CHECK(padded.reads >= swizzled.reads);
        padded_worse += padded.writes + padded.reads > swizzled.writes + swizzled.reads;
      }
  // The planner's tile for 1- and 2-byte elements (64): padded column reads take two
  // passes a group.
  CHECK(square_cost(TileLayout::kPadded, 64, 4, 1).reads ==
        2 * square_cost(TileLayout::kSwizzled, 64, 4, 1).reads);
  CHECK(square_cost(TileLayout::kPadded, 64, 4, 2).reads ==
        2 * square_cost(TileLayout::kSwizzled, 64, 4, 2).reads);
  CHECK(padded_worse > 0);
}

TEST_CASE("swizzled on-chip tiles are conflict-free in every shape, padded ones not always",
          "[tile_layout]") {
  for (std::size_t elem : {1, 2, 4, 8, 16})
    for (std::uint64_t wg : {32, 64, 256, 1024})
      for (std::uint64_t tc = 1; tc <= 1024; tc *= 2) {
        const std::uint64_t tr = 1024 / tc;
        if (tr > wg || tc > wg) continue;  // onchip_tile never makes such tiles
        INFO(tr << " x " << tc << " tiles, groups of " << wg << ", " << elem << "-byte elements");
        const Cost swizzled = onchip_cost(TileLayout::kSwizzled, wg, tr, tc, elem);
        const Cost padded = onchip_cost(TileLayout::kPadded, wg, tr, tc, elem);
        CHECK(swizzled.writes == swizzled.fewest_writes);
        CHECK(swizzled.reads == swizzled.fewest_reads);
        CHECK(padded.writes >= swizzled.writes);
        CHECK(padded.reads >= swizzled.reads);
      }
  // Short tiles (a wide matrix's): padded column reads of 8 x 128 floats take four passes
  // a group; narrow ones (a skinny matrix's): padded row writes of 128 x 8 take two.
  CHECK(onchip_cost(TileLayout::kPadded, 1024, 8, 128, 4).reads ==
        4 * onchip_cost(TileLayout::kSwizzled, 1024, 8, 128, 4).reads);
  CHECK(onchip_cost(TileLayout::kPadded, 1024, 128, 8, 4).writes ==
        2 * onchip_cost(TileLayout::kSwizzled, 1024, 128, 8, 4).writes);
  // 32 x 32 tiles of 4- to 16-byte elements, the common case: both conflict-free.
  for (std::size_t elem : {4, 8, 16}) {
    const Cost padded = onchip_cost(TileLayout::kPadded, 1024, 32, 32, elem);
    CHECK(padded.writes == padded.fewest_writes);
    CHECK(padded.reads == padded.fewest_reads);
  }
}
