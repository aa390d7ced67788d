#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Same-run comparison of this tree against another (an older commit unpacked in OLD_DIR)
# on the GPU machine: builds both, then runs each benchmark part with the old and the new
# build alternately, ROUNDS times, so that both see the same GPU state. Every result is
# verified on the device and the copy bandwidth is measured by each run. Prints the
# libipt medians side by side, then per part the per-shape time ratios new / old
# (ab_shapes.py: whole-run medians drift about 1% between runs of one build, per-shape
# ratios resolve less); the JSON summaries and CSVs go into $OUT/ab.tar.gz.
#   bash tools/device/ab_run.sh OLD_DIR COUNT REPS ROUNDS PART...   (PART: random-f32, ...)
# NEW_ARGS: extra ipt-bench arguments for this tree's build only (e.g. --buffer padded,
# the buffers an older ipt-bench always gave). OLD_COMMIT: the old tree's commit, for its
# JSON summaries (a tree without its history records "unknown").
set -uo pipefail
old_dir=$1
count=$2
reps=$3
rounds=$4
shift 4
source "$(dirname "${BASH_SOURCE[0]}")/prepare_gpu_machine.sh"
cmake -S "$old_dir" -B build-old -DCMAKE_BUILD_TYPE=Release -DIPT_BUILD_TESTS=OFF \
  -DIPT_GIT_COMMIT="${OLD_COMMIT:-}" > "$out/build-old.log" 2>&1 &&
  cmake --build build-old -j "$(nproc)" --target ipt-bench >> "$out/build-old.log" 2>&1 ||
  { tail -40 "$out/build-old.log"; exit 1; }
dir=/tmp/ab
mkdir -p "$dir"
median() {  # the libipt row's median of a JSON summary
  grep -o '"library": "libipt"[^}]*"median_gbs": [0-9.]*' "$1" | grep -o '[0-9.]*$' | head -1
}
copy() { grep -o '"copy_gbs": [0-9.]*' "$1" | grep -o '[0-9.]*$'; }
runs() { ls "$dir/$1-$2"-*.csv | paste -sd, -; }  # part $1's CSVs of build $2, comma-separated
for part in "$@"; do
  mode=${part%-*}
  type=${part#*-}
  for round in $(seq 1 "$rounds"); do
    for build in old new; do
      bin=build-gpu/tools/ipt-bench
      extra=(${NEW_ARGS:-})
      [ "$build" = old ] && bin=build-old/tools/ipt-bench && extra=()
      json="$dir/$part-$build-$round.json"
      timeout 280 "$bin" "$mode" --count "$count" --type "$type" --reps "$reps" --baselines none \
        "${extra[@]}" --json "$json" --csv "$dir/$part-$build-$round.csv" \
        > "$dir/$part-$build-$round.log" 2>&1
      echo "$part round $round $build: exit $? median $(median "$json") GB/s, copy $(copy "$json") GB/s"
    done
  done
  python3 "$(dirname "${BASH_SOURCE[0]}")/ab_shapes.py" "$(runs "$part" old)" "$(runs "$part" new)" 2>&1
done | tee "$out/ab-summary.txt"
tar czf "$out/ab.tar.gz" -C "$dir" .
