// SPDX-License-Identifier: Apache-2.0
// The Catch2 main of the test binary; prints which OpenCL device the tests run on.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>

#include "test_support.hpp"

int main(int argc, char* argv[]) {
  Catch::Session catch_session;
  if (const int code = catch_session.applyCommandLine(argc, argv); code != 0) return code;
  if (!catch_session.configData().listTestNamesOnly && !catch_session.configData().listTests) {
    try {
      std::printf("OpenCL device: %s\n", ipt::test::session().description().c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 2;
    }
  }
  return catch_session.run();
}
