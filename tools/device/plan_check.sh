#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the GPU machine: the whole suite once, then where the time of whole transpositions
# goes (ipt-kernel-bench stages) and the random protocol (ipt-bench random) for f32 and f64.
#   bash tools/device/plan_check.sh [random-count] [test|notest]
set -uo pipefail
count=${1:-100}
tests=${2:-test}
source "$(dirname "${BASH_SOURCE[0]}")/prepare_gpu_machine.sh"
status=0
if [ "$tests" = test ]; then
  (cd build-gpu && ctest --output-on-failure -j 4 > "$out/ctest.log" 2>&1) || status=1
  tail -3 "$out/ctest.log"
fi
shapes=$(build-gpu/tools/ipt-bench random --count 16 --seed 77 --list-shapes 2>/dev/null ||
  echo 7200x1800,6203x6607,10007x3001,12345x6789,19997x1009,4096x12288,15000x9000,9973x19001)
{ date +%T; timeout 120 build-gpu/tools/ipt-kernel-bench stages --shapes "$shapes" --reps 5
  for t in f32 f64; do
    date +%T; timeout 240 build-gpu/tools/ipt-bench random --count "$count" --type $t --reps 5 \
      --csv "$out/random-$t.csv" | tail -4
  done
} 2>&1 | tee "$out/plan-bench.log"
exit $status
