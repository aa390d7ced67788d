#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SoA-ASTA (100!/0100!) on the NVIDIA GPU machine: its tests repeated (a race shows only
# sometimes) and once with -cl-opt-disable, then the kernel sweep (TPDS Fig. 4), the
# same sweep on the 0100!/100! stages of real plans, and a short random run of whole
# transpositions with a stage profile. Logs and CSVs go under $OUT.
#   bash tools/device/soa_check.sh [repeats] [random-count]
set -uo pipefail
repeats=${1:-10}
count=${2:-20}
source "$(dirname "${BASH_SOURCE[0]}")/prepare_gpu_machine.sh"
tests=build-gpu/tests/ipt_internal_tests
status=0
: > "$out/soa-tests.log"
for i in $(seq 1 "$repeats"); do
  $tests "[soa],[pttwac]" >> "$out/soa-tests.log" 2>&1 || { status=1; echo "run $i FAILED"; }
done
IPT_BUILD_OPTIONS=-cl-opt-disable $tests "[soa]" >> "$out/soa-tests.log" 2>&1 || { status=1; echo "O0 FAILED"; }
echo "soa tests: $((repeats + 1)) runs, $(grep -c 'All tests passed' "$out/soa-tests.log") passed"
k="timeout 200 build-gpu/tools/ipt-kernel-bench"
{ $k soa --type 4 --reps 3 --csv "$out/kernel-soa-f32.csv"
  $k soa --type 4 --reps 3 --csv "$out/kernel-soa-stages-f32.csv" \
    --soa-shapes 72x100x18x100,1x72x1800x100,1x6204x56x118,56x66x118x94,1x15000x90x100,90x150x100x100
} > "$out/kernel-soa.log" 2>&1 || status=1
grep -E "copy|default" "$out/kernel-soa.log"
timeout 150 build-gpu/tools/ipt-bench random --count "$count" --type f32 --csv "$out/random-f32.csv" \
  2>&1 | tail -6
timeout 60 build-gpu/tools/ipt-kernel-bench stages --shapes 7200x1800,6203x6607,15000x9000,4096x12288 \
  --reps 3 2>&1 | tail -12
exit $status
