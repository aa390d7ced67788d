// SPDX-License-Identifier: Apache-2.0
#include "helpers/test_seed.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace ipt::test {

std::uint64_t seed(std::uint64_t fallback) {
  const char* value = std::getenv("IPT_TEST_SEED");
  if (value == nullptr || *value == '\0') return fallback;
  // Digits only: strtoull would accept a sign, spaces or a prefix and wrap negatives.
  const std::string text = value;
  errno = 0;
  const unsigned long long parsed = std::strtoull(text.c_str(), nullptr, 10);
  if (text.find_first_not_of("0123456789") != std::string::npos || errno == ERANGE)
    throw std::invalid_argument("IPT_TEST_SEED=" + text + " is not a decimal number below 2^64");
  std::printf("IPT_TEST_SEED=%llu replaces the test's seed %llu\n", parsed,
              static_cast<unsigned long long>(fallback));
  return parsed;
}

}  // namespace ipt::test
