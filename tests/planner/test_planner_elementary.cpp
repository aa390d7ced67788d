// SPDX-License-Identifier: Apache-2.0
// Default configurations of the elementary transpositions (planner/families/*.hpp)
// as a 48 KiB / 1024 / 32-wide (NVIDIA-like) and a 32 KiB / 256 / 64-wide (AMD-like)
// device would get them, and the index width of every family's step. No device needed.
#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <stdexcept>
#include <string>

#include "helpers/test_profiles.hpp"
#include "planner/families/bs.hpp"
#include "planner/families/onchip.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/families/square.hpp"
#include "planner/launch_plan.hpp"

using namespace ipt::planner;

namespace {

DeviceProfile nvidia_like() { return DeviceProfile{}; }

DeviceProfile amd_like() {
  DeviceProfile profile;
  profile.local_mem_bytes = 32 * 1024;
  profile.max_work_group_size = 256;
  profile.simd_width = 64;
  return profile;
}

}  // namespace

TEST_CASE("BS defaults: several tiles per group below 512 elements, always within local memory",
          "[planner][bs]") {
  for (const auto& profile : {nvidia_like(), amd_like()})
    for (std::size_t elem_size : {1, 4, 16})
      for (std::uint64_t B : {1, 2, 3, 8, 15, 16, 40, 64, 100})
        for (std::uint64_t C : {1, 2, 5, 16, 33, 64, 100}) {
          if (!bs_fits(profile, B, C, elem_size)) continue;
          const auto config = choose_bs(profile, 100000, B, C, elem_size);
          INFO("local " << profile.local_mem_bytes << " elem " << elem_size << " tile " << B << "x"
                        << C);
          CHECK(config.work_group <= profile.max_work_group_size);
          CHECK(bs_local_elements(B * C, config.tiles_per_group) * elem_size <=
                profile.local_mem_bytes);
          if (B * C >= 512) CHECK(config.tiles_per_group == 1);
          if (B * C == 256 && elem_size <= 4) CHECK(config.tiles_per_group == 4);
          if (B * C <= 4 && elem_size <= 4) CHECK(config.tiles_per_group >= 64);
        }
  CHECK(choose_bs(nvidia_like(), 3, 2, 2, 4).tiles_per_group == 3);  // never more than A
  CHECK_FALSE(bs_fits(nvidia_like(), 111, 111, 4));  // 12321 floats + padding > 48 KiB
  CHECK(bs_fits(nvidia_like(), 100, 100, 4));
  // Tiles whose bytes pass 2^64 never fit: 16 x (n + n / 32) bytes once wrapped to 528
  // for this n (found by tests/fuzz/fuzz_planner.cpp under UBSan's unsigned-integer-
  // overflow check).
  CHECK_FALSE(bs_fits(nvidia_like(), 1, 1117984489315730433ull, 16));
  CHECK_FALSE(bs_fits(nvidia_like(), 17179869181ull, 536870912ull, 2));
}

TEST_CASE("PTTWAC defaults: widest spreading within half the local memory, then global flags",
          "[planner][pttwac]") {
  CHECK(choose_pttwac(nvidia_like(), 100, 100).spreading == 16);
  CHECK(choose_pttwac(nvidia_like(), 600, 600).spreading == 1);  // 11 602 words: 45 KiB
  CHECK_FALSE(choose_pttwac(nvidia_like(), 600, 600).global_flags);
  CHECK(choose_pttwac(nvidia_like(), 600, 600).padding);
  CHECK(choose_pttwac(nvidia_like(), 1000, 1000).global_flags);  // 32 227 words > 12 288
  CHECK(choose_pttwac(amd_like(), 1000, 1000).global_flags);     // 31 250 words > 8192
  CHECK(choose_pttwac(amd_like(), 100, 100).work_group <= 256);
  CHECK(pttwac_flag_words(1, 1, true) == 1);
  CHECK(pttwac_flag_words(32, 1, false) == 1);
  CHECK(pttwac_flag_words(33, 1, false) == 2);
  CHECK(pttwac_flag_words(32, 32, false) == 32);
  CHECK(pttwac_flag_words(1024 * 32, 1, true) == 1023 + 31 + 1);  // last word 1023 -> 1054
}

TEST_CASE("SoA defaults: register tiling, 4 lanes up to the SIMD width by C, chunks beyond",
          "[planner][soa]") {
  const auto nv = nvidia_like();
  CHECK(choose_soa(nv, 1, 4).vw == 4);  // never narrower than 4 lanes
  CHECK(choose_soa(nv, 1, 4).regs == 1);
  CHECK(choose_soa(nv, 24, 4).vw == 4);    // 6 registers of f32 per lane
  CHECK(choose_soa(nv, 24, 4).regs == 8);  // 6 rounded up to a power of two
  CHECK(choose_soa(nv, 24, 4).chunk == 24);
  CHECK(choose_soa(nv, 32, 4).vw == 8);
  CHECK(choose_soa(nv, 32, 4).regs == 4);
  CHECK(choose_soa(nv, 100, 4).vw == 32);
  CHECK(choose_soa(nv, 100, 4).regs == 4);  // unaligned C: the last register partial
  CHECK(choose_soa(nv, 100, 4).chunk == 100);
  CHECK(choose_soa(nv, 100, 8).vw == 32);  // f64: 3 registers per lane
  CHECK(choose_soa(nv, 48, 8).vw == 16);
  CHECK(choose_soa(nv, 48, 8).regs == 4);  // 3, rounded up
  CHECK(choose_soa(nv, 48, 8).chunk == 48);
  CHECK(choose_soa(nv, 2560, 4).vw == 32);  // wide C: chunks of 16 registers per lane
  CHECK(choose_soa(nv, 2560, 4).regs == 16);
  CHECK(choose_soa(nv, 2560, 4).chunk == 512);
  CHECK(choose_soa(nv, 2560, 8).chunk == 256);
  CHECK(choose_soa(nv, 539, 4).chunk == 288);  // equal chunks: 288 + 251, not 512 + 27
  CHECK(choose_soa(nv, 539, 4).regs == 16);
  CHECK(choose_soa(nv, 2560, 4).units == 2);  // work-groups of 64
  CHECK(choose_soa(nv, 8, 4).units == 16);
  CHECK(choose_soa(amd_like(), 512, 4).vw == 64);  // wavefront of 64
  CHECK(choose_soa(amd_like(), 512, 4).regs == 8);
  // With 64-bit indices (matrices of 2^31 elements and more), 48 bytes per lane instead of
  // 24 and at least 8 lanes: units half as wide, twice as many per group, where 8 lanes
  // hold the super-element in at most 48 bytes each.
  StepSite wide;
  wide.index64 = true;
  CHECK(choose_soa(nv, 64, 4).vw == 16);
  CHECK(choose_soa(nv, 64, 4, wide).vw == 8);  // 8 registers of f32 per lane
  CHECK(choose_soa(nv, 64, 4, wide).regs == 8);
  CHECK(choose_soa(nv, 64, 4, wide).units == 8);
  CHECK(choose_soa(nv, 16, 16).vw == 16);  // 64 floats in 16-byte words
  CHECK(choose_soa(nv, 16, 16, wide).vw == 8);
  CHECK(choose_soa(nv, 16, 16, wide).regs == 2);
  CHECK(choose_soa(nv, 100, 4, wide).vw == 16);       // 7 registers of 12
  CHECK(choose_soa(nv, 2560, 4, wide).chunk == 512);  // chunks as before
  CHECK(choose_soa(nv, 1000, 1, wide).words);
  CHECK(choose_soa(nv, 30, 4).vw == 8);
  CHECK(choose_soa(nv, 30, 4, wide).vw == 8);  // not 4 lanes of 8 registers
  CHECK(choose_soa(nv, 30, 4, wide).regs == 4);
  CHECK(choose_soa(nv, 1, 4, wide).vw == 8);
  for (const auto& config : {choose_soa(nv, 7, 4), choose_soa(amd_like(), 1000, 2)})
    CHECK(config.regs > 0);
  for (const auto& profile : {nv, amd_like()})
    for (std::size_t elem_size : {1, 2, 4, 8, 16})
      for (std::uint64_t C : {1, 2, 3, 7, 24, 32, 33, 96, 100, 192, 1000, 2560, 100000})
        for (bool index64 : {false, true}) {
          StepSite site;
          site.index64 = index64;
          const auto config = choose_soa(profile, C, elem_size, site);
          INFO("simd " << profile.simd_width << " elem " << elem_size << " C " << C << " index64 "
                       << index64);
          CHECK(config.vw * config.units <= profile.max_work_group_size);
          CHECK(config.chunk >= 1);
          CHECK(config.chunk <= C);
          CHECK(config.chunk <= soa_chunk_capacity(config, profile.local_mem_bytes, elem_size));
          CHECK(config.regs > 0);
          CHECK(config.regs <= 16);
          CHECK(config.vw >= std::min<std::size_t>(index64 ? 8 : 4, profile.simd_width));
          // 1- and 2-byte elements in words: a chunk takes at most (chunk + 2 * per_word - 2)
          // / per_word of them, wherever it starts in a word.
          CHECK(config.words == (elem_size < 4));
          const std::uint64_t per_word = config.words ? 4 / elem_size : 1;
          const std::uint64_t held = (config.chunk + 2 * per_word - 2) / per_word;
          // A power of two of registers, the fewest that hold the chunk.
          CHECK((config.regs & (config.regs - 1)) == 0);
          CHECK(held <= config.regs * config.vw);
          CHECK((config.regs == 1 || config.regs / 2 * config.vw < held));
          // Chunks of equal length, give or take a lane's register each.
          const std::uint64_t chunks = (C + config.chunk - 1) / config.chunk;
          CHECK(chunks * config.chunk - C < chunks * config.vw);
          // A matrix split between two buffers moves its elements one by one.
          site.split = 1;
          const auto split = choose_soa(profile, C, elem_size, site);
          CHECK_FALSE(split.words);
          CHECK(split.chunk <= split.regs * split.vw);
        }
  // Words are refused where the kernel has none: a split matrix, local tiling.
  auto words = choose_soa(nv, 1000, 1);
  StepSite bytes;
  bytes.elem_size = 1;
  CHECK_NOTHROW(soa_step(bytes, 1, 1000, 999, 1000, words));
  StepSite split = bytes;
  split.split = 500000;
  CHECK_THROWS_AS(soa_step(split, 1, 1000, 999, 1000, words), std::logic_error);
  words.regs = 0;
  CHECK_THROWS_AS(soa_step(bytes, 1, 1000, 999, 1000, words), std::logic_error);
}

TEST_CASE("SoA start slices: whole words when units are fewer, down to one item each",
          "[planner][soa]") {
  using ipt::planner::soa_slice_items;
  CHECK(soa_slice_items(1350000, 16896) == 32);  // 42188 words for 16896 units
  CHECK(soa_slice_items(66, 131072) == 1);       // a tiny stage: one item per unit
  CHECK(soa_slice_items(15090, 15360) == 1);     // 472 words, 15360 units
  CHECK(soa_slice_items(96147, 16896) == 8);     // 3005 words: 12020 slices of 8; of 4, 24040
  for (std::uint64_t items : {1, 31, 32, 33, 1000, 65536, 1000003})
    for (std::uint64_t units : {1, 2, 7, 64, 1000, 100000}) {
      const std::size_t slice = soa_slice_items(items, units);
      const std::uint64_t words = (items + 31) / 32;
      INFO(items << " items, " << units << " units: slices of " << slice);
      CHECK((slice & (slice - 1)) == 0);
      CHECK(slice >= 1);
      CHECK(slice <= 32);
      // Every unit has a slice unless slices are whole words already ...
      if (slice < 32) CHECK(words * (32 / slice) <= units);
      // ... and the next smaller slice would leave units without one.
      if (slice > 1) CHECK(words * (64 / slice) > units);
    }
}

TEST_CASE(
    "restride defaults: spreads past 2^31 elements take twice the words in groups of 64, "
    "flags for both",
    "[planner][restride]") {
  // A pad's spread of more than 2^31 elements ran faster with 32 words per work-item in
  // groups of 64, the unpad's close-up with 16 in groups of any size (families/restride.hpp);
  // a pad's undo closes up with the pad's flags, so they count the smaller chunks.
  for (const auto& profile : {nvidia_like(), amd_like()})
    for (std::size_t elem_size : {1, 2, 4, 8, 16})
      for (const std::uint64_t elements : {std::uint64_t{1} << 24, std::uint64_t{3} << 30}) {
        INFO(elem_size << "-byte elements, " << elements << " elements");
        const RestrideConfig config = choose_restride(profile, elem_size, elements);
        const bool large = elements > (std::uint64_t{1} << 31);
        const std::size_t words = 16 * std::max<std::size_t>(1, 4 / elem_size);
        const std::size_t close =
            std::min<std::size_t>({words, kMaxRestrideItems, kMaxRestrideBytes / elem_size});
        const std::size_t spread = std::min<std::size_t>(
            {(large ? 2 : 1) * words, kMaxRestrideItems, kMaxRestrideBytes / elem_size});
        StepSite site;
        site.elem_size = elem_size;
        site.index64 = large;
        const auto option = [](const Step& step, const std::string& name) {
          const auto at = step.options.find(" -D" + name + "=");
          REQUIRE(at != std::string::npos);
          return std::stoull(step.options.substr(at + name.size() + 4));
        };
        // Rows of 100 and 101 elements: no wider words, one element per unit.
        const Step pad = restride_step(site, 1000, 100, 100, 101, config);
        const Step unpad = restride_step(site, 1000, 100, 101, 100, config);
        CHECK(option(pad, "PER_ITEM") == spread);
        CHECK(option(unpad, "PER_ITEM") == close);
        const std::size_t group = std::min<std::size_t>(256, profile.max_work_group_size);
        const std::size_t spread_group = large ? std::min<std::size_t>(group, 64) : group;
        CHECK(option(pad, "WG") == spread_group);
        CHECK(option(unpad, "WG") == group);
        CHECK(pad.work_group() == spread_group);
        CHECK(pad.global[0] % spread_group == 0);
        const std::size_t chunk = std::min(spread_group * spread, group * close);
        CHECK(restride_scratch_bytes(config, elements) == ((elements + chunk - 1) / chunk + 1) * 4);
      }
}

TEST_CASE("every family's step takes 64-bit indices once offset + extent reaches its bound",
          "[planner]") {
  // One rule (needs_index64) for every kernel family: a step whose indices reach up to
  // offset + extent is 32-bit below 2^31 (2^32 for the square kernel, which strides over
  // no grid), 64-bit from there.
  const auto onchip = choose_onchip(ipt::test::nvidia_like(), 4);
  RestrideConfig restride;
  struct Case {
    const char* name;
    std::uint64_t extent;
    std::function<Step(const StepSite&)> step;
  };
  const Case families[] = {
      {"BS", 300 * 16 * 9, [](const StepSite& s) { return bs_step(s, 300, 16, 9, BsConfig{}); }},
      {"PTTWAC", 3 * 300 * 301,
       [](const StepSite& s) { return pttwac_step(s, 3, 300, 301, PttwacConfig{}); }},
      {"SoA-ASTA", 2 * 7 * 5 * 3,
       [](const StepSite& s) { return soa_step(s, 2, 7, 5, 3, SoaConfig{}); }},
      {"on chip", 5 * 40 * 33,
       [&onchip](const StepSite& s) { return onchip_step(s, 5, 40, 33, onchip); }},
      {"restride", 100 * 38,
       [&restride](const StepSite& s) { return restride_step(s, 100, 37, 37, 38, restride); }},
      {"copy", 40 + 64,
       [](const StepSite& s) {
         return copy_step(s, Buffer::kMatrix, 40, Buffer::kScratch, 0, 64);
       }},
      {"square", 100 * 100,
       [](const StepSite& s) { return square_step(s, 100, plan_square(nvidia_like(), 100, 4)); }},
  };
  for (const Case& family : families) {
    INFO(family.name);
    const std::uint64_t bound = std::uint64_t{1}
                                << (std::string(family.name) == "square" ? 32 : 31);
    StepSite site;
    site.elem_size = 4;
    site.offset = bound - family.extent - 1;
    const Step below = family.step(site);
    CHECK_FALSE(below.index64);
    CHECK(below.options.find("-DIPT_INDEX_64=0") != std::string::npos);
    site.offset = bound - family.extent;
    const Step at = family.step(site);
    CHECK(at.index64);
    CHECK(at.options.find("-DIPT_INDEX_64=1") != std::string::npos);
    site.offset = 0;
    site.index64 = true;
    CHECK(family.step(site).index64);
  }
}

TEST_CASE("a 100! with 64-bit indices counts its items in 32 bits up to 2^32 - 32 items",
          "[planner]") {
  // A start is found from its flag word, up to 31 items past the last: the items and those
  // counts must stay below 2^32.
  const auto items32 = [](const Step& step) {
    return step.options.find("-DIPT_ITEMS32=1") != std::string::npos;
  };
  StepSite wide;
  wide.elem_size = 4;
  wide.index64 = true;
  const SoaConfig config = choose_soa(nvidia_like(), 1, 4);
  const std::uint64_t half = (std::uint64_t{1} << 31) - 16;  // 2 * half = 2^32 - 32 items
  const Step below = soa_step(wide, 1, half, 2, 1, config);
  CHECK(below.index64);
  CHECK(items32(below));
  CHECK(below.args[2].kind == KernelArg::Kind::kUint);   // A, B, K and the items
  CHECK(below.args[4].kind == KernelArg::Kind::kIndex);  // C
  const Step at = soa_step(wide, 1, half + 1, 2, 1, config);
  CHECK(at.index64);
  CHECK_FALSE(items32(at));
  CHECK(at.args[2].kind == KernelArg::Kind::kIndex);
  SoaConfig forced = config;
  forced.force_items64 = true;
  CHECK_FALSE(items32(soa_step(wide, 1, 5, 3, 1, forced)));
  // 32-bit indices: the items too, without the option.
  StepSite narrow;
  narrow.elem_size = 4;
  const Step small = soa_step(narrow, 1, 5, 3, 1, config);
  CHECK_FALSE(small.index64);
  CHECK_FALSE(items32(small));
}

TEST_CASE("on-chip steps hold tiles in local memory only where their rounds are fewer for it",
          "[planner][onchip]") {
  const DeviceProfile device = ipt::test::nvidia_like();  // room for held tiles
  const OnChipConfig config = choose_onchip(device, 4);
  const OnChipTile tile;  // 32 x 32
  const std::uint64_t in_registers = config.groups * onchip_register_tiles(config, tile);
  const std::uint64_t on_chip = config.groups * onchip_group_tiles(config, tile);
  REQUIRE(on_chip > in_registers);
  StepSite site;
  site.elem_size = 4;
  const auto step = [&](std::uint64_t instances) {
    return onchip_step(site, instances, 32, 32, config);
  };
  const auto held = [](const Step& s) { return s.options.find("-DHELD=") != std::string::npos; };
  const auto per_round = [](const Step& s) { return s.args[5].value; };
  // A round the registers hold: no held tiles (and a whole small matrix likewise).
  CHECK_FALSE(held(step(in_registers)));
  CHECK(per_round(step(in_registers)) == in_registers);
  CHECK_FALSE(held(onchip_step(site, 1, 1707, 1032, config)));
  // One instance more: one round with them, two without.
  CHECK(held(step(in_registers + 1)));
  CHECK(per_round(step(in_registers + 1)) == in_registers + 1);
  // Two rounds either way (more than one round of held tiles, no more than two of
  // registers): none.
  REQUIRE(on_chip < 2 * in_registers);
  CHECK_FALSE(held(step(2 * in_registers)));
  CHECK(per_round(step(2 * in_registers)) == in_registers);
  // Three rounds without, two with: held.
  CHECK(held(step(2 * in_registers + 1)));
  CHECK(per_round(step(2 * in_registers + 1)) == on_chip);
}
