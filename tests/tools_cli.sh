#!/usr/bin/env bash
# The installed tools' command lines: --help (and -h) prints the usage on stdout and
# exits 0 without running anything; a bad argument prints it on stderr and exits 2.
#   tools_cli.sh IPT_BENCH IPT_KERNEL_BENCH IPT_PLAN IPT_DEMO
set -uo pipefail
fail=0
expect() {  # $1 expected exit status, $2 "stdout" or "stderr" holds the usage, then the command
  local want=$1 stream=$2
  shift 2
  local out err status
  out=$(mktemp) err=$(mktemp)
  "$@" > "$out" 2> "$err"
  status=$?
  local usage_in=$out
  [ "$stream" = stderr ] && usage_in=$err
  if [ "$status" != "$want" ]; then
    echo "FAIL: $* exited $status, expected $want"; fail=1
  elif ! grep -q "usage: " "$usage_in"; then
    echo "FAIL: $* printed no usage on $stream"; fail=1
  elif [ "$stream" = stdout ] && [ -s "$err" ]; then
    echo "FAIL: $* wrote to stderr: $(head -c 200 "$err")"; fail=1
  else
    echo "ok: $* (exit $status)"
  fi
  rm -f "$out" "$err"
}
bench=$1 kernel_bench=$2 plan=$3 demo=$4
for tool in "$bench" "$kernel_bench" "$plan" "$demo"; do
  expect 0 stdout "$tool" --help
  expect 0 stdout "$tool" -h
done
expect 2 stderr "$bench" no-such-mode
expect 2 stderr "$bench" random --no-such-option
# The mpi mode's own options (its program, ipt-bench-mpi), where this build has it.
if "$bench" --help | grep -q "(this build has it)"; then
  expect 0 stdout "$bench" mpi --help
  expect 2 stderr "$bench" mpi --no-such-option
fi
expect 2 stderr "$kernel_bench" no-such-mode
expect 2 stderr "$plan" 7200
expect 2 stderr "$demo" --no-such-option
# ipt-plan mpi refuses, with the call's words and exit 1, what ipt_mpi_transpose refuses.
refuses() {  # $1 the words expected on stderr, then ipt-plan mpi's arguments
  local words=$1 err status
  shift
  err=$("$plan" mpi "$@" 2>&1 > /dev/null)
  status=$?
  if [ "$status" != 1 ] || ! grep -q "$words" <<< "$err"; then
    echo "FAIL: ipt-plan mpi $* exited $status with '$err', expected 1 and '$words'"; fail=1
  else
    echo "ok: ipt-plan mpi $* refused (exit 1)"
  fi
}
refuses "elem_size 3 is not" 4 100 100 3
refuses "leave" 4 100 100 4 --block-rows 10
refuses "staging budget is smaller" 2000 80000 77000 8 --scheme alltoall --staging 10
refuses "overflow" 2 1099511627776 1099511627776
# --help of the demo must not run it: it would print "all transpositions verified".
if "$demo" --help | grep -q "transpositions verified"; then echo "FAIL: ipt-demo --help ran the demo"; fail=1; fi
exit $fail
