// SPDX-License-Identifier: Apache-2.0
#include "runtime/environment.hpp"

#include <algorithm>
#include <cstdlib>

#include "runtime/fault_seam.hpp"

namespace ipt::runtime {
namespace {

const char* name_of(Variable variable) {
  switch (variable) {
    case Variable::kOverrides:
      return "IPT_OVERRIDES";
    case Variable::kBuildOptions:
      return "IPT_BUILD_OPTIONS";
    case Variable::kKernelDir:
      return "IPT_KERNEL_DIR";
    case Variable::kKernelSet:
      return "IPT_KERNEL_SET";
    case Variable::kCacheDir:
      return "IPT_CACHE_DIR";
    case Variable::kCacheDisable:
      return "IPT_CACHE_DISABLE";
    case Variable::kXdgCacheHome:
      return "XDG_CACHE_HOME";
    case Variable::kHome:
      return "HOME";
  }
  return "";
}

}  // namespace

const char* variable(Variable which) {
  const char* value = std::getenv(name_of(which));
  return value != nullptr && *value != '\0' ? value : nullptr;
}

Overrides current_overrides() {
  const std::optional<std::string> steered = faults::steered_overrides();
  const char* text = steered ? steered->c_str() : variable(Variable::kOverrides);
  if (text == nullptr || *text == '\0') return Overrides{};
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
  if (overrides.onchip_hold) profile.onchip_hold = *overrides.onchip_hold;
}

std::string environment_key() {
  std::string key;
  const std::optional<std::string> steered = faults::steered_overrides();
  for (const Variable v : {Variable::kOverrides, Variable::kBuildOptions, Variable::kKernelDir}) {
    const char* value = v == Variable::kOverrides && steered ? steered->c_str() : variable(v);
    key += value != nullptr ? value : "";
    key += '\n';  // no variable holds a newline that would make two settings collide
  }
  return key;
}

}  // namespace ipt::runtime
