#!/usr/bin/env bash
# Elementary kernels (BS, PTTWAC, SoA-ASTA 100!/0100!/1000!) on the NVIDIA GPU machine:
# the [elementary] tests repeated (a race shows only sometimes), the same tests with
# -cl-opt-disable (different timing exposed the original kernels' races), then the
# per-kernel benchmarks. Logs and CSVs go under $OUT.
#   bash tools/device/elementary_check.sh [repeats] [opt-disable-repeats] [bench|nobench]
set -uo pipefail
repeats=${1:-20}
o0_repeats=${2:-5}
bench=${3:-bench}
out=${OUT:-/tmp/ipt-out}
mkdir -p "$out"
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
for f in .device/*.deb; do dpkg -x "$f" /; done
ldconfig
export IPT_DEVICE=${IPT_DEVICE:-NVIDIA}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release > "$out/build.log" 2>&1 &&
  cmake --build build-gpu -j "$(nproc)" >> "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
tests=build-gpu/tests/ipt_internal_tests
status=0
for i in $(seq 1 "$repeats"); do
  $tests "[elementary]" > "$out/elementary-$i.log" 2>&1 || { status=1; echo "run $i FAILED"; }
  tail -2 "$out/elementary-$i.log" | head -1
done
for i in $(seq 1 "$o0_repeats"); do
  IPT_BUILD_OPTIONS=-cl-opt-disable $tests "[elementary]" > "$out/elementary-O0-$i.log" 2>&1 ||
    { status=1; echo "-cl-opt-disable run $i FAILED"; }
  tail -2 "$out/elementary-O0-$i.log" | head -1
done
if [ "$bench" = bench ]; then
  b="timeout 120 build-gpu/tools/ipt-kernel-bench"
  { date +%T; $b soa --type 4 --csv "$out/kernel-soa-f32.csv"
    date +%T; $b bs-vs-pttwac --type 4 --csv "$out/kernel-bs-vs-pttwac-f32.csv"
    date +%T; $b pttwac-spreading --type 4 --csv "$out/kernel-pttwac-spreading-f32.csv"
    date +%T; } 2>&1 | tee "$out/kernel-bench.log"
fi
exit $status
