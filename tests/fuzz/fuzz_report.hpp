// SPDX-License-Identifier: Apache-2.0
// How a fuzz target reports: a broken property on stderr, then abort(), which libFuzzer
// records as a crash, saving the input for replay (tools/fuzz.sh); with IPT_FUZZ_VERBOSE
// set, every input's call in words, to see what a replayed or slow input does.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace ipt::fuzz {

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void trace(const std::string& call) {
  static const bool verbose = std::getenv("IPT_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "fuzz: %s\n", call.c_str());
}

}  // namespace ipt::fuzz
