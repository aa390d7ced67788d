#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Build, test and benchmark on the NVIDIA GPU machine reached through the device tool
# (tools/device/prepare_gpu_machine.sh): registers the NVIDIA OpenCL driver, unpacks the
# Catch2/CLBlast packages carried in .device/, then writes logs and CSVs under $OUT.
#   bash tools/device/gpu_check.sh [test-repeats] [bench|nobench]
set -uo pipefail
repeats=${1:-3}
bench=${2:-bench}
source "$(dirname "${BASH_SOURCE[0]}")/prepare_gpu_machine.sh"
status=0
for i in $(seq 1 "$repeats"); do
  (cd build-gpu && ctest --output-on-failure -j 4 > "$out/ctest-$i.log" 2>&1) || status=1
  tail -3 "$out/ctest-$i.log"
done
if [ "$bench" = bench ]; then
  b="timeout 100 build-gpu/tools/ipt-bench"
  { date +%T; $b square --sizes 16384,8192,4096,4099 --type f32 --reps 20 --csv "$out/square-f32.csv"
    date +%T; $b square --sizes 8192,11585,4096 --type f64 --reps 20 --csv "$out/square-f64.csv"
    date +%T; $b square --sizes 16384 --type f64 --reps 20 --csv "$out/square-f64-16384.csv"
    date +%T; $b square --sizes 16384 --type 16 --reps 10
    for t in "32,8" "32,2" "16,4"; do
      date +%T; echo "== f64 forced square.tile,square.wg_rows = $t"
      IPT_OVERRIDES="square.tile=${t%,*},square.wg_rows=${t#*,}" $b square --sizes 11585 --type f64 --reps 10 --no-verify | tail -1
    done
  } 2>&1 | tee "$out/bench.log"
fi
exit $status
