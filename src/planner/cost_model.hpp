// SPDX-License-Identifier: Apache-2.0
// A rough model of how long a plan takes, used to choose the tile factors m, n and
// whether padding pays. Each pass over the matrix costs 1 / (its fraction of the copy
// bandwidth); the fractions are measured ones, from a GPU of 128-byte cache lines: BS
// 010! about 85%, 100! from about 2% for single elements to 79% for super-elements of
// 1 KiB, and a fifth to a third faster again when every super-element is whole cache
// lines, row re-striding 70% for long rows and much less for short ones, the square
// kernel 88%.
#pragma once

#include <cstddef>
#include <cstdint>

#include "planner/device_profile.hpp"
#include "planner/onchip_plan.hpp"
#include "planner/sequence.hpp"
#include "planner/tile_layout.hpp"

namespace ipt::planner {

// Fraction of the copy bandwidth that 100! reaches with super-elements of `bytes`, each of
// them whole cache lines (`line_aligned`) or not.
double soa_efficiency(std::uint64_t super_element_bytes, bool line_aligned = false);

// Whether super-elements of `bytes` are whole lines of the device's cache (never when the
// profile gives no line size): with the matrix at a line boundary, every one of them then
// starts and ends on a line boundary.
bool line_aligned(const DeviceProfile& device, std::uint64_t super_element_bytes);

// soa_efficiency on `device`: whole lines when its line size divides the super-element.
double soa_efficiency(const DeviceProfile& device, std::uint64_t super_element_bytes);

// A 0100! stage's efficiency with super-elements of C elements of elem_size bytes: as
// soa_efficiency, less for 1- and 2-byte elements that cannot move in 4-byte words
// (word_factor).
double soa_stage_efficiency(const DeviceProfile& device, std::uint64_t C, std::size_t elem_size);

// Fraction of the copy bandwidth that the on-chip kernel reaches moving instances of
// rows x cols elements (onchip.cl): what it loses is the tiles' unused rows and columns.
double onchip_efficiency(const OnChipConfig& config, std::uint64_t rows, std::uint64_t cols,
                         std::size_t elem_size);

// Fraction of the copy bandwidth that re-striding rows of `row_bytes` reaches.
double restride_efficiency(std::uint64_t row_bytes);

// Estimated time of the whole plan, padding and unpadding included, in units of the
// time a copy of the caller's matrix takes; its on-chip stages stage tiles in
// `onchip_tiles`.
double estimated_cost(const DeviceProfile& device, const TransposePlan& plan, std::size_t elem_size,
                      TileLayout onchip_tiles = TileLayout::kPadded);

}  // namespace ipt::planner
