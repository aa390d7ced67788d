// SPDX-License-Identifier: Apache-2.0
#include "runtime/environment.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "runtime/error.hpp"

namespace ipt::runtime {
namespace {

std::size_t parse_number(const std::string& key, const std::string& text) {
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || end == nullptr || *end != '\0' || text[0] == '-')
    fail(IPT_INVALID_VALUE,
         "IPT_OVERRIDES: '" + key + "' needs a non-negative number, got '" + text + "'");
  return static_cast<std::size_t>(value);
}

planner::Sequence parse_sequence(const std::string& text) {
  using planner::Sequence;
  for (Sequence s : {Sequence::kSquare, Sequence::kOneStage, Sequence::k21, Sequence::k22,
                     Sequence::k31, Sequence::k32, Sequence::k41, Sequence::k42})
    if (text == planner::sequence_name(s)) return s;
  fail(IPT_INVALID_VALUE, "IPT_OVERRIDES: sequence '" + text +
                              "' is not one of square, 1, 2.1, 2.2, 3.1, 3.2, 4.1, 4.2");
}

planner::Padding parse_padding(const std::string& text) {
  if (text == "auto") return planner::Padding::kAuto;
  if (text == "off") return planner::Padding::kOff;
  fail(IPT_INVALID_VALUE, "IPT_OVERRIDES: padding '" + text + "' is not auto or off");
}

planner::TileLayout parse_tiles(const std::string& key, const std::string& text) {
  if (text == "padded") return planner::TileLayout::kPadded;
  if (text == "swizzled") return planner::TileLayout::kSwizzled;
  fail(IPT_INVALID_VALUE, "IPT_OVERRIDES: " + key + " '" + text + "' is not padded or swizzled");
}

planner::OnChip parse_onchip(const std::string& text) {
  if (text == "auto") return planner::OnChip::kAuto;
  if (text == "off") return planner::OnChip::kOff;
  if (text == "on") return planner::OnChip::kForce;
  fail(IPT_INVALID_VALUE, "IPT_OVERRIDES: onchip '" + text + "' is not auto, off or on");
}

}  // namespace

Overrides parse_overrides(const std::string& text) {
  Overrides overrides;
  std::istringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (key == "local_mem")
      overrides.local_mem = parse_number(key, value);
    else if (key == "max_wg")
      overrides.max_wg = parse_number(key, value);
    else if (key == "simd")
      overrides.simd = parse_number(key, value);
    else if (key == "max_alloc")
      overrides.max_alloc = parse_number(key, value);
    else if (key == "compute_units")
      overrides.compute_units = parse_number(key, value);
    else if (key == "line")
      overrides.line = parse_number(key, value);
    else if (key == "fp64")
      overrides.fp64 = parse_number(key, value) != 0;
    else if (key == "square.tile")
      overrides.plan.square_tile = parse_number(key, value);
    else if (key == "square.wg_rows")
      overrides.plan.square_wg_rows = parse_number(key, value);
    else if (key == "square.tiles")
      overrides.plan.square_tiles = parse_tiles(key, value);
    else if (key == "onchip.tiles")
      overrides.plan.request.onchip_tiles = parse_tiles(key, value);
    else if (key == "tiles")
      overrides.plan.square_tiles = overrides.plan.request.onchip_tiles = parse_tiles(key, value);
    else if (key == "sequence") {
      overrides.plan.request.auto_sequence = false;
      overrides.plan.request.sequence = parse_sequence(value);
    } else if (key == "m")
      overrides.plan.request.m = parse_number(key, value);
    else if (key == "n")
      overrides.plan.request.n = parse_number(key, value);
    else if (key == "padding")
      overrides.plan.request.padding = parse_padding(value);
    else if (key == "padded_rows")
      overrides.plan.request.padded_rows = parse_number(key, value);
    else if (key == "padded_cols")
      overrides.plan.request.padded_cols = parse_number(key, value);
    else if (key == "onchip")
      overrides.plan.request.onchip = parse_onchip(value);
    else if (key == "onchip.abort")
      overrides.plan.onchip_abort = parse_number(key, value) != 0;
    else if (key == "resident_groups")
      overrides.resident_groups = parse_number(key, value) != 0;
    else if (key == "word") {
      overrides.word = parse_number(key, value);
      if (*overrides.word == 0 || *overrides.word > 4 || (*overrides.word & (*overrides.word - 1)))
        fail(IPT_INVALID_VALUE, "IPT_OVERRIDES: word must be 1, 2 or 4");
    } else if (key == "onchip.groups") {
      overrides.onchip_groups = parse_number(key, value);
      if (*overrides.onchip_groups != 1 && *overrides.onchip_groups != 2)
        fail(IPT_INVALID_VALUE, "IPT_OVERRIDES: onchip.groups must be 1 or 2");
    } else
      fail(IPT_INVALID_VALUE,
           "IPT_OVERRIDES: unknown key '" + key +
               "' (known: local_mem, max_wg, max_alloc, simd, compute_units, fp64, "
               "line, resident_groups, word, square.tile, square.wg_rows, square.tiles, sequence, "
               "m, n, padding, padded_rows, padded_cols, onchip, onchip.abort, onchip.tiles, "
               "onchip.groups, tiles)");
  }
  return overrides;
}

Overrides current_overrides() {
  const char* text = std::getenv("IPT_OVERRIDES");
  if (text == nullptr) return Overrides{};
  // Parsed once per text and thread: a call reads the overrides several times, and each
  // parse took about 1 us.
  thread_local std::string parsed_text;
  thread_local std::optional<Overrides> parsed;
  if (!parsed || parsed_text != text) {
    parsed.reset();
    Overrides fresh = parse_overrides(text);  // a bad text throws and is never kept
    parsed_text = text;
    parsed = fresh;
  }
  return *parsed;
}

void apply_overrides(const Overrides& overrides, planner::DeviceProfile& profile) {
  // Limits can only be lowered: a plan for more than the device has would not run.
  if (overrides.local_mem)
    profile.local_mem_bytes = std::min(profile.local_mem_bytes, *overrides.local_mem);
  if (overrides.max_wg)
    profile.max_work_group_size = std::min(profile.max_work_group_size, *overrides.max_wg);
  if (overrides.max_alloc)
    profile.max_alloc_bytes = profile.max_alloc_bytes == 0
                                  ? *overrides.max_alloc
                                  : std::min(profile.max_alloc_bytes, *overrides.max_alloc);
  if (overrides.simd) profile.simd_width = *overrides.simd;
  if (overrides.compute_units) profile.compute_units = *overrides.compute_units;
  if (overrides.fp64) profile.has_fp64 = *overrides.fp64;
  if (overrides.line) profile.line_bytes = *overrides.line;
  if (overrides.resident_groups) profile.resident_groups = *overrides.resident_groups;
  if (overrides.word) profile.word_bytes = *overrides.word;
  if (overrides.onchip_groups) profile.onchip_groups = *overrides.onchip_groups;
}

std::string environment_key() {
  std::string key;
  for (const char* name : {"IPT_OVERRIDES", "IPT_BUILD_OPTIONS", "IPT_KERNEL_DIR"}) {
    const char* value = std::getenv(name);
    key += value != nullptr ? value : "";
    key += '\n';  // no variable holds a newline that would make two settings collide
  }
  return key;
}

}  // namespace ipt::runtime
