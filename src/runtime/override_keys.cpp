// SPDX-License-Identifier: Apache-2.0
#include "runtime/override_keys.hpp"

#include <cstdlib>
#include <sstream>

#include "runtime/error.hpp"

namespace ipt::runtime {
namespace {

[[noreturn]] void bad_value(const char* key, const std::string& value, const char* expected) {
  fail(IPT_INVALID_VALUE,
       std::string("IPT_OVERRIDES: ") + key + " '" + value + "' is not " + expected);
}

std::size_t number(const char* key, const std::string& text) {
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || end == nullptr || *end != '\0' || text[0] == '-')
    fail(IPT_INVALID_VALUE, std::string("IPT_OVERRIDES: '") + key +
                                "' needs a non-negative number, got '" + text + "'");
  return static_cast<std::size_t>(value);
}

planner::Sequence sequence(const char* key, const std::string& text) {
  using planner::Sequence;
  for (Sequence s : {Sequence::kSquare, Sequence::kOneStage, Sequence::k21, Sequence::k22,
                     Sequence::k31, Sequence::k32, Sequence::k41, Sequence::k42})
    if (text == planner::sequence_name(s)) return s;
  bad_value(key, text, "one of square, 1, 2.1, 2.2, 3.1, 3.2, 4.1, 4.2");
}

planner::TileLayout tiles(const char* key, const std::string& text) {
  if (text == "padded") return planner::TileLayout::kPadded;
  if (text == "swizzled") return planner::TileLayout::kSwizzled;
  bad_value(key, text, "padded or swizzled");
}

// A key's setter: a captureless lambda of the overrides o, the key k and its value v.
#define IPT_SET(body) [](Overrides& o, const char* k, const std::string& v) { body; }

const std::vector<OverrideKey>& keys() {
  static const std::vector<OverrideKey> table = {
      // What the planner sees of the device.
      {"local_mem", true, "bytes", "local memory per work-group; only lowers the device's value",
       IPT_SET(o.local_mem = number(k, v))},
      {"max_wg", true, "work-items", "the largest work-group; only lowers the device's value",
       IPT_SET(o.max_wg = number(k, v))},
      {"max_alloc", true, "bytes", "the largest allocation; only lowers the device's value",
       IPT_SET(o.max_alloc = number(k, v))},
      {"simd", true, "work-items", "the SIMD width the planner sizes units by",
       IPT_SET(o.simd = number(k, v))},
      {"compute_units", true, "count", "the number of compute units",
       IPT_SET(o.compute_units = number(k, v))},
      {"fp64", true, "0 or 1", "double support; 0 makes `ipt_transpose_f64` refuse",
       IPT_SET(o.fp64 = number(k, v) != 0)},
      {"line", true, "bytes; 0: none",
       "the cache line super-elements are aligned to (0: as TPDS plans)",
       IPT_SET(o.line = number(k, v))},
      {"resident_groups", true, "0 or 1",
       "whether the device runs one group of 1024 (or two of 512) per compute unit at once; the "
       "planner takes on-chip plans by itself only then",
       IPT_SET(o.resident_groups = number(k, v) != 0)},
      {"word", true, "1, 2, 4, 8 or 16 (default)",
       "the widest word runs of narrower elements move in, of at most 4 elements (1: element "
       "by element); an unpad into a compact matrix stores words of 8 or 16 bytes only where "
       "it is 8 or more, and on-chip steps move 2- and 1-byte elements in 2 x 2 and 4 x 4 "
       "blocks of 4-byte words only where it is 4 or more",
       IPT_SET(const std::size_t w = number(k, v);
               if (w == 0 || w > 16 || (w & (w - 1)) != 0) bad_value(k, v, "1, 2, 4, 8 or 16");
               o.word = w)},
      // The plan.
      {"sequence", false, "`square`, `1`, `2.1`, `2.2`, `3.1`, `3.2`, `4.1`, `4.2`",
       "the sequence ([plans.md](plans.md#sequences))",
       IPT_SET(o.plan.request.auto_sequence = false; o.plan.request.sequence = sequence(k, v))},
      {"m", false, "a factor", "the sequence's m", IPT_SET(o.plan.request.m = number(k, v))},
      {"n", false, "a factor", "the sequence's n", IPT_SET(o.plan.request.n = number(k, v))},
      {"padding", false, "`auto`, `off`", "whether the planner may pad",
       IPT_SET(if (v == "auto") o.plan.request.padding = planner::Padding::kAuto;
               else if (v == "off") o.plan.request.padding = planner::Padding::kOff;
               else bad_value(k, v, "auto or off"))},
      {"padded_rows", false, "a side", "the padded shape's rows",
       IPT_SET(o.plan.request.padded_rows = number(k, v))},
      {"padded_cols", false, "a side", "the padded shape's columns",
       IPT_SET(o.plan.request.padded_cols = number(k, v))},
      {"onchip", false, "`auto`, `off`, `on`",
       "the on-chip plan allowed, forbidden (on-chip 010! stages too) or forced",
       IPT_SET(if (v == "auto") o.plan.request.onchip = planner::OnChip::kAuto;
               else if (v == "off") o.plan.request.onchip = planner::OnChip::kOff;
               else if (v == "on") o.plan.request.onchip = planner::OnChip::kForce;
               else bad_value(k, v, "auto, off or on"))},
      {"onchip.groups", false, "1 or 2",
       "on-chip kernels in one group of 1024 or two of 512 work-items per compute unit",
       IPT_SET(const std::size_t g = number(k, v); if (g != 1 && g != 2) bad_value(k, v, "1 or 2");
               o.onchip_groups = g)},
      {"onchip.hold", false, "0 or 1 (default)",
       "0: on-chip kernels hold their tiles in registers only, not in local memory too",
       IPT_SET(o.onchip_hold = number(k, v) != 0)},
      {"onchip.abort", false, "0 or 1",
       "1: every on-chip kernel gives up and runs its cycle-following fallback (tests)",
       IPT_SET(o.plan.onchip_abort = number(k, v) != 0)},
      {"square.tile", false, "a size", "the square kernel's tile",
       IPT_SET(o.plan.square_tile = number(k, v))},
      {"square.wg_rows", false, "a size", "the square kernel's work-group rows",
       IPT_SET(o.plan.square_wg_rows = number(k, v))},
      {"square.tiles", false, "`padded` (default), `swizzled`",
       "how the square kernel lays out its local tiles",
       IPT_SET(o.plan.square_tiles = tiles(k, v))},
      {"square.vectors", false, "`auto`, `off`, `on`",
       "4-byte rows in 16-byte vectors where rows do not start on cache lines, never or always",
       IPT_SET(if (v == "auto") o.plan.square_vectors.reset();
               else if (v == "off") o.plan.square_vectors = false;
               else if (v == "on") o.plan.square_vectors = true;
               else bad_value(k, v, "auto, off or on"))},
      {"square.bands", false, "`auto`, `off`, `on`",
       "the square kernel's tile pairs in bands of tile columns (32 of 4- and 8-byte elements, "
       "8 of others) for matrices whose tile columns hold more than 6 MiB and whose rows do "
       "not start on cache lines, never or always",
       IPT_SET(if (v == "auto") o.plan.square_bands.reset();
               else if (v == "off") o.plan.square_bands = false;
               else if (v == "on") o.plan.square_bands = true;
               else bad_value(k, v, "auto, off or on"))},
      {"onchip.tiles", false, "`padded` (default), `swizzled`",
       "how the on-chip kernel lays out its local tiles",
       IPT_SET(o.plan.request.onchip_tiles = tiles(k, v))},
      {"tiles", false, "`padded` (default), `swizzled`", "both `square.tiles` and `onchip.tiles`",
       IPT_SET(o.plan.square_tiles = o.plan.request.onchip_tiles = tiles(k, v))},
  };
  return table;
}

#undef IPT_SET

}  // namespace

const std::vector<OverrideKey>& override_keys() { return keys(); }

Overrides parse_overrides(const std::string& text) {
  Overrides overrides;
  std::istringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    const OverrideKey* found = nullptr;
    for (const OverrideKey& k : keys())
      if (key == k.name) found = &k;
    if (found == nullptr) {
      std::string known;
      for (const OverrideKey& k : keys())
        known += (known.empty() ? "" : ", ") + std::string(k.name);
      fail(IPT_INVALID_VALUE, "IPT_OVERRIDES: unknown key '" + key + "' (known: " + known + ")");
    }
    found->set(overrides, found->name, value);
  }
  return overrides;
}

}  // namespace ipt::runtime
