#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Is a hang of the thread stress tests the driver's or libipt's? Runs ipt-driver-stress
# (libipt's stress pattern without libipt: tools/device/driver_stress.cpp) on the GPU
# machine with each way of releasing scratch named (default: callback thread caller),
# PROCESSES (default 4) processes at once for STRESS_SECONDS (default 60) each, and
# prints a line per way: how many processes hung. What the hung or failed processes
# printed goes to $OUT/driver-stress.log. STRESS_ARGS: more arguments for each process
# (e.g. "--builders 16 --variants 16": see ipt-driver-stress --help).
#   bash tools/device/driver_stress.sh [WAY...]
set -uo pipefail
IPT_CMAKE_ARGS="-DIPT_BUILD_TESTS=OFF ${IPT_CMAKE_ARGS:-}"
source "$(dirname "${BASH_SOURCE[0]}")/prepare_gpu_machine.sh"
processes=${PROCESSES:-4}
seconds=${STRESS_SECONDS:-60}
ways=("$@")
[ ${#ways[@]} -eq 0 ] && ways=(callback thread caller)
log=$out/driver-stress.log
: > "$log"
for way in "${ways[@]}"; do
  hung=0
  failed=0
  pids=()
  for k in $(seq 1 "$processes"); do
    # The tool's watchdog ends a hung run (exit 3); the timeout only one it cannot.
    timeout -s KILL $((seconds + 120)) build-gpu/tools/ipt-driver-stress --release "$way" \
      --seconds "$seconds" ${STRESS_ARGS:-} > "/tmp/driver-stress-$k.log" 2>&1 &
    pids+=($!)
  done
  for k in $(seq 1 "$processes"); do
    wait "${pids[$((k - 1))]}"
    code=$?
    [ $code -eq 0 ] && continue
    if [ $code -eq 3 ] || [ $code -eq 137 ]; then hung=$((hung + 1)); else failed=$((failed + 1)); fi
    { echo "== --release $way, process $k: exit $code"; cat "/tmp/driver-stress-$k.log"; } >> "$log"
  done
  echo "--release $way ${STRESS_ARGS:-}: $hung of $processes processes hung, $failed failed, in $seconds s" | tee -a "$log"
done
