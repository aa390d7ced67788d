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
if(ipt_sanitize STREQUAL "thread")
  target_compile_options(ipt_compile_options INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(ipt_compile_options INTERFACE -fsanitize=thread)
elseif(IPT_SANITIZE)
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
elseif(IPT_SANITIZE)
  set(IPT_TEST_ENVIRONMENT
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizers/lsan.supp:print_suppressions=0"
    "UBSAN_OPTIONS=print_stacktrace=1")
endif()
