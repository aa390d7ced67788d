#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Elementary kernels (BS, PTTWAC, SoA-ASTA 100!/0100!/1000!) on the NVIDIA GPU machine:
# the [elementary] tests repeated (a race shows only sometimes), the same tests with
# -cl-opt-disable (different timing exposed the original kernels' races), then the
# per-kernel benchmarks. Logs and CSVs go under $OUT.
#   bash tools/device/elementary_check.sh [repeats] [opt-disable-repeats] [bench|nobench]
set -uo pipefail
repeats=${1:-20}
o0_repeats=${2:-5}
bench=${3:-bench}
source "$(dirname "${BASH_SOURCE[0]}")/prepare_gpu_machine.sh"
tests=build-gpu/tests/ipt_internal_tests
status=0
# One log per phase (the device tool brings back at most 8 files); each phase is
# time-boxed by ELEMENTARY_SECONDS so that the whole call fits the tool's limit.
budget=${ELEMENTARY_SECONDS:-240}
run_phase() {  # $1 log name, $2 repeats, then the environment for the runs
  local log=$out/$1 count=$2 start=$SECONDS done=0
  shift 2
  : > "$log"
  for i in $(seq 1 "$count"); do
    ((SECONDS - start < budget)) || { echo "$1: time box reached after $done runs" | tee -a "$log"; break; }
    echo "== run $i" >> "$log"
    env "$@" $tests "[elementary]" >> "$log" 2>&1 || { status=1; echo "$1: run $i FAILED"; }
    done=$i
  done
  echo "$1: $done runs, $(grep -c 'All tests passed' "$log") passed"
}
run_phase elementary.log "$repeats" IPT_DEVICE="$IPT_DEVICE"
run_phase elementary-O0.log "$o0_repeats" IPT_DEVICE="$IPT_DEVICE" IPT_BUILD_OPTIONS=-cl-opt-disable
if [ "$bench" = bench ]; then
  b="timeout 120 build-gpu/tools/ipt-kernel-bench"
  { date +%T; $b soa --type 4 --csv "$out/kernel-soa-f32.csv"
    date +%T; $b bs-vs-pttwac --type 4 --csv "$out/kernel-bs-vs-pttwac-f32.csv"
    date +%T; $b pttwac-spreading --type 4 --csv "$out/kernel-pttwac-spreading-f32.csv"
    date +%T; } 2>&1 | tee "$out/kernel-bench.log"
fi
exit $status
