#!/usr/bin/env bash
# One-stop set-up for a fresh Debian 12 machine (run as root): installs what is missing
# with apt-get, configures, builds, then runs the demo or the test suite.
#
#   bash tools/setup.sh demo       build and run ipt-demo on the default OpenCL device
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

# python3-*: the ipt Python package's tests and example (ctest registers them only when
# the interpreter imports all three). dpkg-dev, file, lintian: cpack's Debian packages and
# their test. clang, libclang-rt-14-dev (libFuzzer and the sanitizer runtimes of Debian
# 12's clang 14): the fuzzers of tools/fuzz.sh. libopenmpi-dev, openmpi-bin: libipt_mpi and its tests under
# mpirun.
packages=(cmake make g++ gfortran pkg-config ocl-icd-opencl-dev opencl-headers
          opencl-clhpp-headers catch2 pocl-opencl-icd python3-pyopencl python3-pytest
          python3-numpy dpkg-dev file lintian clang libclang-rt-14-dev libopenmpi-dev openmpi-bin)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
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
run_tests() {  # $1 build dir
  phase "ctest in $1"
  local log=$1/ctest-summary.log
  (cd "$1" && ctest --output-on-failure -j "$jobs") | tee "$log"
  local line total failed
  # "100% tests passed out of N", or "P% tests passed, F tests failed out of N"
  line=$(grep -E 'tests passed(, [0-9]+ tests? failed)? out of [0-9]+' "$log" | tail -n 1)
  total=$(sed -nE 's/.* out of ([0-9]+).*/\1/p' <<< "$line")
  failed=$(sed -nE 's/.*tests passed, ([0-9]+) tests? failed.*/\1/p' <<< "$line")
  total=${total:-0}
  failed=${failed:-0}
  total_passed=$((total_passed + total - failed))
  total_failed=$((total_failed + failed))
  phase "ctest in $1 done"
}

install_missing
case "$mode" in
  demo)
    configure_and_build "$build"
    "$build/tools/ipt-demo"
    ;;
  test-fast)
    configure_and_build "$build"
    run_tests "$build"
    ;;
  test)
    # The release build first: it compiles every kernel variant the suite uses into
    # PoCL's kernel cache, so that the sanitized run finds them built (PoCL's compiler
    # runs in the test process, and under AddressSanitizer it took several times as
    # long). Kernels run the same in both builds; the sanitized run checks the host code.
    # Leak checking is off there: on a fresh Debian 12, LeakSanitizer's own tracer
    # crashed at exit (signal 11) in a process with PoCL's worker threads, failing a test
    # that had passed. Run ctest in build-asan by hand for leak checks (driver leaks
    # suppressed by tests/sanitizers/lsan.supp).
    configure_and_build "$build"
    run_tests "$build"
    # libipt_mpi is tested in the release build only (Open MPI's own code is not
    # instrumented; its calls are few and plain).
    configure_and_build "$build-asan" -DIPT_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DIPT_BUILD_MPI=OFF
    ASAN_OPTIONS=detect_leaks=0 run_tests "$build-asan"
    # ThreadSanitizer: races in the library's caches and in the calls of many threads
    # (tests/test_threads.cpp); each test fails at its first report. PoCL's own code is
    # not instrumented; tests/sanitizers/tsan.supp says what of it is suppressed, and why.
    # Only what its test cases need: no tools, Fortran or Python (the first two builds
    # test those).
    configure_and_build "$build-tsan" -DIPT_SANITIZE=thread -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DIPT_BUILD_TOOLS=OFF -DIPT_BUILD_FORTRAN=OFF -DIPT_BUILD_PYTHON=OFF -DIPT_BUILD_MPI=OFF
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
    echo "setup.sh test: $((total_passed + fuzzed)) passed, $total_failed failed"
    ;;
  *)
    echo "usage: $0 demo|test|test-fast" >&2
    exit 2
    ;;
esac
