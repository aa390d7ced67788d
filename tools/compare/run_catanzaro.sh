#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Peer comparison: builds Catanzaro et al.'s CUDA in-place transposition library from a checkout
# the user provides (github.com/bryancatanzaro/inplace, GPL-2) together with our driver
# (catanzaro_driver.cu), then times it on the shapes of SHAPES_FILE.
#
#   tools/compare/run_catanzaro.sh PEER_CHECKOUT OUT_DIR SHAPES_FILE [TYPE...]
#
# TYPE: f32 and/or f64 (default both).  Environment:
#   MODE         value of the CSV's mode column and part of the file names (default random)
#   REPS         timed calls per shape (default 3)
#   ARCH         GPU architecture, e.g. sm_90, 90 or 9.0 (default: nvidia-smi, else sm_90)
#   NVCC         the CUDA compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc)
#   DRIVER_ARGS  extra driver options, e.g. "--no-verify --seed 7"
#   BUILD_ONLY=1 build, then stop
# Writes OUT_DIR/catanzaro-<mode>-<type>.csv and .log; builds in OUT_DIR/build.  The peer's
# checkout is only read: its sources are copied into OUT_DIR/build and patched there.
set -euo pipefail

die() {
  echo "run_catanzaro.sh: $*" >&2
  exit 1
}

if [[ $# -lt 3 ]]; then
  sed -n '7,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
peer=$1
out=$2
shapes=$3
shift 3
types=("$@")
[[ ${#types[@]} -gt 0 ]] || types=(f32 f64)
mode=${MODE:-random}
reps=${REPS:-3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Checks first, so that a mistake costs no compile time.
for t in "${types[@]}"; do
  [[ $t == f32 || $t == f64 ]] || die "unknown type '$t' (f32 or f64)"
done
[[ $mode =~ ^[A-Za-z0-9._-]+$ ]] || die "MODE '$mode' must be letters, digits, '.', '_' or '-'"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "REPS '$reps' is not a positive number"
[[ -f $peer/inplace/transpose.h ]] ||
  die "'$peer' does not look like a checkout of bryancatanzaro/inplace (no inplace/transpose.h)"
[[ -f $shapes ]] || die "shapes file '$shapes' not found"
nvcc=${NVCC:-}
if [[ -z $nvcc ]]; then
  if command -v nvcc >/dev/null; then
    nvcc=nvcc
  elif [[ -x /usr/local/cuda/bin/nvcc ]]; then
    nvcc=/usr/local/cuda/bin/nvcc
  fi
fi
if [[ -z $nvcc ]] || ! command -v "$nvcc" >/dev/null; then
  die "nvcc not found: install the CUDA toolkit, put nvcc on PATH or set NVCC"
fi

peer=$(cd "$peer" && pwd -P)
shapes=$(cd "$(dirname "$shapes")" && pwd -P)/$(basename "$shapes")
out=$(realpath -m "$out")
build=$out/build
# The build writes patched copies and objects; it must never land inside the peer's tree.
case "$out/" in
  "$peer"/*) die "OUT_DIR must be outside the peer checkout '$peer'" ;;
esac
mkdir -p "$out"

if [[ -n ${ARCH:-} ]]; then
  arch=$ARCH
elif command -v nvidia-smi >/dev/null &&
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1) &&
  [[ -n $arch ]]; then
  :
else
  echo "run_catanzaro.sh: cannot query the GPU's compute capability; assuming sm_90" >&2
  arch=sm_90
fi
arch=${arch//[[:space:]]/}
arch=${arch#sm_}
arch=sm_${arch//./}
[[ $arch =~ ^sm_[0-9]+[a-z]?$ ]] || die "cannot make an architecture out of '$arch'"

# A fresh copy each time, so that the patches below always apply to the user's current sources.
rm -rf "$build"
mkdir -p "$build/inplace" "$build/obj"
cp -R "$peer/inplace/." "$build/inplace/"

# The warp vote __ballot() is refused for sm_70 and later; its synchronising successor with the
# mask of the threads active at that point keeps the old meaning.
mapfile -t ballot_files < <(grep -lE '\b__ballot[[:space:]]*\(' "$build"/inplace/*.cu \
  "$build"/inplace/*.h 2>/dev/null || true)
for f in "${ballot_files[@]}"; do
  sed -i -E 's/\b__ballot[[:space:]]*\(/__ballot_sync(__activemask(), /g' "$f"
  echo "patched __ballot -> __ballot_sync in ${f#"$build"/}"
done

flags=(-O3 -std=c++17 "-arch=$arch" -maxrregcount=128 -I "$build/inplace")
# -maxrregcount: one f64 register-shuffle kernel otherwise needs 138 registers per thread and
# then fails to launch with 512 threads per block.
# CUDA 13 makes the host stubs of kernel templates file-private by default; the library
# declares its shuffle kernels in one file and instantiates them in others, so it does not link
# unless the old behaviour is asked for.  Older nvcc does not know the option, so probe it.
printf '__global__ void probe() {}\n' >"$build/probe.cu"
if "$nvcc" -static-global-template-stub=false -c "$build/probe.cu" -o "$build/probe.o" \
  >/dev/null 2>&1; then
  flags+=(-static-global-template-stub=false)
fi

# Every library source except those that are not part of the CUDA path: files needing OpenMP
# (its CPU implementation) and any file with a main().
sources=()
for f in "$build"/inplace/*.cu "$build"/inplace/*.cpp; do
  [[ -e $f ]] || continue
  if grep -qE '#[[:space:]]*include[[:space:]]*<omp\.h>' "$f"; then
    echo "skipping ${f#"$build"/} (needs OpenMP)"
  elif grep -qE '\bmain[[:space:]]*\(' "$f"; then
    echo "skipping ${f#"$build"/} (has a main)"
  else
    sources+=("$f")
  fi
done
[[ ${#sources[@]} -gt 0 ]] || die "no sources found in $peer/inplace"

echo "building with $("$nvcc" --version | tail -n 1) for $arch: ${flags[*]}"
# The sources compile independently and some take a while (deeply unrolled register kernels),
# so run the compilers side by side.
pids=()
objects=()
for f in "${sources[@]}"; do
  o=$build/obj/$(basename "$f").o
  objects+=("$o")
  "$nvcc" "${flags[@]}" -c "$f" -o "$o" >"$o.log" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "compiling ${sources[$i]#"$build"/} failed:" >&2
    cat "${objects[$i]}.log" >&2
    failed=1
  fi
done
[[ $failed -eq 0 ]] || die "building the library failed (logs in $build/obj)"
"$nvcc" "${flags[@]}" -o "$build/catanzaro-driver" "$here/catanzaro_driver.cu" "${objects[@]}" ||
  die "building the driver failed"
echo "built $build/catanzaro-driver"
[[ ${BUILD_ONLY:-0} == 1 ]] && exit 0

status=0
read -r -a extra <<<"${DRIVER_ARGS:-}"
for t in "${types[@]}"; do
  csv=$out/catanzaro-$mode-$t.csv
  log=$out/catanzaro-$mode-$t.log
  echo "== $t: $csv"
  set +e
  "$build/catanzaro-driver" --shapes "$shapes" --type "$t" --mode "$mode" --reps "$reps" \
    --csv "$csv" "${extra[@]}" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  if [[ $rc -ne 0 ]]; then
    echo "run_catanzaro.sh: the $t run reported failures (exit $rc), see $log" >&2
    status=1
  fi
done
echo "results: $out/catanzaro-$mode-*.csv (logs beside them), build: $build"
exit $status
