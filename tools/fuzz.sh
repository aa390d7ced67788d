#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets (tests/fuzz) with Clang and runs each for a bounded time
# on a copy of its seed corpus, so that runs never grow the repository.
#
#   bash tools/fuzz.sh                  about 30 s per target, after the build
#   FUZZ_SECONDS=600 bash tools/fuzz.sh a longer run by hand
#
# Environment: BUILD_DIR (default build-fuzz), FUZZ_SECONDS (per target, default 30),
# FUZZ_SEED (default: a fresh one, printed), JOBS, IPT_DEVICE (the API fuzzer's device).
# A crashing input is kept under $BUILD_DIR/fuzz-crashes/<target>/ and the command that
# replays it is printed. Exits non-zero when any target fails; the last line reads
# "fuzz: N passed, N failed".
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
seconds=${FUZZ_SECONDS:-30}
jobs=${JOBS:-$(nproc)}
# libFuzzer takes a 32-bit seed; two $RANDOMs make 30 bits, fresh on every run.
seed=${FUZZ_SEED:-$(((RANDOM << 15 | RANDOM) + 1))}
targets=(ipt_fuzz_planner ipt_fuzz_api)

for tool in clang clang++; do
  if ! command -v "$tool" > /dev/null; then
    echo "fuzz: $tool not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2
    exit 2
  fi
done

# Only the fuzzers: no tests, tools or bindings (IPT_BUILD_FUZZERS builds everything it
# needs with coverage, AddressSanitizer and UBSan).
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIPT_BUILD_FUZZERS=ON -DIPT_BUILD_TESTS=OFF \
  -DIPT_BUILD_TOOLS=OFF -DIPT_BUILD_PYTHON=OFF -DIPT_BUILD_FORTRAN=OFF > /dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]}" > "$build/fuzz-build.log" 2>&1 || {
  tail -n 40 "$build/fuzz-build.log" >&2
  echo "fuzz: the build failed (all of it in $build/fuzz-build.log)" >&2
  exit 2
}

# Sanitizer settings of each target. The API fuzzer runs PoCL, whose compiler keeps its
# objects until exit (tests/sanitizers/lsan.supp) and whose worker threads have crashed
# LeakSanitizer at exit (tools/setup.sh): no leak checks there; the planner has them.
sanitizer_env() {  # $1 target
  local ubsan=UBSAN_OPTIONS=print_stacktrace=1
  case "$1" in
    ipt_fuzz_api) echo "ASAN_OPTIONS=detect_leaks=0 $ubsan" ;;
    *) echo "$ubsan" ;;
  esac
}

# libFuzzer flags of each target: inputs of a few dozen bytes say everything the targets
# read; an input may take long only where PoCL compiles kernels on first use.
fuzzer_flags() {  # $1 target
  case "$1" in
    ipt_fuzz_api) echo "-max_len=128 -timeout=120 -detect_leaks=0" ;;
    *) echo "-max_len=128 -timeout=30" ;;
  esac
}

passed=0
failed=0
index=0
for target in "${targets[@]}"; do
  target_seed=$((seed + index))
  index=$((index + 1))
  corpus=$build/fuzz-corpus/$target
  crashes=$build/fuzz-crashes/$target
  log=$build/fuzz-logs/$target.log
  rm -rf "$corpus"
  mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
  cp "$root/tests/fuzz/corpus/$target/"* "$corpus/"
  touch "$log.start"  # inputs kept by this run are newer
  env_vars=$(sanitizer_env "$target")
  echo "fuzz: $target for $seconds s, seed $target_seed"
  status=0
  # shellcheck disable=SC2046,SC2086  # the flags and variables are words
  env $env_vars "$build/tests/fuzz/$target" $(fuzzer_flags "$target") \
    -max_total_time="$seconds" -seed="$target_seed" -print_final_stats=1 \
    -artifact_prefix="$crashes/" "$corpus" > "$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: //p' "$log" | tail -n 1)
  coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2 || true)
  if ((status == 0)); then
    passed=$((passed + 1))
    echo "fuzz: $target passed: ${runs:-?} inputs, coverage ${coverage:-?}, corpus" \
      "$(find "$corpus" -type f | wc -l) files (seed $target_seed)"
    continue
  fi
  failed=$((failed + 1))
  grep -v '^#[0-9]' "$log" | tail -n 40
  input=$(find "$crashes" -type f -newer "$log.start" -print -quit)
  echo "fuzz: $target FAILED (exit $status, seed $target_seed); log: $log"
  if [[ -n $input ]]; then
    echo "fuzz: input kept at $input"
    echo "fuzz: replay: IPT_FUZZ_VERBOSE=1 $env_vars $build/tests/fuzz/$target $input"
  fi
done
echo "fuzz: $passed passed, $failed failed"
((failed == 0))
