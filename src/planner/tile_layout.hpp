// SPDX-License-Identifier: Apache-2.0
// How the square and on-chip kernels lay out a tile in local memory (kernels/common.cl,
// IPT_SWIZZLE). Padded tiles are today's default; swizzled ones take no padding column,
// so that the planner can size them (and stage more of them) by their elements alone.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ipt::planner {

enum class TileLayout {
  kPadded,    // rows of width + 1 elements: column reads walk the banks with an odd stride
  kSwizzled,  // rows of width elements, each row's columns permuted (swizzled_column)
};

inline const char* tile_layout_name(TileLayout layout) {
  return layout == TileLayout::kSwizzled ? "swizzled" : "padded";
}

// The build option that selects `layout` in square.cl and onchip.cl: none for padded
// tiles, so that their programs (and cached binaries) stay those of before the option.
inline const char* tile_layout_option(TileLayout layout) {
  return layout == TileLayout::kSwizzled ? " -DIPT_SWIZZLE=1" : "";
}

// Elements of local memory that a rows x width tile takes.
inline std::uint64_t tile_slots(std::uint64_t rows, std::uint64_t width, TileLayout layout) {
  return rows * (width + (layout == TileLayout::kPadded ? 1 : 0));
}

// Where a swizzled tile of `rows` x `width` elements of elem_size bytes (both sides
// powers of two) keeps element (r, c): in row r, at this column. The same function as
// SWZ_COL of kernels/common.cl, which explains it; tests/planner/test_tile_layout.cpp checks this
// one against a model of the banks for every access of the two kernels.
inline std::uint64_t swizzled_column(std::uint64_t r, std::uint64_t c, std::uint64_t rows,
                                     std::uint64_t width, std::size_t elem_size) {
  const std::uint64_t word = elem_size < 4 ? 4 / elem_size : 1;      // elements per bank word
  const std::uint64_t lanes = elem_size > 4 ? 128 / elem_size : 32;  // lanes served at once
  const std::uint64_t line = 128 / elem_size;                        // elements per 32 banks
  const std::uint64_t per_line = line > width ? line / width : 1;
  const std::uint64_t step = lanes / rows > word ? lanes / rows : word;
  return c ^ (((r / per_line) * step) & (width - 1));
}

}  // namespace ipt::planner
