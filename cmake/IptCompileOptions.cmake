# SPDX-License-Identifier: Apache-2.0
# Warning and sanitizer flags shared by every target of the project, through one
# interface target so that nothing leaks into consumers of the installed library.
add_library(ipt_compile_options INTERFACE)
target_compile_options(ipt_compile_options INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  $<$<COMPILE_LANG_AND_ID:C,GNU,Clang>:-Wall -Wextra -Wpedantic>)
# Every target speaks OpenCL 1.2 (the oldest version libipt supports) to the headers.
target_compile_definitions(ipt_compile_options INTERFACE CL_TARGET_OPENCL_VERSION=120)
if(IPT_WARNINGS_AS_ERRORS)
  target_compile_options(ipt_compile_options INTERFACE -Werror)
endif()
string(TOLOWER "${IPT_SANITIZE}" ipt_sanitize)
# IPT_BUILD_FUZZERS: libFuzzer is Clang's, so other compilers build no fuzzer. With Clang
# every target gets libFuzzer's coverage instrumentation (the library's branches are what
# the fuzzers explore), AddressSanitizer + UBSan (what turns a wrong index into a crash
# the fuzzer reports) and UBSan's check of unsigned wraps, which are not undefined but
# are how a size goes wrong quietly; the few wraps meant are listed in
# tests/fuzz/integer_wraps.ignorelist.
set(IPT_FUZZING OFF)
if(IPT_BUILD_FUZZERS)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(IPT_FUZZING ON)
    if(ipt_sanitize STREQUAL "thread")
      message(FATAL_ERROR "IPT_BUILD_FUZZERS needs IPT_SANITIZE=address (or OFF), not thread")
    endif()
    if(NOT IPT_SANITIZE)
      set(ipt_sanitize address)
    endif()
    target_compile_options(ipt_compile_options INTERFACE -fsanitize=fuzzer-no-link
      -fsanitize=unsigned-integer-overflow -fno-sanitize-recover=unsigned-integer-overflow
      -fsanitize-ignorelist=${PROJECT_SOURCE_DIR}/tests/fuzz/integer_wraps.ignorelist)
    target_link_options(ipt_compile_options INTERFACE -fsanitize=unsigned-integer-overflow)
  else()
    message(WARNING "IPT_BUILD_FUZZERS: libFuzzer needs Clang (configure with CC=clang "
                    "CXX=clang++); no fuzzer is built with ${CMAKE_CXX_COMPILER_ID}")
  endif()
endif()
if(ipt_sanitize STREQUAL "thread")
  target_compile_options(ipt_compile_options INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(ipt_compile_options INTERFACE -fsanitize=thread)
elseif(ipt_sanitize)
  if(NOT ipt_sanitize MATCHES "^(on|address|1|yes|true)$")
    message(FATAL_ERROR "IPT_SANITIZE is OFF, address (or ON) or thread, not ${IPT_SANITIZE}")
  endif()
  target_compile_options(ipt_compile_options INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(ipt_compile_options INTERFACE -fsanitize=address,undefined)
endif()

# The environment of every test: sanitized runs ignore the OpenCL driver's own leaks
# (tests/sanitizers/lsan.supp) and print UB stack traces; ThreadSanitizer reports races
# in the library and the tests, with those inside the OpenCL driver suppressed
# (tests/sanitizers/tsan.supp says why each is there), and fails the test on the first.
set(IPT_TEST_ENVIRONMENT "")
if(ipt_sanitize STREQUAL "thread")
  set(IPT_TEST_ENVIRONMENT
    "TSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizers/tsan.supp:halt_on_error=1:second_deadlock_stack=1")
elseif(ipt_sanitize)
  set(IPT_TEST_ENVIRONMENT
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizers/lsan.supp:print_suppressions=0"
    "UBSAN_OPTIONS=print_stacktrace=1")
endif()
