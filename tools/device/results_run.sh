#!/usr/bin/env bash
# On the GPU machine: the benchmark runs of the random, skinny and study protocols, in
# parts that each fit one device call. CSV/JSON/logs go
# to $OUT.
#   bash tools/device/results_run.sh random-f32|random-f64|skinny|studies [count]
# random-f32 also writes the shapes file and, when build-peer/inplace holds a checkout of
# bryancatanzaro/inplace (never committed), runs the peer on the same shapes.
set -uo pipefail
part=$1
count=${2:-200}
source "$(dirname "${BASH_SOURCE[0]}")/prepare_gpu_machine.sh"
bench=build-gpu/tools/ipt-bench
run() { echo "== $*"; date +%T; "$@"; }
case $part in
  random-f32 | random-f64)
    t=${part#random-}
    run $bench random --count "$count" --type "$t" --shapes-out "$out/random-shapes.txt" \
      --csv "$out/random-$t.csv" --json "$out/random-$t.json" | tail -8
    if [ -f build-peer/inplace/inplace/transpose.h ]; then
      REPS=3 MODE=random run bash tools/compare/run_catanzaro.sh build-peer/inplace /tmp/peer \
        "$out/random-shapes.txt" "$t" 2>&1 | tail -12
      cp /tmp/peer/*.csv "$out/" 2>/dev/null
    fi ;;
  skinny)
    for t in f32 f64; do
      run $bench skinny --count "$count" --type $t --shapes-out "$out/skinny-shapes.txt" \
        --csv "$out/skinny-$t.csv" --json "$out/skinny-$t.json" | tail -8
      if [ -f build-peer/inplace/inplace/transpose.h ]; then
        REPS=3 MODE=skinny run bash tools/compare/run_catanzaro.sh build-peer/inplace /tmp/peer \
          "$out/skinny-shapes.txt" "$t" 2>&1 | tail -12
        cp /tmp/peer/*.csv "$out/" 2>/dev/null
      fi
    done ;;
  studies)
    for t in f32 f64; do
      run $bench square --sizes 16384,8192,4099 --type $t --csv "$out/square-$t.csv" | tail -6
    done
    run $bench sequences --count "$count" --csv "$out/sequences-f32.csv" | tail -14
    run $bench tiles --count $((count / 2)) --reps 3 --csv "$out/tiles-f32.csv" | tail -6
    run $bench padding --count $((count * 2)) --csv "$out/padding-f32.csv" | tail -6
    run $bench kernels soa --csv "$out/kernels-soa-f32.csv" --reps 3 | tail -4 ;;
esac
