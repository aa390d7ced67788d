// SPDX-License-Identifier: Apache-2.0
// Launch shape of the square tiled-swap kernel (kernels/square.cl).
#pragma once

#include <cstddef>
#include <cstdint>

#include "planner/device_profile.hpp"
#include "planner/step.hpp"
#include "planner/tile_layout.hpp"

namespace ipt::planner {

struct SquarePlan {
  std::size_t tile = 64;        // TILE: tile edge in elements
  std::size_t wg_rows = 4;      // WG_ROWS: the work-group is tile x wg_rows
  std::uint64_t num_pairs = 0;  // tile pairs (ti <= tj) of one matrix, one work-group each
  std::uint64_t matrices = 1;   // n x n matrices back to back (a batch), each swapped alone
  std::uint64_t grid_x = 0;     // work-groups in NDRange dimension 0
  std::uint64_t grid_y = 0;     // rows of grid_x groups: grid_x * grid_y >= num_pairs * matrices
  // IPT_SWIZZLE of kernels/square.cl (swizzled: the tile a power of two).
  TileLayout layout = TileLayout::kPadded;
  // Whether 1- and 2-byte elements may move in 4-byte words (the word tiles of
  // kernels/square.cl); square_step takes them where the matrix allows (square_words).
  bool words = true;
  // Whether 4-byte elements move in aligned 16-byte vectors (the vector rows of
  // kernels/square.cl): plan_square takes them where the device has cache lines and the
  // rows do not start on them; square_step where the step allows (square_vectors).
  bool vectors = false;
  // The order of the tile pairs (`band` of kernels/square.cl): 0 down the tile columns,
  // else row by row in bands of this many tile columns (plan_square: square_band for
  // large matrices whose rows do not start on cache lines).
  std::uint64_t band = 0;
};

// Bands of tile columns and the matrices that take them (plan_square): 32 tile columns
// of 4- and 8-byte elements (8 KiB of a row), 8 of others; where a tile column holds
// more than 6 MiB.
inline constexpr std::uint64_t square_band(std::size_t elem_size) {
  return elem_size == 4 || elem_size == 8 ? 32 : 8;
}
inline constexpr std::uint64_t kSquareBandFromColumnBytes = std::uint64_t{6} << 20;

// Whether this step moves tile rows in 16-byte vectors: where the plan takes them, the
// element is 4 bytes, the matrix lies in one buffer (no split) and the tile is a multiple
// of 4 * wg_rows.
bool square_vectors(const SquarePlan& plan, std::size_t elem_size, bool split);

// Elements per 4-byte word of the square kernel's word tiles for this step: 4 / elem_size
// where the plan allows words, the element is 1 or 2 bytes, n is a multiple of the word,
// the matrix starts on a 4-byte boundary (offset) of one buffer (no split) and the word
// tiles fit local_mem_bytes; else 1 (a tile element per work-item).
std::size_t square_words(const SquarePlan& plan, std::uint64_t n, std::size_t elem_size,
                         std::uint64_t offset, bool split, std::size_t local_mem_bytes);

// Bytes of local memory the kernel uses for one work-group (two tiles in `layout`, or in
// words of `word` elements: word > 1).
std::size_t square_local_bytes(std::size_t tile, std::size_t elem_size,
                               TileLayout layout = TileLayout::kPadded, std::size_t word = 1);

// The plan for an n x n matrix of elem_size-byte elements, its tiles in `layout`. The
// tile is the largest of 64, 32, 16, 8 whose two tiles fit in three quarters of the
// device's local memory and whose work-group (tile x 4) fits max_work_group_size. A
// forced tile / wg_rows (non-zero) wins; it must fit the device (local memory, work-group
// size) and, swizzled, be a power of two, else std::invalid_argument.
SquarePlan plan_square(const DeviceProfile& device, std::uint64_t n, std::size_t elem_size,
                       std::size_t forced_tile = 0, std::size_t forced_wg_rows = 0,
                       TileLayout layout = TileLayout::kPadded);

// Completes a plan whose tile and wg_rows were chosen by the caller (tests, tuning):
// fills num_pairs and the grid (at most max_grid_x groups per row) for `matrices` n x n
// matrices back to back.
SquarePlan complete_square_plan(SquarePlan plan, std::uint64_t n,
                                std::uint64_t max_grid_x = std::uint64_t{1} << 20,
                                std::uint64_t matrices = 1);

// Its cost: the square kernel runs at 88% of the copy bandwidth.
inline constexpr double kSquareEfficiency = 0.88;

// Its step builder (planner/families/square.cpp). A region left with Buffer::kNone is placed
// at the start of the call scratch, as a kernel run alone needs.
Step square_step(const StepSite& site, std::uint64_t n, const SquarePlan& plan);

}  // namespace ipt::planner
