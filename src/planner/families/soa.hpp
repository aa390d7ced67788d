// SPDX-License-Identifier: Apache-2.0
// SoA-ASTA (kernels/soa_asta.cl): its launch configuration, chunks, flags and default.
#pragma once

#include <cstddef>
#include <cstdint>

#include "planner/device_profile.hpp"
#include "planner/step.hpp"

namespace ipt::planner {

struct PttwacConfig;

// 100! / 0100! / 1000! by cycle following over super-elements with global flags.
struct SoaConfig {
  std::size_t vw = 32;           // lanes per virtual SIMD unit (1..32, or the work-group)
  std::size_t units = 4;         // units per work-group; work-group = vw * units
  std::size_t regs = 0;          // > 0: register tiling, REGS elements per lane; 0: local
  std::uint64_t chunk = 0;       // elements a unit moves at once (L); 0 = as many as fit
  std::uint64_t max_groups = 0;  // grid-stride cap; 0 = a few groups per compute unit
  std::size_t slice_items = 0;   // items per start slice (32, 16, ..., 1); 0: soa_slice_items
  bool force_index64 = false;
  // With 64-bit indices, the item indices in 64 bits too, even where 32 bits hold them
  // (soa_step).
  bool force_items64 = false;
  // 1- and 2-byte elements moved in the 4-byte words of their destination (kernels/
  // soa_asta.cl, SHIFTED_WORDS): register tiling of a matrix in one buffer only. A
  // register then holds a word, and `regs * vw` words hold a chunk of
  // (regs * vw - 1) * (4 / elem_size) + 1 elements, wherever it starts in a word.
  bool words = false;
};

// Items per start slice of a 100! launch (kernels/soa_asta.cl, "Scheduling"): a whole
// flag word (32) when there are at least as many words as the launch can have units, else
// the largest power of two that still gives every unit a slice. A unit walks its chains
// one dependent step at a time (several dependent global-memory accesses, 1-1.5 us), so a
// stage of few items handed out 32 at a time to few units took 40-67 us for what more
// units do in a few steps.
std::size_t soa_slice_items(std::uint64_t items, std::uint64_t launch_units);

// Largest chunk L a SoA unit can hold: regs * vw (in words: as SoaConfig::words says), or
// what local memory gives each unit.
std::uint64_t soa_chunk_capacity(const SoaConfig& config, std::size_t local_mem_bytes,
                                 std::size_t elem_size);

// The chunk L a launch with `config` moves at once for super-elements of C elements:
// config.chunk, else all of C that a unit holds (may be 0 if a unit holds nothing).
std::uint64_t soa_chunk(const SoaConfig& config, std::size_t local_mem_bytes, std::size_t elem_size,
                        std::uint64_t C);

// Whether a SoA-ASTA launch whose chunks take `chunk_bytes` keeps started marks.
bool soa_marks(std::uint64_t chunk_bytes);

// Scratch of a SoA-ASTA launch over `items` items (I * A * B * chunks per super-element):
// one claim bit per item, the 32-bit start counter after the claim words, and with
// `marks` a started mark per item after the counter.
std::uint64_t soa_flag_bytes(std::uint64_t items, bool marks);

// The same for a launch of 0100! on (I, A, B, C) with `config` (its chunk decides items).
std::uint64_t soa_launch_flag_bytes(const SoaConfig& config, std::size_t local_mem_bytes,
                                    std::size_t elem_size, std::uint64_t I, std::uint64_t A,
                                    std::uint64_t B, std::uint64_t C);

// The 0100! launch that PTTWAC with global flags runs (010! on (A, B, C) as 0100! on
// (A, B, C, 1)).
SoaConfig pttwac_global_soa(const PttwacConfig& config);
// The default for super-elements of C elements of elem_size bytes (a site's elements or
// the words they move in) at `site`, of which it reads two things: whether the matrix is
// split between two buffers (1- and 2-byte elements then move one by one) and whether
// its indices take 64 bits (a matrix of 2^31 elements or more, whose lanes hold more).
SoaConfig choose_soa(const DeviceProfile& device, std::uint64_t C, std::size_t elem_size,
                     const StepSite& site = {});

// Its cost curve. Fraction of the copy bandwidth that 100! reaches with super-elements of
// `bytes`, each of them whole cache lines (`line_aligned`) or not: from about 2% for
// single elements to 79% for super-elements of 1 KiB, measured on a GPU of 128-byte
// cache lines, and a fifth to a third faster again when every super-element is whole
// lines.
double soa_efficiency(std::uint64_t super_element_bytes, bool line_aligned = false);

// Whether super-elements of `bytes` are whole lines of the device's cache (never when the
// profile gives no line size): with the matrix at a line boundary, every one of them then
// starts and ends on a line boundary.
bool line_aligned(const DeviceProfile& device, std::uint64_t super_element_bytes);

// soa_efficiency on `device`: whole lines when its line size divides the super-element.
double soa_efficiency(const DeviceProfile& device, std::uint64_t super_element_bytes);

// A 0100! stage's efficiency with super-elements of C elements of elem_size bytes: as
// soa_efficiency, less for 1- and 2-byte elements that cannot move in 4-byte words, more
// for 4-byte ones that move in 8- or 16-byte words (word_factor).
double soa_stage_efficiency(const DeviceProfile& device, std::uint64_t C, std::size_t elem_size);

// Its step builder (planner/families/soa.cpp). A region left with Buffer::kNone is placed
// at the start of the call scratch, as a kernel run alone needs.
// `word` > 1: the super-elements move as words of that many elements (word_factor; the
// config is the words' own), the move and extents still in elements.
Step soa_step(const StepSite& site, std::uint64_t I, std::uint64_t A, std::uint64_t B,
              std::uint64_t C, const SoaConfig& config, Region flags = {}, std::uint64_t word = 1);

}  // namespace ipt::planner
