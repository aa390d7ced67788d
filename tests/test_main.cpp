// SPDX-License-Identifier: Apache-2.0
// The Catch2 main of the test binary; prints which OpenCL device the tests run on.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "test_support.hpp"

int main(int argc, char* argv[]) {
#if defined(__GLIBC__)
  // The tests allocate and free host copies of matrices of up to a few hundred MiB, shape
  // after shape (and so does the OpenCL driver, PoCL, for its buffers). glibc's defaults
  // return most of that to the kernel at each free and fault it in again, zeroed, at the
  // next allocation: on the 2-core CI machine that took a third of a sweep's CPU time
  // (padding's random shapes: 55 s of CPU, 38 s with these settings). Blocks up to 32 MiB
  // come from the heap, which keeps what it had. Only the process's memory reuse changes;
  // every check is the same. (Sanitized builds replace malloc: there, nothing changes.)
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
#endif
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
