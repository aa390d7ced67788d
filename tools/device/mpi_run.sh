#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# libipt_mpi on the GPU machine: `ipt-bench mpi` under mpirun, each run verified on the
# device, with each device's copy bandwidth and an MPI all-to-all of the same bytes
# measured in the same run. The device tool brings back at most 8 files, so the logs, CSVs
# and JSON summaries go into $OUT/mpi-<phases>.tar.gz, with the tables in
# $OUT/mpi-summary.txt.
#   bash tools/device/mpi_run.sh BUILD_DIR
# after `source tools/device/prepare_gpu_machine.sh` (NVIDIA's OpenCL driver, Open MPI, the
# build in build-gpu). Phases (PHASES, default "shared strong weak fill"):
#   shared  ranks sharing one GPU (CUDA_VISIBLE_DEVICES=$SHARED_GPU): P in $SHARED_RANKS
#           on $SHARED_SHAPES
#   strong  one rank per GPU, P = 1 .. GPUS, the same $STRONG_SHAPES (skipped on one GPU)
#   weak    one rank per GPU, P = 1 .. GPUS, $WEAK_SHAPES' rows times P (skipped on one GPU)
#   fill    $FILL_RANKS_PER_GPU ranks on each GPU, squares filling $FILLS of each GPU's
#           memory (NVIDIA's OpenCL caps one allocation, so one rank's block, at a quarter
#           of the memory: more ranks per GPU fill more of it)
# Settings (environment): TYPE (f32), REPS (5), SCHEMES (pairwise,alltoall), STAGING
# (bytes; the library's default when unset), GPUS (nvidia-smi's count), SHARED_GPU (0),
# SHARED_RANKS (1 2 4), SHARED_SHAPES (16384x16384,20000x12345), STRONG_SHAPES
# (16384x16384,32768x32768,20000x12345), WEAK_SHAPES (16384x16384,20000x12345), FILLS
# (0.5,0.8), FILL_RANKS_PER_GPU (1 4), RUN_TIMEOUT (seconds per run, 300), MPIRUN
# (mpirun), MPIRUN_ARGS (--allow-run-as-root --oversubscribe), EXTRA_ARGS (more
# ipt-bench mpi options for every run).
set -uo pipefail
build=${1:?usage: mpi_run.sh BUILD_DIR}
bench=$build/tools/ipt-bench
out=${out:-${OUT:-/tmp/ipt-out}}
mkdir -p "$out"
if [ ! -x "$build/tools/ipt-bench-mpi" ]; then
  echo "mpi_run.sh: $build has no ipt-bench-mpi: configured without MPI (is mpirun on PATH?)"
  exit 1
fi
mpirun=${MPIRUN:-mpirun}
command -v "$mpirun" > /dev/null || { echo "mpi_run.sh: no $mpirun"; exit 1; }
read -r -a mpirun_args <<< "${MPIRUN_ARGS:---allow-run-as-root --oversubscribe}"
# Open MPI: root allowed; shared memory between the ranks of the one host, without the
# single-copy mechanism (CMA) that containers often forbid.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}

type=${TYPE:-f32}
reps=${REPS:-5}
schemes=${SCHEMES:-pairwise,alltoall}
phases=${PHASES:-shared strong weak fill}
gpus=${GPUS:-$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')}
[ "${gpus:-0}" -ge 1 ] 2> /dev/null || gpus=1
common=(--type "$type" --reps "$reps" --scheme "$schemes")
[ -n "${STAGING:-}" ] && common+=(--staging "$STAGING")
read -r -a extra <<< "${EXTRA_ARGS:-}"
dir=/tmp/mpi-run
rm -rf "$dir" && mkdir -p "$dir"
summary=$out/mpi-summary.txt
: > "$summary"
echo "mpi_run.sh: $gpus GPU(s); $("$mpirun" --version 2>&1 | head -1); phases: $phases" | tee -a "$summary"

failures=0
run() {  # $1 name, $2 ranks, then ipt-bench mpi's options
  local name=$1 ranks=$2
  shift 2
  local start rc
  start=$(date +%s)
  timeout "${RUN_TIMEOUT:-300}" "$mpirun" "${mpirun_args[@]}" -np "$ranks" "$bench" mpi \
    "${common[@]}" "$@" "${extra[@]}" --csv "$dir/$name.csv" --json "$dir/$name.json" \
    > "$dir/$name.log" 2>&1
  rc=$?
  [ "$rc" = 0 ] || failures=$((failures + 1))
  {
    echo
    echo "== $name: $ranks rank(s), exit $rc, $(($(date +%s) - start)) s: ipt-bench mpi ${common[*]} $* ${extra[*]}"
    grep -E "^rank [0-9]+ \(|^--fill" "$dir/$name.log"
    sed -n '/^shape /,$p' "$dir/$name.log" | grep -v -E "^-----|^Primary job|^a non-zero|^mpirun detected|^the job|^  Process|^  Exit|^$"
    [ "$rc" = 0 ] || tail -20 "$dir/$name.log"
  } | tee -a "$summary"
}

for phase in $phases; do
  case $phase in
    shared)
      for p in ${SHARED_RANKS:-1 2 4}; do
        CUDA_VISIBLE_DEVICES=${SHARED_GPU:-0} run "shared-np$p" "$p" \
          --shapes "${SHARED_SHAPES:-16384x16384,20000x12345}"
      done
      ;;
    strong | weak)
      if [ "$gpus" -lt 2 ]; then
        echo "== $phase: one GPU, skipped (the shared phase's P = 1 is its only point)" | tee -a "$summary"
        continue
      fi
      for ((p = 1; p <= gpus; p++)); do
        if [ "$phase" = strong ]; then
          run "strong-np$p" "$p" --shapes "${STRONG_SHAPES:-16384x16384,32768x32768,20000x12345}"
        else
          run "weak-np$p" "$p" --shapes "${WEAK_SHAPES:-16384x16384,20000x12345}" --weak
        fi
      done
      ;;
    fill)
      for k in ${FILL_RANKS_PER_GPU:-1 4}; do
        run "fill-${k}per-gpu-np$((k * gpus))" "$((k * gpus))" --fill "${FILLS:-0.5,0.8}"
      done
      ;;
    *)
      echo "mpi_run.sh: unknown phase $phase"
      exit 2
      ;;
  esac
done
echo | tee -a "$summary"
echo "mpi_run.sh: $failures run(s) failed" | tee -a "$summary"
tar czf "$out/mpi-$(echo "$phases" | tr ' ' '_').tar.gz" -C "$dir" .
[ "$failures" = 0 ]
