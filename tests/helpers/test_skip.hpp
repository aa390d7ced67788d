// SPDX-License-Identifier: Apache-2.0
// Skipping a test case, counted and with its reason. Catch2 2 has no skip of its own: a
// case that WARNs and returns passes as if it had checked something. IPT_SKIP records
// the case and the reason (both printed at once and again at the end of the run), makes
// one passing assertion (so that -w NoAssertions does not fail the case) and returns from
// the test case. A run in which every test case it ran skipped, and none failed, exits
// with kSkipExitCode: ctest's SKIP_RETURN_CODE for the discovered tests, one case each,
// so that ctest counts the skip and lists it under "The following tests did not run".
#pragma once

#include <catch2/catch.hpp>
#include <sstream>
#include <string>

namespace ipt::test {

constexpr int kSkipExitCode = 77;

// Records that the running test case skips, for `reason`.
void record_skip(const std::string& reason);

}  // namespace ipt::test

// In a test case's own body only (it returns from the function). `reason` may be a
// stream expression, as in INFO: IPT_SKIP("no images on " << device).
#define IPT_SKIP(reason)                            \
  do {                                              \
    std::ostringstream ipt_skip_reason_;            \
    ipt_skip_reason_ << reason;                     \
    ipt::test::record_skip(ipt_skip_reason_.str()); \
    SUCCEED("skipped: " << ipt_skip_reason_.str()); \
    return;                                         \
  } while (false)
