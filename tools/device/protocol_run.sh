#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The benchmark protocol of DESIGN.md on the GPU machine: random shapes (M, N uniform in
# [1000, 20000], seed 2015) and skinny shapes, f32 and f64, each result verified on the
# device (ipt-bench's default), the copy bandwidth measured in the same run. The device
# tool brings back at most 8 files, so everything goes into $OUT/protocol-<parts>.tar.gz.
#   bash tools/device/protocol_run.sh COUNT REPS PART...   (PART: random-f32, skinny-f64...)
# PART_TIMEOUT (seconds, default 170) bounds each part; the CSV is written row by row, so
# a part cut short keeps the shapes it finished. BUFFER (exact, the default, or padded)
# is ipt-bench's --buffer: exactly the matrix, or ipt_padded_size bytes; the files of a
# padded run are named <part>-padded.
set -uo pipefail
count=$1
reps=$2
shift 2
source "$(dirname "${BASH_SOURCE[0]}")/prepare_gpu_machine.sh"
dir=/tmp/protocol
mkdir -p "$dir"
for part in "$@"; do
  mode=${part%-*}
  type=${part#*-}
  start=$(date +%s)
  buffer=${BUFFER:-exact}
  name=$mode-$type
  [ "$buffer" = exact ] || name=$name-$buffer
  timeout "${PART_TIMEOUT:-170}" build-gpu/tools/ipt-bench "$mode" --count "$count" --type "$type" \
    --reps "$reps" --buffer "$buffer" --shapes-out "$dir/$mode-shapes.txt" --csv "$dir/$name.csv" \
    --json "$dir/$name.json" > "$dir/$name.log" 2>&1
  echo "== $part ($buffer buffer): exit $?, $(($(date +%s) - start)) s, $(($(wc -l < "$dir/$name.csv") - 1)) rows"
  tail -16 "$dir/$name.log"
done
tar czf "$out/protocol-$(echo "$@" | tr ' ' '_').tar.gz" -C "$dir" .
