#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One-stop set-up for a fresh Debian 12 machine (run as root): installs what is missing
# with apt-get, configures, builds, then runs the demo or the test suite.
#
#   bash tools/setup.sh demo       build and run ipt-demo on the default OpenCL device
#                                  (installs and builds only what the demo needs)
#   bash tools/setup.sh test       build and run the whole test suite (ctest), then the
#                                  same suite built with AddressSanitizer + UBSan, and
#                                  built with ThreadSanitizer, then a minute of fuzzing
#                                  (tools/fuzz.sh)
#   bash tools/setup.sh test-fast  the test suite without the sanitizer build
#
# Environment: BUILD_DIR (default build), IPT_DEVICE (device name substring), JOBS.
set -euo pipefail

mode=${1:-demo}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}

# What the demo needs: a C++ compiler, CMake, the OpenCL loader and headers, and PoCL
# (the CPU device used when there is no GPU driver).
demo_packages=(cmake make g++ pkg-config ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers
               pocl-opencl-icd)
# The test suite needs more. gfortran: the Fortran module. python3-*: the ipt Python
# package's tests and example (ctest registers them only when the interpreter imports all
# three). dpkg-dev, file, lintian: the Debian packages and their checks. man-db: the man
# pages' check. clang, libclang-rt-14-dev (libFuzzer and the sanitizer runtimes of Debian
# 12's clang 14): the fuzzers of tools/fuzz.sh. libopenmpi-dev, openmpi-bin: libipt_mpi
# and its tests under mpirun. libclfft-dev: the 2D FFT example.
test_packages=("${demo_packages[@]}" gfortran catch2 python3-pyopencl python3-pytest
               python3-numpy dpkg-dev file lintian man-db clang libclang-rt-14-dev
               libopenmpi-dev openmpi-bin libclfft-dev)
# The tests that exist only when those packages are found: missing, the run fails.
needed_tests=('^python_package$' '^example_python$' '^mpi_transpose_np' '^mpi_cpp_np'
              '^mpi_fortran_np' '^fortran_module$' '^example_fortran$' '^example_fft2d'
              '^debian_packages$')

# apt-get and dpkg refuse to run while another of them holds its lock (an unattended
# upgrade on a new machine, say): say so, then let apt wait for it.
apt_lock_wait() {
  if lslocks -n -o PATH 2> /dev/null | grep -q '^/var/lib/dpkg/lock'; then
    echo "== another apt-get or dpkg is running: waiting for it to finish (up to 20 minutes)"
  fi
}

install_missing() {  # the packages named in "$@"
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    local wait=(-o DPkg::Lock::Timeout=1200)
    apt_lock_wait
    apt-get "${wait[@]}" update -qq
    apt_lock_wait
    apt-get "${wait[@]}" install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

started=$(date +%s)
phase() {  # a header with the time since the start, so that a long step shows progress
  echo "== [$(($(date +%s) - started)) s] $*"
}

configure_and_build() {  # $1 build dir, then extra cmake arguments
  local dir=$1
  shift
  phase "configure $dir"
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@"
  phase "build $dir"
  cmake --build "$dir" -j "$jobs"
}

# Tests run and failed over every phase, for the closing summary line.
total_passed=0
total_failed=0
total_skipped=0
run_skipped=0
skips=""
# Fails when the run in $1 (its log $2) ran fewer tests than ctest -N registers, or when
# a test this script installed the dependencies of ($3...: names, as ctest -R regular
# expressions) is not registered; counts and lists the skipped tests with their reasons.
check_ctest_run() {
  local dir=$1 log=$2 registered ran name skipped reasons
  shift 2
  # The skipped tests' reasons (IPT_SKIP, bench_smoke.sh, tests/abi: "SKIPPED:"/"skipped:";
  # pytest -rs: "SKIPPED [1] file: reason"), read before ctest -N rewrites LastTest.log.
  reasons=$(grep -hE '^(SKIPPED|skipped)[: ]' "$dir/Testing/Temporary/LastTest.log" | sort -u || true)
  registered=$(cd "$dir" && ctest -N | sed -nE 's/^Total Tests: ([0-9]+)$/\1/p')
  ran=$(grep -E 'tests passed.* out of [0-9]+' "$log" | sed -nE 's/.* out of ([0-9]+).*/\1/p' | tail -n 1)
  if [ "${ran:-0}" -lt "${registered:-1}" ]; then
    echo "== FAILED: ctest in $dir ran ${ran:-no} tests of the ${registered:-?} registered"
    exit 1
  fi
  for name in "$@"; do
    if ! grep -qE '^ *Test +#' <<< "$(cd "$dir" && ctest -N -R "$name")"; then
      echo "== FAILED: no test matching '$name' in $dir, though this script installs what it needs"
      exit 1
    fi
  done
  # "The following tests did not run:" then "<tab> 12 - name (Skipped)".
  skipped=$(sed -nE 's/^[[:space:]]*[0-9]+ - (.*) \((Skipped|Not Run|Disabled)\)$/\1/p' "$log")
  run_skipped=0
  if [ -n "$skipped" ]; then
    run_skipped=$(grep -c . <<< "$skipped")
    total_skipped=$((total_skipped + run_skipped))
    skips+="skipped in $dir:"$'\n'"$(sed 's/^/  /' <<< "$skipped")"$'\n'
    skips+="${reasons:+$(sed 's/^/    /' <<< "$reasons")$'\n'}"
  fi
}
run_tests() {  # $1 build dir, then the tests that must be registered (check_ctest_run)
  phase "ctest in $1"
  local log=$1/ctest-summary.log
  (cd "$1" && ctest --output-on-failure -j "$jobs") | tee "$log"
  check_ctest_run "$1" "$log" "${@:2}"
  local line total failed
  # "100% tests passed out of N", or "P% tests passed, F tests failed out of N"
  line=$(grep -E 'tests passed(, [0-9]+ tests? failed)? out of [0-9]+' "$log" | tail -n 1)
  total=$(sed -nE 's/.* out of ([0-9]+).*/\1/p' <<< "$line")
  failed=$(sed -nE 's/.*tests passed, ([0-9]+) tests? failed.*/\1/p' <<< "$line")
  total=${total:-0}
  failed=${failed:-0}
  total_passed=$((total_passed + total - failed - run_skipped))  # ctest counts skips as passed
  total_failed=$((total_failed + failed))
  phase "ctest in $1 done"
}

# The build's parts are named both ways, so that one build directory serves the demo
# (the library and ipt-demo only) and the suite (everything) in turn.
all_parts=(-DIPT_BUILD_TESTS=ON -DIPT_BUILD_TOOLS=ON -DIPT_BUILD_FORTRAN=ON -DIPT_BUILD_MPI=ON
           -DIPT_BUILD_PYTHON=ON)
case "$mode" in
  demo)
    install_missing "${demo_packages[@]}"
    phase "configure $build"
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIPT_BUILD_TESTS=OFF \
      -DIPT_BUILD_TOOLS=ON -DIPT_BUILD_FORTRAN=OFF -DIPT_BUILD_MPI=OFF -DIPT_BUILD_PYTHON=OFF
    phase "build ipt-demo"
    cmake --build "$build" -j "$jobs" --target ipt-demo
    phase "run ipt-demo"
    "$build/tools/ipt-demo"
    phase "demo done"
    ;;
  test-fast)
    install_missing "${test_packages[@]}"
    configure_and_build "$build" "${all_parts[@]}"
    run_tests "$build" "${needed_tests[@]}"
    echo "setup.sh test-fast: $total_passed passed, $total_failed failed, $total_skipped skipped"
    printf '%s' "$skips"
    ;;
  test)
    install_missing "${test_packages[@]}"
    # The release build first: it compiles every kernel variant the suite uses into
    # PoCL's kernel cache, so that the sanitized run finds them built (PoCL's compiler
    # runs in the test process, and under AddressSanitizer it took several times as
    # long). Kernels run the same in both builds; the sanitized run checks the host code.
    # Leak checking is off there: on a fresh Debian 12, LeakSanitizer's own tracer
    # crashed at exit (signal 11) in a process with PoCL's worker threads, failing a test
    # that had passed. Run ctest in build-asan by hand for leak checks (driver leaks
    # suppressed by tests/sanitizers/lsan.supp).
    configure_and_build "$build" "${all_parts[@]}"
    run_tests "$build" "${needed_tests[@]}"
    # The sanitized builds: -O1, as the sanitizers' documentation advises, with line
    # tables only (-g1) instead of full debug information. The reports name the same
    # functions, files and lines, inlined frames included; what is left out (variables,
    # types) serves a debugger only. A test file compiled in 6.5 s with AddressSanitizer
    # at -O1, 10.5 s at -O2.
    sanitized_flags=("-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
                     "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
    # libipt_mpi is tested in the release build only (Open MPI's own code is not
    # instrumented; its calls are few and plain), and so are the tools' programs (their
    # shared code, tools/support, is in the unit tests here).
    configure_and_build "$build-asan" -DIPT_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "${sanitized_flags[@]}" -DIPT_BUILD_MPI=OFF -DIPT_BUILD_TOOLS=OFF
    ASAN_OPTIONS=detect_leaks=0 run_tests "$build-asan"
    # ThreadSanitizer: races in the library's caches and in the calls of many threads
    # (tests/api/test_threads.cpp); each test fails at its first report. PoCL's own code is
    # not instrumented; tests/sanitizers/tsan.supp says what of it is suppressed, and why.
    # Only what its test cases need: no tools, Fortran or Python (the first two builds
    # test those).
    configure_and_build "$build-tsan" -DIPT_SANITIZE=thread -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "${sanitized_flags[@]}" -DIPT_BUILD_TOOLS=OFF -DIPT_BUILD_FORTRAN=OFF -DIPT_BUILD_PYTHON=OFF -DIPT_BUILD_MPI=OFF
    run_tests "$build-tsan"
    # The planner and the C API's argument checking under libFuzzer, 30 s each with a
    # fresh seed (printed, so that a failure can be replayed).
    phase "fuzzing"
    fuzz_log=$(mktemp)
    BUILD_DIR="$build-fuzz" JOBS="$jobs" bash "$root/tools/fuzz.sh" | tee "$fuzz_log"
    fuzzed=$(sed -nE 's/^fuzz: ([0-9]+) passed.*/\1/p' "$fuzz_log")
    rm -f "$fuzz_log"
    phase "all tests passed"
    # Every phase's count: three ctest runs and the fuzz targets.
    echo "setup.sh test: $((total_passed + fuzzed)) passed, $total_failed failed, $total_skipped skipped"
    printf '%s' "$skips"
    ;;
  *)
    echo "usage: $0 demo|test|test-fast" >&2
    exit 2
    ;;
esac
