// SPDX-License-Identifier: Apache-2.0
// Launch configurations of the elementary transpositions (kernels/bs.cl, pttwac.cl,
// soa_asta.cl) and the defaults chosen from a DeviceProfile. Pure C++: the runtime
// launchers take these structs as they are, so tests and benchmarks can force any
// variant.
#pragma once

#include <cstddef>
#include <cstdint>

#include "planner/device_profile.hpp"

namespace ipt::planner {

// 010! (A, B, C) -> (A, C, B) by barrier synchronisation.
struct BsConfig {
  std::size_t work_group = 256;       // work-items per group
  std::uint64_t tiles_per_group = 1;  // > 1: the small-tile ("virtual SIMD units") variant
  std::uint64_t max_groups = 0;       // grid-stride cap; 0 = one group per chunk of tiles
  bool force_index64 = false;         // 64-bit indices even where 32 bits would do
  // 1- and 2-byte elements in 4-byte words where the tiles and the matrix allow
  // (kernels/bs.cl; bs_step decides).
  bool words = true;
};

// 010! by cycle following with local-memory flags.
struct PttwacConfig {
  std::size_t work_group = 256;
  std::size_t spreading = 1;     // R in {1, 2, 4, 8, 16, 32} (PPoPP eq. 3)
  bool padding = true;           // one unused flag word after every 32 (PPoPP §5.1.2)
  bool global_flags = false;     // run as 0100! on (A, B, C, 1) with flags in global memory
  std::uint64_t max_groups = 0;  // grid-stride cap; 0 = one group per tile
  bool force_index64 = false;
};

// 100! / 0100! / 1000! by cycle following over super-elements with global flags.
struct SoaConfig {
  std::size_t vw = 32;           // lanes per virtual SIMD unit (1..32, or the work-group)
  std::size_t units = 4;         // units per work-group; work-group = vw * units
  std::size_t regs = 0;          // > 0: register tiling, REGS elements per lane; 0: local
  std::uint64_t chunk = 0;       // elements a unit moves at once (L); 0 = as many as fit
  std::uint64_t max_groups = 0;  // grid-stride cap; 0 = a few groups per compute unit
  std::size_t slice_items = 0;   // items per start slice (32, 16, ..., 1); 0: soa_slice_items
  bool force_index64 = false;
};

// Items per start slice of a 100! launch (kernels/soa_asta.cl, "Scheduling"): a whole
// flag word (32) when there are at least as many words as the launch can have units, else
// the largest power of two that still gives every unit a slice. A unit walks its chains
// one dependent step at a time (several dependent global-memory accesses, 1-1.5 us), so a
// stage of few items handed out 32 at a time to few units took 40-67 us for what more
// units do in a few steps.
std::size_t soa_slice_items(std::uint64_t items, std::uint64_t launch_units);

// Row re-striding (padding / unpadding, kernels/restride.cl): a chunk of
// work_group * per_item elements per work-group.
struct RestrideConfig {
  std::size_t work_group = 256;
  std::size_t per_item = 8;
  bool force_index64 = false;
  // The widest word (bytes) in which rows of narrower elements move (word_factor).
  std::size_t word_bytes = 4;
};

// Defaults: 256 work-items (the compiled-kernel limit of NVIDIA's driver:
// kMaxDefaultWorkGroup), each holding 16 words of the chunk in registers (16 floats, 8
// doubles, 64 bytes), 32 for a matrix of more than 2^31 `elements` (64-bit indices), at
// most kMaxRestrideItems elements and kMaxRestrideBytes. Measured with ipt-kernel-bench
// stages, 8 words per work-item closed up 15095 x 18501 floats at 75% of copy and
// 100003 x 43003 at 45%; 16 words at 85% and 54%; 32 at 79% and 57%. Chunks are at least
// 16 KiB: the flag per chunk costs at most 0.025% of the matrix.
inline constexpr std::size_t kMaxRestrideItems = 64, kMaxRestrideBytes = 256;
RestrideConfig choose_restride(const DeviceProfile& device, std::size_t elem_size,
                               std::uint64_t elements = 0);

// Elements one work-group's local memory holds for BS (tiles plus the PAD slots).
std::uint64_t bs_local_elements(std::uint64_t tile_elements, std::uint64_t tiles_per_group);

// 32-bit flag words PTTWAC needs for a tile of n positions (n >= 1).
// Local memory a kernel's flags may take: the device's size less 1 KiB (a quarter of it
// on tiny devices). A driver may need some local memory of its own: on NVIDIA's, a
// PTTWAC launch asking for all 49152 bytes of a 48 KiB device was refused ("needs 49153
// bytes").
std::size_t usable_local_bytes(const DeviceProfile& device);

std::uint64_t pttwac_flag_words(std::uint64_t n, std::size_t spreading, bool padding);

// Largest chunk L a SoA unit can hold: regs * vw, or what local memory gives each unit.
std::uint64_t soa_chunk_capacity(const SoaConfig& config, std::size_t local_mem_bytes,
                                 std::size_t elem_size);

// The chunk L a launch with `config` moves at once for super-elements of C elements:
// config.chunk, else all of C that a unit holds (may be 0 if a unit holds nothing).
std::uint64_t soa_chunk(const SoaConfig& config, std::size_t local_mem_bytes, std::size_t elem_size,
                        std::uint64_t C);

// Scratch of a SoA-ASTA launch over `items` items (I * A * B * chunks per super-element):
// one flag bit per item and the 32-bit start counter after the flag words.
std::uint64_t soa_flag_bytes(std::uint64_t items);

// Narrow elements in wider words: how many elem_size-byte elements make the word in which
// a kernel moves a run of `run` contiguous elements that starts at element `offset` of a
// matrix split at element `split` (0: none): the widest word of at most
// device.word_bytes that the run, the offset and the split all fill whole; 1 for
// elements of word_bytes or more.
std::uint64_t word_factor(const DeviceProfile& device, std::size_t elem_size, std::uint64_t run,
                          std::uint64_t offset = 0, std::uint64_t split = 0);
std::uint64_t word_factor(std::size_t word_bytes, std::size_t elem_size, std::uint64_t run,
                          std::uint64_t offset = 0, std::uint64_t split = 0);

// The same for a launch of 0100! on (I, A, B, C) with `config` (its chunk decides items).
std::uint64_t soa_launch_flag_bytes(const SoaConfig& config, std::size_t local_mem_bytes,
                                    std::size_t elem_size, std::uint64_t I, std::uint64_t A,
                                    std::uint64_t B, std::uint64_t C);

// The 0100! launch that PTTWAC with global flags runs (010! on (A, B, C) as 0100! on
// (A, B, C, 1)), and the zeroed flag bytes it needs for A tiles of B x C (0: local flags).
SoaConfig pttwac_global_soa(const PttwacConfig& config);
std::uint64_t pttwac_launch_flag_bytes(const PttwacConfig& config, std::size_t local_mem_bytes,
                                       std::size_t elem_size, std::uint64_t A, std::uint64_t B,
                                       std::uint64_t C);

// Scratch of a restride launch over `elements` elements: its id counter and one 32-bit
// "read" flag per chunk of work_group * per_item elements.
std::uint64_t restride_scratch_bytes(const RestrideConfig& config, std::uint64_t elements);

// Whether a BS tile of B x C elements fits the local memory a kernel may use
// (usable_local_bytes): the one test of "fits a work-group" for planning and launching.
bool bs_fits(const DeviceProfile& device, std::uint64_t B, std::uint64_t C, std::size_t elem_size);
// Defaults for a B x C tile (BS; it must fit: bs_fits), for PTTWAC, or for super-elements
// of C elements.
BsConfig choose_bs(const DeviceProfile& device, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                   std::size_t elem_size);
PttwacConfig choose_pttwac(const DeviceProfile& device, std::uint64_t B, std::uint64_t C);
SoaConfig choose_soa(const DeviceProfile& device, std::uint64_t C, std::size_t elem_size);

}  // namespace ipt::planner
