// SPDX-License-Identifier: Apache-2.0
// The test binaries' sanitizer options (test_main.cpp, which the address-sanitized build
// leaves uninstrumented, could not hold them: there, __SANITIZE_ADDRESS__ is not defined).
#if defined(__SANITIZE_ADDRESS__)
// The address-sanitized build also has UBSan (stopping at the first report): its reports
// name the call path. Here rather than in UBSAN_OPTIONS, which ctest cannot pass to a
// discovered test beside LSAN_OPTIONS (tests/CMakeLists.txt).
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1"; }
#endif
