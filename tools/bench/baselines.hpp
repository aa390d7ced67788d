// SPDX-License-Identifier: Apache-2.0
// Out-of-place references measured beside libipt on the same shapes: a plain tiled
// copy-transpose kernel of ours, and CLBlast's omatcopy when the build found CLBlast.
// Both need a second buffer of the matrix's size (twice the memory of in place).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/device_pattern.hpp"
#include "support/device_select.hpp"

namespace ipt::bench {

struct BaselineResult {
  std::string library;      // "oop-kernel" or "clblast-omatcopy"
  bool ran = false;         // false: not available for this type, or out of memory
  std::string why;          // when !ran
  double seconds = 0;       // median kernel time (profiling events)
  double wall_seconds = 0;  // median host time from the call to completion
  bool verified = false;
  std::size_t memory_bytes = 0;  // both buffers
};

// The baselines available in this build, by name.
std::vector<std::string> available_baselines();

// Runs baseline `name` on a rows x cols matrix of elem_size-byte random elements:
// a warm-up (verified when `verify`), then `repetitions` timed calls. With `pattern`, the
// matrix is made and checked on the device (support/device_pattern.hpp).
BaselineResult run_baseline(const support::Session& session, const std::string& name,
                            std::size_t rows, std::size_t cols, std::size_t elem_size,
                            int repetitions, bool verify, std::uint64_t seed,
                            support::DevicePattern* pattern = nullptr);

}  // namespace ipt::bench
