// SPDX-License-Identifier: Apache-2.0
// The keys of IPT_OVERRIDES="key=value,...", in one table: what each takes and forces, and
// how its value is read. The parser and its error text come from it, and a test checks
// that the guide's tables (docs/environment.md) list exactly these rows.
#pragma once

#include <string>
#include <vector>

#include "runtime/environment.hpp"

namespace ipt::runtime {

struct OverrideKey {
  const char* name;    // "local_mem"
  bool device;         // what the planner sees of the device; else a choice of the plan
  const char* values;  // what it takes, in words ("bytes", "`auto`, `off`")
  const char* forces;  // what it changes
  // Reads `value` of `key` (this name) into `overrides`; throws
  // ipt::Error(IPT_INVALID_VALUE) for a bad one.
  void (*set)(Overrides& overrides, const char* key, const std::string& value);
};

// Every key, in the guide's order.
const std::vector<OverrideKey>& override_keys();

}  // namespace ipt::runtime
