// SPDX-License-Identifier: Apache-2.0
// IPT_OVERRIDES: parsing, device limits that can only be lowered, forced square tiles, and
// the tests' way of steering them without the environment.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "helpers/fault_injection.hpp"
#include "helpers/test_support.hpp"
#include "planner/families/onchip.hpp"
#include "runtime/environment.hpp"
#include "runtime/error.hpp"
#include "runtime/override_keys.hpp"

using ipt::runtime::apply_overrides;
using ipt::runtime::parse_overrides;

TEST_CASE("IPT_OVERRIDES parses every documented key", "[overrides]") {
  const auto o = parse_overrides(
      "local_mem=32768,max_wg=256,simd=64,compute_units=4,fp64=0,line=128,square.tile=16,"
      "square.wg_rows=2");
  CHECK(*o.local_mem == 32768);
  CHECK(*o.max_wg == 256);
  CHECK(*o.simd == 64);
  CHECK(*o.compute_units == 4);
  CHECK(*o.fp64 == false);
  CHECK(*o.line == 128);
  CHECK(o.plan.square_tile == 16);
  CHECK(o.plan.square_wg_rows == 2);
  CHECK_FALSE(parse_overrides("").local_mem.has_value());
}

TEST_CASE("IPT_OVERRIDES lays tiles out padded or swizzled, per family or both",
          "[overrides][tile_layout]") {
  using ipt::planner::TileLayout;
  const auto none = parse_overrides("");
  CHECK(none.plan.square_tiles == TileLayout::kPadded);
  CHECK(none.plan.request.onchip_tiles == TileLayout::kPadded);
  const auto square = parse_overrides("square.tiles=swizzled");
  CHECK(square.plan.square_tiles == TileLayout::kSwizzled);
  CHECK(square.plan.request.onchip_tiles == TileLayout::kPadded);
  const auto onchip = parse_overrides("onchip.tiles=swizzled");
  CHECK(onchip.plan.square_tiles == TileLayout::kPadded);
  CHECK(onchip.plan.request.onchip_tiles == TileLayout::kSwizzled);
  const auto both = parse_overrides("tiles=swizzled,square.tiles=padded");
  CHECK(both.plan.square_tiles == TileLayout::kPadded);
  CHECK(both.plan.request.onchip_tiles == TileLayout::kSwizzled);
}

TEST_CASE("IPT_OVERRIDES rejects unknown keys and bad numbers", "[overrides]") {
  for (const char* text :
       {"local_memory=1", "simd=", "simd=abc", "simd=-4", "simd=4x", "=3", "tiles=xor",
        "square.tiles=", "onchip.tiles=Swizzled", "onchip.groups=0", "onchip.groups=3"}) {
    INFO(text);
    try {
      parse_overrides(text);
      FAIL("accepted");
    } catch (const ipt::Error& e) {
      CHECK(e.status() == IPT_INVALID_VALUE);
    }
  }
}

TEST_CASE("the guide lists every IPT_OVERRIDES key as the parser knows it", "[overrides]") {
  // docs/environment.md's two tables of keys, row by row, against the parser's table.
  std::ifstream guide(std::string(IPT_SOURCE_KERNEL_DIR) + "/../docs/environment.md");
  REQUIRE(guide);
  std::vector<std::string> documented;
  bool in_section = false;
  for (std::string line; std::getline(guide, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## IPT_OVERRIDES";
    if (in_section && line.rfind("| `", 0) == 0) documented.push_back(line);
  }
  std::vector<std::string> expected;
  for (const bool device : {true, false})
    for (const auto& key : ipt::runtime::override_keys())
      if (key.device == device)
        expected.push_back(std::string("| `") + key.name + "` | " + key.values + " | " +
                           key.forces + " |");
  CHECK(documented == expected);
  // And every key parses (with the first value its row names, or 1).
  for (const auto& key : ipt::runtime::override_keys()) {
    INFO(key.name);
    std::string value = key.values;
    const auto tick = value.find('`');
    value = tick == std::string::npos
                ? "1"
                : value.substr(tick + 1, value.find('`', tick + 1) - tick - 1);
    CHECK_NOTHROW(parse_overrides(std::string(key.name) + "=" + value));
  }
}

TEST_CASE("an unknown key's message lists every key", "[overrides]") {
  try {
    parse_overrides("no_such_key=1");
    FAIL("accepted");
  } catch (const ipt::Error& e) {
    const std::string message = e.what();
    const auto list = message.find("(known: ");
    REQUIRE(list != std::string::npos);
    const std::string known = ", " + message.substr(list + 8);  // ", a, b, ..., z)"
    for (const auto& key : ipt::runtime::override_keys()) {
      INFO(key.name);
      CHECK(known.find(", " + std::string(key.name) +
                       (std::string(key.name) == "tiles" ? ")" : ",")) != std::string::npos);
    }
  }
}

TEST_CASE("each IPT_OVERRIDES key sets its own field", "[overrides]") {
  using ipt::planner::OnChip;
  using ipt::planner::Padding;
  using ipt::planner::Sequence;
  const auto o = parse_overrides(
      "max_alloc=1000,resident_groups=1,word=2,sequence=3.2,m=5,n=7,padding=off,"
      "padded_rows=11,padded_cols=13,onchip=off,onchip.groups=1,onchip.abort=1");
  CHECK(*o.max_alloc == 1000);
  CHECK(*o.resident_groups == true);
  CHECK(*o.word == 2);
  CHECK_FALSE(o.plan.request.auto_sequence);
  CHECK(o.plan.request.sequence == Sequence::k32);
  CHECK(o.plan.request.m == 5);
  CHECK(o.plan.request.n == 7);
  CHECK(o.plan.request.padding == Padding::kOff);
  CHECK(o.plan.request.padded_rows == 11);
  CHECK(o.plan.request.padded_cols == 13);
  CHECK(o.plan.request.onchip == OnChip::kOff);
  CHECK(*o.onchip_groups == 1);
  CHECK(o.plan.onchip_abort);
  CHECK(parse_overrides("onchip=on").plan.request.onchip == OnChip::kForce);
  CHECK(parse_overrides("onchip=auto").plan.request.onchip == OnChip::kAuto);
  CHECK(parse_overrides("padding=auto").plan.request.padding == Padding::kAuto);
  CHECK(parse_overrides("sequence=square").plan.request.sequence == Sequence::kSquare);
  CHECK(*parse_overrides("resident_groups=0").resident_groups == false);
}

TEST_CASE("device limits can only be lowered", "[overrides]") {
  ipt::planner::DeviceProfile profile;
  profile.local_mem_bytes = 49152;
  profile.max_work_group_size = 1024;
  apply_overrides(parse_overrides("local_mem=1048576,max_wg=4096,simd=64"), profile);
  CHECK(profile.local_mem_bytes == 49152);
  CHECK(profile.max_work_group_size == 1024);
  CHECK(profile.simd_width == 64);
  apply_overrides(parse_overrides("local_mem=32768,max_wg=256"), profile);
  CHECK(profile.local_mem_bytes == 32768);
  CHECK(profile.max_work_group_size == 256);
}

TEST_CASE("IPT_OVERRIDES onchip.groups sets the on-chip kernel's groups per compute unit",
          "[overrides][onchip]") {
  ipt::planner::DeviceProfile profile;
  profile.local_mem_bytes = 49152;
  profile.max_work_group_size = 1024;
  profile.compute_units = 132;
  CHECK(ipt::planner::choose_onchip(profile, 4).work_group == 512);  // the planner's choice
  apply_overrides(parse_overrides("onchip.groups=1"), profile);
  CHECK(profile.onchip_groups == 1);
  const auto one = ipt::planner::choose_onchip(profile, 4);
  CHECK(one.work_group == 1024);
  CHECK(one.groups == 132);
  CHECK(one.stage == 3);  // and 7 tiles held in local memory
  apply_overrides(parse_overrides("onchip.hold=0"), profile);
  CHECK_FALSE(profile.onchip_hold);
  CHECK(ipt::planner::choose_onchip(profile, 4).stage == 8);  // no tile held: what fits
  apply_overrides(parse_overrides("onchip.groups=2"), profile);
  const auto two = ipt::planner::choose_onchip(profile, 1);  // bytes too, when forced
  CHECK(two.work_group == 512);
  CHECK(two.groups == 264);
}

TEST_CASE("overrides a test steers replace IPT_OVERRIDES, and the plans' key follows them",
          "[overrides]") {
  using ipt::runtime::current_overrides;
  using ipt::runtime::environment_key;
  ipt::test::ScopedEnv env("IPT_OVERRIDES", "local_mem=32768");
  CHECK(*current_overrides().local_mem == 32768);
  const std::string from_environment = environment_key();
  {
    ipt::test::ScopedOverrides steered("local_mem=16384,simd=64");
    CHECK(*current_overrides().local_mem == 16384);
    CHECK(*current_overrides().simd == 64);
    CHECK(environment_key() != from_environment);
    {
      ipt::test::ScopedOverrides none(nullptr);  // none at all, whatever the environment
      CHECK_FALSE(current_overrides().local_mem.has_value());
    }
    CHECK(*current_overrides().local_mem == 16384);  // the outer scope's again
  }
  CHECK(*current_overrides().local_mem == 32768);
  CHECK(environment_key() == from_environment);
}
