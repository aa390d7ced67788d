#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs an MPI test program under mpirun and passes only when mpirun exits 0 (every rank
# exited 0: Open MPI and MPICH return a failing rank's status, or fail for a rank killed
# by a signal) and rank 0 printed exactly one summary "... (RANKS ranks): N passed,
# 0 failed" with N > 0. A pattern on the output alone passed a run that crashed after
# printing its summary, and one that checked nothing ("0 passed").
#   run_mpi_test.sh RANKS MPIEXEC ARGS...   (the whole mpirun command line)
set -uo pipefail
ranks=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "FAIL: mpirun exited $status (a rank failed or crashed)"
  exit 1
fi
summary=$(grep -E '\(([0-9]+) ranks\): [0-9]+ passed, [0-9]+ failed$' "$log")
if [ "$(grep -c . <<< "$summary")" -ne 1 ]; then
  echo "FAIL: expected one summary line \"(R ranks): N passed, F failed\", found:"
  echo "${summary:-(none)}"
  exit 1
fi
read -r reported passed failed < <(sed -nE 's/.*\(([0-9]+) ranks\): ([0-9]+) passed, ([0-9]+) failed$/\1 \2 \3/p' <<< "$summary")
if [ "$reported" -ne "$ranks" ]; then
  echo "FAIL: the summary counts $reported ranks, not $ranks"
  exit 1
fi
if [ "$failed" -ne 0 ] || [ "$passed" -eq 0 ]; then
  echo "FAIL: $passed passed and $failed failed: a test must check something and fail nothing"
  exit 1
fi
echo "mpi test: $passed checks passed on $ranks ranks, every rank exited 0"
