// SPDX-License-Identifier: Apache-2.0
// The Catch2 main of the test binary; prints which OpenCL device the tests run on, fails a
// test case that asserts nothing, counts the test cases that skipped (test_skip.hpp), and
// writes every thread's stack on SIGUSR1 (stack_dump.hpp). With it, Catch2's own
// implementation, which tests/CMakeLists.txt compiles with options of its own.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <string>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "helpers/stack_dump.hpp"
#include "helpers/test_skip.hpp"
#include "helpers/test_support.hpp"

namespace {

std::map<std::string, std::string>& skipped() {  // test case name -> reason
  static std::map<std::string, std::string> cases;
  return cases;
}

int cases_run = 0;

struct CaseCounter : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseEnded(const Catch::TestCaseStats&) override { ++cases_run; }
};

}  // namespace

CATCH_REGISTER_LISTENER(CaseCounter)

namespace ipt::test {

void record_skip(const std::string& reason) {
  const std::string name = Catch::getResultCapture().getCurrentTestName();
  std::printf("SKIPPED: %s: %s\n", name.c_str(), reason.c_str());
  std::fflush(stdout);
  skipped().emplace(name, reason);
}

}  // namespace ipt::test

int main(int argc, char* argv[]) {
  ipt::test::install_stack_dump();  // before any thread starts
#if defined(__GLIBC__)
  // The tests allocate and free host copies of matrices of up to a few hundred MiB, shape
  // after shape (and so does the OpenCL driver, PoCL, for its buffers). glibc's defaults
  // return most of that to the kernel at each free and fault it in again, zeroed, at the
  // next allocation: on the 2-core CI machine that took most of a sweep's time. Every
  // block comes from the heap (no mmap), which keeps up to 1 GiB of what is freed: one of
  // padding's random-shape sweeps took 34 s with blocks above 32 MiB mapped, 17 s with
  // none (its peak memory about 1.2 GiB either way). Only the process's memory reuse
  // changes; every check is the same. (Sanitized builds replace malloc: there, nothing
  // changes.)
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
#endif
  Catch::Session catch_session;
  if (const int code = catch_session.applyCommandLine(argc, argv); code != 0) return code;
  // Every test case, and each of its sections, must assert something: one that asserts
  // nothing fails, as with -w NoAssertions (set here because Catch2 2.13 accepts only one
  // -w on its command line, and ctest passes -w NoTests).
  auto& config = catch_session.configData();
  config.warnings =
      static_cast<Catch::WarnAbout::What>(config.warnings | Catch::WarnAbout::NoAssertions);
  // Listing (as catch_discover_tests does) opens no device; its exit code is the count.
  if (config.listTestNamesOnly || config.listTests) return catch_session.run();
  try {
    std::printf("OpenCL device: %s\n", ipt::test::session().description().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  const int result = catch_session.run();
  if (!skipped().empty()) {
    std::printf("%zu of %d test cases skipped:\n", skipped().size(), cases_run);
    for (const auto& [name, reason] : skipped())
      std::printf("  %s: %s\n", name.c_str(), reason.c_str());
  }
  // Catch2 returns the number of failed assertions: 77 of them must not read as a skip.
  if (result == ipt::test::kSkipExitCode) return 1;
  if (result == 0 && !skipped().empty() && static_cast<int>(skipped().size()) == cases_run)
    return ipt::test::kSkipExitCode;
  return result;
}
