#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The installed tools' command lines: --help (and -h) prints the usage on stdout and
# exits 0 without running anything; a bad argument prints it on stderr and exits 2; every
# number is parsed strictly; --help is complete without the source; a refused plan
# prints the library's reason; the manual pages (tools/man) render without warnings and
# name every option and mode of their tool's --help, and the other way round.
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
if grep -q "(this build has it)" <<< "$("$bench" --help)"; then
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
if grep -q "transpositions verified" <<< "$("$demo" --help)"; then echo "FAIL: ipt-demo --help ran the demo"; fail=1; fi
# ---- Strict numbers: each bad form, at each kind of place, exits 2 with a message that
# names the argument and quotes the text (std::stoull took "1e3" as 1 and wrapped "-5").
# A value wrongly accepted would start a measurement: the time limit ends it as a failure.
bad_forms=(x 1e3 -5 +5 0x10 12abc "" " 5" 1,000 1.5 18446744073709551616)
refused() {  # $1 the argument's name expected in the message, $2 the bad text, then the command
  local name=$1 text=$2 err status
  shift 2
  err=$(timeout 30 "$@" 2>&1 > /dev/null)
  status=$?
  if [ "$status" != 2 ]; then
    echo "FAIL: $(printf '%q ' "$@")exited $status, expected 2 ($err)"; fail=1
  elif ! grep -qF -- "$name: '$text'" <<< "$err"; then
    echo "FAIL: $(printf '%q ' "$@")did not say \"$name: '$text'\": $err"; fail=1
  elif grep -q "stoull\|stoi\|stol" <<< "$err"; then
    echo "FAIL: $(printf '%q ' "$@")leaked a C++ function name: $err"; fail=1
  fi
}
for bad in "${bad_forms[@]}"; do
  refused ROWS "$bad" "$plan" "$bad" 100
  refused COLS "$bad" "$plan" 100 "$bad"
  refused ELEM_SIZE "$bad" "$plan" 100 100 "$bad"
  refused --batch "$bad" "$plan" --batch "$bad" 100 100
  refused RANKS "$bad" "$plan" mpi "$bad" 100 100
  refused --staging "$bad" "$plan" mpi 4 100 100 --staging "$bad"
  refused --rank "$bad" "$plan" mpi 4 100 100 --rank "$bad"
  refused --count "$bad" "$bench" random --count "$bad"
  refused --reps "$bad" "$bench" square --reps "$bad"
  refused --batch "$bad" "$bench" batched --batch "$bad"
  refused --mib "$bad" "$kernel_bench" soa --mib "$bad"
  refused --reps "$bad" "$kernel_bench" soa --reps "$bad"
done
# Items of lists and shapes, each as strict as a single number.
# (No 'x' in these: within a shape it separates the sides.)
for bad in 1e3 -5 +5 12abc 1.5 18446744073709551616; do
  refused --sizes "$bad" "$bench" square --sizes "16384,$bad"
  refused --shapes "$bad" "$bench" shapes --shapes "7200x1800,${bad}x5"
  refused --slices "$bad" "$bench" host --slices "2,$bad"
  refused --sizes "$bad" "$kernel_bench" square --sizes "$bad,1024"
  refused --band-widths "$bad" "$kernel_bench" square --band-widths "8,$bad"
  refused --shapes "$bad" "$kernel_bench" onchip --shapes "4x${bad}x5"
  refused DIMS "$bad" "$plan" permute "4,$bad" 1,0
  refused PERM "$bad" "$plan" permute 4,5 "1,$bad"
done
# Values past the type's range: --reps is an int, --threads an unsigned.
refused --reps 2147483648 "$bench" random --reps 2147483648
refused --threads 4294967296 "$bench" host --threads 4294967296
# Empty items and malformed shapes are refused, not skipped or half-read.
list_refused() {  # $1 words expected, then the command
  local words=$1 err status
  shift
  err=$(timeout 30 "$@" 2>&1 > /dev/null)
  status=$?
  if [ "$status" != 2 ] || ! grep -qF -- "$words" <<< "$err"; then
    echo "FAIL: $(printf '%q ' "$@")exited $status with '$err', expected 2 and '$words'"; fail=1
  fi
}
list_refused "--sizes: '16384,,8192' has an empty item" "$bench" square --sizes 16384,,8192
list_refused "--sizes: '16384,' has an empty item" "$bench" square --sizes 16384,
list_refused "--shapes: '7200' is not of the form ROWSxCOLS" "$bench" shapes --shapes 7200
list_refused "DIMS has 2 axes, PERM 3" "$plan" permute 4,5 0,1,2
list_refused "--soa-shapes: '1x2x3' is not of the form IxAxBxC" "$kernel_bench" soa --soa-shapes 1x2x3
list_refused "--band-widths: a band is 1 tile column or more" "$kernel_bench" square --band-widths 8,0
shapes_file=$(mktemp)
printf '7200 1800\n-5 100\n' > "$shapes_file"
list_refused "--shapes-file line 2: '-5' is not a number" "$bench" shapes --shapes-file "$shapes_file"
rm -f "$shapes_file"
bench_mpi=$(dirname "$bench")/ipt-bench-mpi
if [ -x "$bench_mpi" ]; then
  for bad in x -5 1e3 ""; do refused --staging "$bad" "$bench" mpi --staging "$bad"; done
  for bad in -5 1e3 0X10; do refused --shapes "$bad" "$bench" mpi --shapes "8192x$bad"; done
  list_refused "--fill takes fractions in (0, 1), not '1e-1'" "$bench" mpi --fill 1e-1
fi
echo "ok: strict numbers (${#bad_forms[@]} bad forms in each place)"

# ---- A refused plan: the status and, after it, the library's detailed reason (here the
# element size the call was given, which the status string alone does not say).
err=$("$plan" 100 100 3 2>&1 > /dev/null)
status=$?
if [ "$status" != 1 ] || ! grep -Eq "^ipt-plan: IPT_INVALID_ELEMENT_SIZE: [^;]*; .*\b3\b" <<< "$err"; then
  echo "FAIL: ipt-plan 100 100 3 exited $status with '$err', expected 1, the status and the reason"
  fail=1
else
  echo "ok: a refused plan prints the library's reason: $err"
fi

# ---- --help is complete on its own: no pointer to the source, every mode named.
help_names() {  # $1 the tool's name, $2 its --help text, then the names it must hold
  local tool=$1 text=$2
  shift 2
  if grep -Eqi "see the source|source's|header comment" <<< "$text"; then
    echo "FAIL: $tool --help points to the source: $(grep -Ei "source|header comment" <<< "$text")"
    fail=1
  fi
  for name in "$@"; do
    grep -qF -- "$name" <<< "$text" || { echo "FAIL: $tool --help does not name '$name'"; fail=1; }
  done
}
bench_help=$("$bench" --help)
kernel_help=$("$kernel_bench" --help)
plan_help="$("$plan" --help)
$("$plan" mpi --help)"
demo_help=$("$demo" --help)
bench_modes=(random skinny square shapes sequences tiles padding kernels latency batched imatcopy host mpi)
kernel_modes=(soa bs-vs-pttwac pttwac-spreading restride stages plans square onchip)
help_names ipt-bench "$bench_help" "${bench_modes[@]/#/  }" oop-kernel clblast-omatcopy \
  "CSV columns" "JSON" "copy bandwidth" "Exit status"
help_names ipt-kernel-bench "$kernel_help" "${kernel_modes[@]/#/  }" "copy bandwidth" "Exit status"
help_names ipt-plan "$plan_help" "ipt-plan mpi" "IPT_DEVICE" "Exit status"
help_names ipt-demo "$demo_help" "copy bandwidth" "IPT_DEVICE" "Exit status"
# The modes the help names are the modes the tool takes: each one gets past the mode
# check (to the first bad option; kernels and mpi run programs of their own).
for mode in "${bench_modes[@]}"; do
  [ "$mode" = kernels ] || [ "$mode" = mpi ] && continue
  err=$("$bench" "$mode" --no-such-option 2>&1 > /dev/null)
  grep -q "unknown option --no-such-option" <<< "$err" ||
    { echo "FAIL: ipt-bench $mode: $err"; fail=1; }
done
for mode in "${kernel_modes[@]}"; do
  err=$("$kernel_bench" "$mode" --no-such-option 2>&1 > /dev/null)
  grep -q "unknown option --no-such-option" <<< "$err" ||
    { echo "FAIL: ipt-kernel-bench $mode: $err"; fail=1; }
done
# An option a mode cannot honour is refused, not ignored.
err=$("$kernel_bench" stages --shapes 10x20 --csv /dev/null 2>&1 > /dev/null)
code=$?
[ $code -eq 2 ] && grep -q "stages writes no --csv" <<< "$err" ||
  { echo "FAIL: ipt-kernel-bench stages --csv: exit $code, $err"; fail=1; }

# ---- Manual pages: rendered without a warning, and naming the same options as --help.
man_dir=$(cd "$(dirname "$0")/../../tools/man" && pwd)
options_of() { grep -oE -- '--[a-z][a-z0-9-]*' | sort -u; }
man_text() { sed 's/\\-/-/g' "$man_dir/$1.1"; }
check_man() {  # $1 the tool, $2 its --help text, then the modes its page must describe
  local tool=$1 text=$2 page=$man_dir/$1.1 warnings
  shift 2
  if [ ! -f "$page" ]; then echo "FAIL: no manual page $page"; fail=1; return; fi
  warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 > /dev/null)
  if [ -n "$warnings" ]; then echo "FAIL: $page renders with warnings: $warnings"; fail=1; fi
  head -1 "$page" | grep -q "SPDX-License-Identifier: Apache-2.0" ||
    { echo "FAIL: $page does not start with its SPDX line"; fail=1; }
  for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT EXAMPLES "SEE ALSO"; do
    grep -q "^\.SH \"\?$section\"\?$" "$page" || { echo "FAIL: $page has no $section"; fail=1; }
  done
  local in_help in_man page_text
  page_text=$(man_text "$tool")
  in_help=$(options_of <<< "$text")
  in_man=$(options_of <<< "$page_text")
  for option in $(comm -23 <(echo "$in_help") <(echo "$in_man")); do
    echo "FAIL: $tool --help has $option, its manual page does not"; fail=1
  done
  for option in $(comm -13 <(echo "$in_help") <(echo "$in_man")); do
    echo "FAIL: $tool's manual page has $option, its --help does not"; fail=1
  done
  for mode in "$@"; do
    grep -qE "^\.BR? $mode( |$)" <<< "$page_text" ||
      { echo "FAIL: $tool's manual page does not describe the mode $mode"; fail=1; }
  done
  echo "ok: $page"
}
check_man ipt-bench "$bench_help" "${bench_modes[@]}"
check_man ipt-kernel-bench "$kernel_help" "${kernel_modes[@]}"
check_man ipt-plan "$plan_help" mpi
check_man ipt-demo "$demo_help"
if [ -x "$bench_mpi" ]; then
  check_man ipt-bench-mpi "$("$bench_mpi" --help)"
else
  echo "ok: no ipt-bench-mpi in this build; its manual page is checked where it is built"
fi
exit $fail
