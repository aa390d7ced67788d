#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A test binary asked for its stacks (SIGUSR1, tests/helpers/stack_dump.hpp) writes every
# thread's, each thread answering, and goes on to pass: the thread stress tests run, a
# dump is asked for once their threads have started, and tools/device/symbolize_stacks.py
# must find the test binary's main in the main thread's stack.
#   stack_dump.sh TEST_BINARY SOURCE_DIR
set -uo pipefail
binary=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAILED: $*"
  for f in "$work"/*; do echo "== $f"; head -c 20000 "$f"; done
  exit 1
}
IPT_TEST_STACKS_DIR=$work "$binary" "[threads]" > "$work/run.log" 2>&1 &
pid=$!
# Installed: the main thread blocks SIGUSR1 (bit 9 of SigBlk); before that the signal
# would end the process.
for _ in $(seq 1 2000); do
  blocked=$(awk '/^SigBlk:/ { print $2 }' /proc/$pid/status 2> /dev/null)
  [ -n "$blocked" ] && (((0x$blocked >> 9) & 1)) && break
  kill -0 $pid 2> /dev/null || fail "the test binary ended before it blocked SIGUSR1"
  sleep 0.005
done
# Some of the stress tests' threads running (a task beyond the main and dumping threads).
for _ in $(seq 1 2000); do
  [ "$(ls /proc/$pid/task 2> /dev/null | wc -l)" -ge 4 ] && break
  sleep 0.005
done
kill -USR1 $pid || fail "the test binary ended before it was asked for its stacks"
wait $pid
status=$?
[ $status -eq 0 ] || fail "the test binary exited with $status after its dump"
dump=$work/stacks-$pid.txt
[ -s "$dump" ] || fail "no $dump"
grep -q "^== stacks of process $pid" "$dump" || fail "no heading in the dump"
grep -q "^== end$" "$dump" || fail "the dump did not end"
! grep -q "(no answer)" "$dump" || fail "a thread did not answer"
threads=$(grep -c "^-- thread " "$dump")
[ "$threads" -ge 3 ] || fail "$threads threads dumped, expected 3 or more"
# The main thread comes first; its stack reaches main.
python3 "$source_dir/tools/device/symbolize_stacks.py" < "$dump" > "$work/resolved.txt"
awk '/^-- thread /{n++} n==1' "$work/resolved.txt" | grep -q " main at " ||
  fail "the main thread's stack does not reach main"
echo "stack dump: $threads threads, every one answered; the run passed"
