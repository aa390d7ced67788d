#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole GPU verification in one command, on the NVIDIA GPU machine (the device tool):
#   1. the test suite (ctest) on NVIDIA's OpenCL driver;
#   2. the cycle-following and on-chip tests ([pttwac], [soa], [onchip], [onchip_stage]:
#      flags, spin-waits and grid barriers, whose races show only on a GPU and only
#      sometimes) repeated, and the thread stress tests ([threads]) repeated;
#   3. the huge matrices: f32 and f64 matrices of more than 2^32 elements up to one
#      allocation of the device, with prime, padded and skinny shapes, in buffers of
#      exactly the matrix, each verified in full on the device and timed (ipt-bench shapes);
#   4. ipt.cuda: PyTorch tensors and CuPy arrays transposed in place, one of 62% of the
#      GPU's memory among them (python/tests/test_cuda_gpu.py);
# then a summary, ending in "gpu-verify: N passed, N failed".
#
#   bash tools/device/verify_gpu.sh
#
# Run it before a release, after changing a kernel, the launcher or the executor, and
# after a driver update. Environment: SUITE (0 skips phase 1: with many REPEATS, a hunt
# for a rare failure), REPEATS (default 5) and REPEAT_SECONDS (default 150,
# the time box of each repeated phase), HUGE (0 skips phase 3), CUDA_ARRAYS (0 skips phase
# 4) and CUDA_LARGE (0 leaves out its largest tensor), IPT_COMMIT (the commit
# recorded in ipt-bench's summaries), TEST_TIMEOUT (default 300: the seconds after which a
# test of the suite or a repeated run counts as hung and is stopped), STRESS_PROCESSES
# (default 4: the thread stress processes run at once in phase 2). The device tool
# brings back at most 8 files: logs go to $OUT/{suite,repeats}.log, the huge shapes' logs,
# CSVs and JSONs to $OUT/huge.tar.gz, the summary to $OUT/summary.txt, phase 4's log to
# $OUT/cuda-arrays.log, what a hung run was doing to $OUT/hangs.log.
#
# A hang (a kernel that spins, a deadlock on the host) fails its test or run instead of
# taking the rest of the call with it: the device tool stops a command after a few
# minutes, and what it has not written by then is lost.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/prepare_gpu_machine.sh"
repeats=${REPEATS:-5}
box=${REPEAT_SECONDS:-150}
summary=$out/summary.txt
: > "$summary"
passed=0
failed=0
record() {  # $1 ok|FAILED, $2 what
  printf '%-7s %s\n' "$1" "$2" | tee -a "$summary"
  if [ "$1" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
started=$SECONDS
limit=${TEST_TIMEOUT:-300}

# The test binaries write every thread's stack on SIGUSR1 (tests/helpers/stack_dump.hpp),
# here, for machines without a debugger to attach.
export IPT_TEST_STACKS_DIR=/tmp/ipt-stacks
mkdir -p "$IPT_TEST_STACKS_DIR"

# What process $1 (the command $2, running for $3 s) is doing: the GPU's load (a kernel
# that spins keeps it busy), each thread's state, and the stacks, with the kernels on the
# GPU where cuda-gdb can attach. Without a debugger, a test binary's own stack dump,
# asked for only of a process that blocks SIGUSR1 (a test binary: to any other process
# the signal would be fatal).
hang_report() {
  local debugger
  debugger=$(command -v cuda-gdb || ls /usr/local/cuda/bin/cuda-gdb 2> /dev/null || command -v gdb)
  exec 9>> "$out/hangs.log"
  flock 9  # one report at a time: processes run at once in phase 2
  {
    echo "== running for $3 s: $2"
    nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader
    for t in /proc/"$1"/task/*; do
      echo "$(cat "$t/comm") $(cat "$t/wchan") $(cut -d' ' -f3 "$t/stat")"
    done | sort | uniq -c
    local blocked
    blocked=$(awk '/^SigBlk:/ { print $2 }' /proc/"$1"/status 2> /dev/null)
    if [ -n "$debugger" ]; then
      timeout 120 "$debugger" -p "$1" -batch -ex "info cuda kernels" -ex "thread apply all bt 16"
    elif [ -n "$blocked" ] && (((0x$blocked >> 9) & 1)); then
      kill -USR1 "$1" && sleep 5
      python3 "$(dirname "${BASH_SOURCE[0]}")/symbolize_stacks.py" \
        < "$IPT_TEST_STACKS_DIR/stacks-$1.txt"
    else
      echo "no debugger here, and the process writes no stacks of its own"
    fi
  } >&9 2>&1
  exec 9>&-
}
# Runs the command in "$@" and stops it when it runs past $limit s (exit status 124).
watched() {
  "$@" &
  local pid=$! start=$SECONDS
  while kill -0 $pid 2> /dev/null; do
    if ((SECONDS - start >= limit)); then
      hang_report $pid "$*" $((SECONDS - start))
      kill -9 $pid
      wait $pid 2> /dev/null
      return 124
    fi
    sleep 1
  done
  wait $pid
}

# Reports each of the suite's test processes that runs for nearly $limit s, before ctest
# stops it (ctest's timeout says only that it ran out of time).
watch_suite() {
  local reported=" " pid seconds
  while sleep 5; do
    for pid in $(pgrep -f "$PWD/build-gpu/tests/"); do
      seconds=$(ps -o etimes= -p "$pid" | tr -d ' ')
      if [ -n "$seconds" ] && ((seconds >= limit - 20)) && [[ $reported != *" $pid "* ]]; then
        hang_report "$pid" "$(tr '\0' ' ' < /proc/"$pid"/cmdline)" "$seconds"
        reported+="$pid "
      fi
    done
  done
}

# 1. The suite.
# debian_packages is left to the Debian machines of the CI suite: it installs packages
# with apt-get from Debian's archive, which the GPU machine (another distribution, no
# network) cannot reach.
if [ "${SUITE:-1}" != 0 ]; then
  watch_suite &
  watcher=$!
  (cd build-gpu && ctest --output-on-failure -j 4 --timeout "$limit" -E '^debian_packages$' \
    > "$out/suite.log" 2>&1)
  code=$?
  kill $watcher 2> /dev/null
  line=$(grep -E 'tests passed(, [0-9]+ tests? failed)? out of [0-9]+' "$out/suite.log" | tail -1)
  # ctest exits 0 when it finds no tests (a build without them): that is no pass.
  if [ $code -eq 0 ] && [[ $line =~ ^100%\ tests\ passed.*\ out\ of\ [1-9][0-9]*$ ]]; then
    record ok "suite: $line"
  else
    record FAILED "suite: ${line:-no tests ran, ctest exit $code}"
  fi
fi

# Runs $1 processes of the command in "$@" at once, each watched; fails when one fails.
watched_copies() {
  local copies=$1 pids=() code=0 pid k
  shift
  for k in $(seq 1 "$copies"); do
    watched "$@" > "/tmp/verify-copy-$k.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || code=1; done
  for k in $(seq 1 "$copies"); do cat "/tmp/verify-copy-$k.log"; done
  return $code
}

# 2. Repeats, each phase time-boxed; a run counts once however many test cases it holds.
repeat() {  # $1 name, $2 binary, $3 Catch2 test spec, $4 processes at once (default 1)
  local start=$SECONDS runs=0 bad=0
  for i in $(seq 1 "$repeats"); do
    ((SECONDS - start < box)) || break
    echo "== $1, run $i" >> "$out/repeats.log"
    watched_copies "${4:-1}" "$2" "$3" >> "$out/repeats.log" 2>&1 || bad=$((bad + 1))
    runs=$i
  done
  [ $bad -eq 0 ] && [ $runs -gt 0 ] && record ok "$1: $runs runs" ||
    record FAILED "$1: $bad of $runs runs failed"
}
: > "$out/repeats.log"
repeat "cycle following, on chip, undo" build-gpu/tests/ipt_internal_tests \
  "[pttwac],[soa],[onchip],[onchip_stage],[faults]"
# Several processes at once: a failure that depends on timing (the hang inside NVIDIA's
# driver of docs/troubleshooting.md) showed in about three times as many runs so.
repeat "thread stress, ${STRESS_PROCESSES:-4} processes at once" build-gpu/tests/ipt_api_tests \
  "[threads]" "${STRESS_PROCESSES:-4}"

# 3. Huge matrices, verified on the device (ipt-bench's default) in exact buffers.
if [ "${HUGE:-1}" != 0 ]; then
  dir=/tmp/huge
  mkdir -p "$dir"
  for spec in f32:large f64:huge-f64; do
    type=${spec%%:*}
    file=${spec#*:}
    timeout 240 build-gpu/tools/ipt-bench shapes --shapes-file "tools/bench/shapes/$file.txt" \
      --type "$type" --reps 3 --buffer exact --baselines none --csv "$dir/$file-$type.csv" \
      --json "$dir/$file-$type.json" > "$dir/$file-$type.log" 2>&1
    code=$?
    rows=$(($(wc -l < "$dir/$file-$type.csv" 2>/dev/null || echo 1) - 1))
    shapes=$(grep -vc '^#' "tools/bench/shapes/$file.txt")
    cat "$dir/$file-$type.log"
    [ $code -eq 0 ] && [ "$rows" -eq "$shapes" ] &&
      record ok "huge $type ($file.txt): $rows shapes verified" ||
      record FAILED "huge $type ($file.txt): exit $code, $rows of $shapes shapes"
  done
  tar czf "$out/huge.tar.gz" -C "$dir" .
fi

# 4. ipt.cuda: PyTorch tensors and CuPy arrays in place, through the build's Python package
# (the suite above registers no Python test here: the machine's Python has no pyopencl).
# pytest: the interpreter's own, else Debian's packages carried in .device/pydebs
# (apt-get download python3-pytest python3-pluggy python3-iniconfig python3-packaging
# python3-py).
if [ "${CUDA_ARRAYS:-1}" != 0 ]; then
  pythonpath=build-gpu/python
  autoload=
  if ! python3 -c 'import pytest' 2> /dev/null && ls .device/pydebs/*.deb > /dev/null 2>&1; then
    rm -rf /tmp/pydebs && mkdir -p /tmp/pydebs
    for f in .device/pydebs/*.deb; do dpkg -x "$f" /tmp/pydebs; done
    pythonpath=$pythonpath:/tmp/pydebs/usr/lib/python3/dist-packages
    # The interpreter's own pytest plugins (pytest-timeout) were written for a newer pytest
    # than Debian's and abort it while it registers them: none of them is needed here.
    autoload=1
  fi
  PYTEST_DISABLE_PLUGIN_AUTOLOAD=$autoload PYTHONPATH=$pythonpath IPT_CUDA_LARGE=${CUDA_LARGE:-1} python3 -m pytest -q -rs \
    -p no:cacheprovider python/tests/test_cuda.py python/tests/test_cuda_gpu.py \
    > "$out/cuda-arrays.log" 2>&1
  code=$?
  line=$(tail -1 "$out/cuda-arrays.log")
  # Every test ran: a skip here (no PyTorch, no CuPy, no OpenCL device) is a failure.
  if [ $code -eq 0 ] && ! grep -q skipped <<< "$line"; then
    record ok "ipt.cuda (PyTorch, CuPy): $line"
  else
    record FAILED "ipt.cuda (PyTorch, CuPy): ${line:-pytest exit $code}"
  fi
fi

[ -s "$out/hangs.log" ] && echo "hung: threads and stacks in hangs.log" | tee -a "$summary"
echo "== $((SECONDS - started)) s after the build" | tee -a "$summary"
echo "gpu-verify: $passed passed, $failed failed" | tee -a "$summary"
[ $failed -eq 0 ]
