#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The runs behind docs/performance.md, on the NVIDIA GPU machine, in two parts that each
# fit one device call (back to back, the second reuses the first's build; on another
# machine it builds again and lists the same shapes):
#
#   IPT_COMMIT=<sha> bash tools/device/headline_run.sh ipt     # libipt's protocols
#   IPT_COMMIT=<sha> bash tools/device/headline_run.sh peers   # the peers, same shapes
#
# ipt: ipt-bench random (f32, f64, u8, f16), primes, skinny (f32, f64), square, large,
#   batched, host and latency, every result verified on the device, CLBlast omatcopy and
#   our out-of-place kernel beside libipt where ipt-bench runs them, exact buffers.
# peers: cuBLAS geam (CuPy) and PyTorch out of place on the same shapes
#   (tools/compare/cuda_peers.py), and Catanzaro et al.'s in-place CUDA library when
#   build-peer/inplace holds a checkout of it (tools/compare/run_catanzaro.sh).
# Each step is time-boxed (STEP_SECONDS, default 150) and no step starts past DEADLINE
# seconds (default 520), so that a part ends inside one device call; CSVs keep the shapes
# a cut step finished, and the summary says which steps were cut or left out. Everything goes to $OUT/<part>.tar.gz, the step summaries to $OUT/<part>.txt.
set -uo pipefail
part=${1:?usage: headline_run.sh ipt|peers}
count=${COUNT:-300}
box=${STEP_SECONDS:-150}
deadline=${DEADLINE:-520}
IPT_CMAKE_ARGS=${IPT_CMAKE_ARGS:--DIPT_BUILD_TESTS=OFF -DIPT_BUILD_MPI=OFF -DIPT_BUILD_FORTRAN=OFF}
source "$(dirname "${BASH_SOURCE[0]}")/prepare_gpu_machine.sh"
dir=/tmp/headline
mkdir -p "$dir"
summary=$out/$part.txt
bench=build-gpu/tools/ipt-bench
step() {  # $1 name, then the command; its log's last lines go to the summary
  local name=$1 start=$SECONDS left=$((deadline - SECONDS))
  shift
  if ((left < 10)); then
    echo "== $name: left out, the part's deadline has passed" | tee -a "$summary"
    return
  fi
  timeout "$((left < box ? left : box))" "$@" > "$dir/$name.log" 2>&1
  local code=$?
  { echo "== $name: exit $code, $((SECONDS - start)) s"; grep -v ETA "$dir/$name.log" | tail -n 14; } |
    tee -a "$summary"
}
case $part in
  ipt)
    for t in f32 f64 u8 f16; do
      n=$count shapes_out=()
      [ $t = f32 ] || [ $t = f64 ] || n=$((count / 2))
      [ $t = f32 ] && shapes_out=(--shapes-out "$dir/random-shapes.txt")
      step random-$t $bench random --count "$n" --type $t "${shapes_out[@]}" \
        --csv "$dir/random-$t.csv" --json "$dir/random-$t.json"
    done
    step primes-f32 $bench shapes --shapes-file tools/bench/shapes/primes.txt --type f32 \
      --csv "$dir/primes-f32.csv" --json "$dir/primes-f32.json"
    for t in f32 f64; do
      step skinny-$t $bench skinny --count "$count" --type $t --shapes-out "$dir/skinny-shapes.txt" \
        --csv "$dir/skinny-$t.csv" --json "$dir/skinny-$t.json"
      step square-$t $bench square --sizes 16384,8192,4099 --type $t --csv "$dir/square-$t.csv" \
        --json "$dir/square-$t.json"
    done
    step large-f32 $bench shapes --shapes-file tools/bench/shapes/large.txt --type f32 \
      --baselines none --csv "$dir/large-f32.csv" --json "$dir/large-f32.json"
    step batched-f32 $bench batched --csv "$dir/batched-f32.csv" --json "$dir/batched-f32.json"
    step host-f32 $bench host --csv "$dir/host-f32.csv" --json "$dir/host-f32.json"
    step latency $bench latency --csv "$dir/latency.csv" --json "$dir/latency.json"
    ;;
  peers)
    # The shapes the ipt part ran, listed again where this machine did not run it (a
    # machine given back between the two calls): the same counts and seeds.
    [ -f "$dir/random-shapes.txt" ] ||
      $bench random --count "$count" --list-shapes --shapes-out "$dir/random-shapes.txt" > /dev/null
    [ -f "$dir/skinny-shapes.txt" ] ||
      $bench skinny --count "$count" --list-shapes --shapes-out "$dir/skinny-shapes.txt" > /dev/null
    printf '16384 16384\n8192 8192\n4099 4099\n' > "$dir/square-shapes.txt"
    peers=tools/compare/cuda_peers.py
    for t in f32 f64 u8 f16; do
      step peers-random-$t python3 $peers --shapes "$dir/random-shapes.txt" --type $t \
        --csv "$dir/peers-random-$t.csv"
    done
    step peers-primes-f32 python3 $peers --mode primes --shapes tools/bench/shapes/primes.txt \
      --type f32 --csv "$dir/peers-primes-f32.csv"
    for t in f32 f64; do
      step peers-skinny-$t python3 $peers --mode skinny --shapes "$dir/skinny-shapes.txt" --type $t \
        --csv "$dir/peers-skinny-$t.csv"
      step peers-square-$t python3 $peers --mode square --shapes "$dir/square-shapes.txt" --type $t \
        --csv "$dir/peers-square-$t.csv"
    done
    if [ -f build-peer/inplace/inplace/transpose.h ]; then
      BUILD_ONLY=1 step catanzaro-build bash tools/compare/run_catanzaro.sh build-peer/inplace \
        /tmp/peer "$dir/square-shapes.txt"
      for mode in square skinny random; do
        for t in f32 f64; do
          step catanzaro-$mode-$t /tmp/peer/build/catanzaro-driver --shapes "$dir/$mode-shapes.txt" \
            --type $t --mode $mode --reps 3 --csv "$dir/catanzaro-$mode-$t.csv"
        done
      done
    fi
    ;;
  *)
    echo "usage: headline_run.sh ipt|peers" >&2
    exit 2
    ;;
esac
tar czf "$out/$part.tar.gz" -C "$dir" .
