// SPDX-License-Identifier: Apache-2.0
// Restride (kernels/restride.cl): its launch configuration, scratch and default.
#pragma once

#include <cstddef>
#include <cstdint>

#include "planner/device_profile.hpp"
#include "planner/step.hpp"

namespace ipt::planner {

// Row re-striding (padding / unpadding, kernels/restride.cl): a chunk of
// work_group * per_item elements per work-group.
struct RestrideConfig {
  std::size_t work_group = 256;
  std::size_t per_item = 8;
  // Elements per work-item of a spread (a stride growing: a pad); 0: per_item.
  std::size_t spread_per_item = 0;
  // Work-items per group of a spread; 0: work_group.
  std::size_t spread_work_group = 0;
  bool force_index64 = false;
  // With 64-bit indices, each element's offset from its chunk's first row in 64 bits too,
  // even where 32 bits hold it (restride_step).
  bool force_offsets64 = false;
  // The widest word (bytes) in which rows of narrower elements move (word_factor).
  std::size_t word_bytes = 4;
};

// Defaults: 256 work-items (the compiled-kernel limit of NVIDIA's driver:
// kMaxDefaultWorkGroup), each holding 16 elements of the chunk in registers, or 16
// 4-byte words of narrower ones (64 bytes, 128 for doubles), at most kMaxRestrideItems
// elements and kMaxRestrideBytes; spreads of a matrix of more than 2^31 `elements`
// (64-bit indices) twice that, in groups of 64 work-items. Measured with ipt-kernel-bench
// stages: the spread of 90001 x 100003 floats to rows of 100032 ran at 90% of copy in
// groups of 64 holding 32 elements each, 89% in groups of 32, 86% of 128, 78% of 256 (16
// each in groups of 64: 84%, 64 each: 62%), of 40009 x 60013 doubles at 100% against
// 84% in groups of 256, of 40009 x 90001 bytes at 31% against 20%, of 33331 x 100003
// 2-byte elements at 37% against 36%; with 32-bit indices groups of 256 holding 16 were
// best (20011 x 90001 floats to rows of 90112: 99.6% against 98.2% in groups of 128, 91%
// with 32 each). Closing up 100160 x 43003 floats (16-byte stores) ran at 82% with 16,
// 77% with 32, in groups of 64 to 256 alike, 46351 x 46351 doubles to rows of 46349 at
// 83% with 16, 79% with 32 (2-byte elements: 75% either way).
// Chunks are at least 4 KiB (a 64-bit spread of 1-byte elements; 16 KiB with 32-bit
// indices): the flag per chunk costs at most 0.1% of the matrix.
inline constexpr std::size_t kMaxRestrideItems = 64, kMaxRestrideBytes = 256;
RestrideConfig choose_restride(const DeviceProfile& device, std::size_t elem_size,
                               std::uint64_t elements = 0);

// Scratch of a restride launch over `elements` elements, either way: its id counter and
// one 32-bit "read" flag per chunk of the smaller of a spread's and a close-up's.
std::uint64_t restride_scratch_bytes(const RestrideConfig& config, std::uint64_t elements);

// Its cost curve: the fraction of the copy bandwidth that re-striding rows of `row_bytes`
// reaches (90% for long rows, much less for short ones), spreading them (`spread`: a
// pad) or closing them up; pads of 1- and 2-byte elements reach about half of that.
double restride_efficiency(std::uint64_t row_bytes, std::size_t elem_size, bool spread);

// Its step builder (planner/families/restride.cpp). A region left with Buffer::kNone is placed
// at the start of the call scratch, as a kernel run alone needs.
Step restride_step(const StepSite& site, std::uint64_t rows, std::uint64_t len, std::uint64_t s_in,
                   std::uint64_t s_out, const RestrideConfig& config, Region scratch = {});

}  // namespace ipt::planner
