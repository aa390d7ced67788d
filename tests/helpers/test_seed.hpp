// SPDX-License-Identifier: Apache-2.0
// The seed of the tests that draw random shapes or data over many cases, from the
// environment when set (IPT_TEST_SEED), so that a failure can be replayed. A header of its
// own, as the planner tests need no OpenCL; test_support.hpp includes it.
#pragma once

#include <cstdint>

namespace ipt::test {

// The seed of a test that draws random shapes or data over many cases: IPT_TEST_SEED when
// set (a decimal number: to replay a failure, or to draw other cases), else `fallback`,
// the test's fixed seed, so that runs are deterministic unless asked. Says on stdout when
// IPT_TEST_SEED replaces the fixed seed; throws std::invalid_argument for a value that is
// not a decimal number below 2^64. Tests use it through IPT_TEST_SEED(name, fallback).
std::uint64_t seed(std::uint64_t fallback);

}  // namespace ipt::test

// Declares `const std::uint64_t name = ipt::test::seed(fallback)` and names the seed in
// the message of every assertion of the enclosing scope (Catch2's INFO), so that a failure
// says how to replay it. Needs <catch2/catch.hpp>.
#define IPT_TEST_SEED(name, fallback)                     \
  const std::uint64_t name = ::ipt::test::seed(fallback); \
  INFO("seed " << name << " (replay: IPT_TEST_SEED=" << name << ")")
