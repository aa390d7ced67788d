#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the build tree into a temporary prefix, then builds and runs small downstream
# programs against it: with find_package(ipt) (C, C++, and Fortran when built) and with
# pkg-config (C), and the Python package with its example when a Python interpreter with
# pyopencl is given. When the tree holds libipt_mpi, MPI programs too, on 2 ranks:
# find_package(ipt COMPONENTS mpi) (C, C++, Fortran) and pkg-config ipt-mpi (C, C++).
# Usage:
#   run_consumers.sh BUILD_DIR SOURCE_DIR FORTRAN(ON|OFF) [PYTHON(path|OFF) PYTHON_DIR]
# PYTHON_DIR: where the package installs, relative to the prefix.
set -euo pipefail
build=$1 source=$2 fortran=$3 python=${4:-OFF} python_dir=${5:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in include/ipt/ipt.h include/ipt/ipt.hpp; do test -f "$prefix/$f" || { echo "missing $f"; exit 1; }; done
libdir=$(dirname "$(find "$prefix" -name 'libipt.so.*.*.*' | head -n 1)")
ls -l "$libdir"/libipt.so*
grep -q 'SONAME.*libipt.so.1' <<< "$(readelf -d "$libdir/libipt.so")" || { echo "SONAME is not libipt.so.1"; exit 1; }
# The library's fault seam is its no-op (it only returns), and none of the test suite's
# fault injection (tests/helpers/fault_injection.cpp) is in it. The symbol table is the
# build's: cmake --install does not strip.
echo "== the installed libipt.so carries no test code"
seam=_ZN3ipt7runtime6faults5pointENS1_4SiteEPKc  # ipt::runtime::faults::point
instructions=$(objdump -d --no-show-raw-insn --disassemble=$seam "$libdir/libipt.so" |
  awk -F'\t' '/^ +[0-9a-f]+:\t/ {split($2, word, " "); print word[1]}' | sort -u | tr '\n' ' ')
[ -n "$instructions" ] || { echo "libipt.so: the fault seam is not in its symbol table (stripped?)"; exit 1; }
grep -Eq '^((endbr64|ret|repz|nop|nopw|nopl|xchg) )+$' <<< "$instructions" ||
  { echo "libipt.so: the fault seam does more than return: $instructions"; exit 1; }
if nm -C "$libdir/libipt.so" |
   grep -E 'ipt::runtime::faults::(arm|disarm|count|passed|steer_onchip_probes|recheck_crowded_at|steer_overrides|overrides_steered_now)\('; then
  echo "libipt.so carries the test suite's fault injection"
  exit 1
fi
mpi=OFF
if [ -f "$prefix/include/ipt/ipt_mpi.h" ]; then
  mpi=ON
  for f in include/ipt/ipt_mpi.hpp "${libdir#"$prefix"/}/pkgconfig/ipt-mpi.pc" \
           "${libdir#"$prefix"/}/cmake/ipt/iptMpiTargets.cmake"; do
    test -f "$prefix/$f" || { echo "missing $f"; exit 1; }
  done
  grep -q 'SONAME.*libipt_mpi.so.1' <<< "$(readelf -d "$libdir/libipt_mpi.so")" || { echo "SONAME is not libipt_mpi.so.1"; exit 1; }
fi
# An MPI program on 2 ranks, with the mpiexec of the MPI that CMake found for the consumer.
mpiexec=
run_ranks() {
  local extra=()
  "$mpiexec" --version 2>&1 | grep -Eqi 'open ?mpi|openrte' && extra=(--oversubscribe)
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$mpiexec" -n 2 "${extra[@]}" "$@"
}

echo "== installed tools start from the prefix (RUNPATH), without LD_LIBRARY_PATH"
for tool in ipt-plan ipt-bench ipt-kernel-bench ipt-demo; do
  grep -q 'RUNPATH.*\$ORIGIN' <<< "$(readelf -d "$prefix/bin/$tool")" || { echo "$tool: no \$ORIGIN RUNPATH"; exit 1; }
  env -u LD_LIBRARY_PATH "$prefix/bin/$tool" --help > /dev/null || { echo "$tool does not start"; exit 1; }
done
env -u LD_LIBRARY_PATH "$prefix/bin/ipt-plan" 300 200 4 > /dev/null

echo "== find_package(ipt): C and C++"
cmake -S "$source/tests/consumers/find_package" -B "$work/fp" -DCMAKE_PREFIX_PATH="$prefix" \
  -DEXAMPLES="$source/examples" -DIPT_MPI=$mpi > "$work/fp.log" || { cat "$work/fp.log"; exit 1; }
cmake --build "$work/fp" > "$work/fp-build.log" || { cat "$work/fp-build.log"; exit 1; }
"$work/fp/consumer_c"
"$work/fp/consumer_cpp"
if [ "$mpi" = ON ]; then
  echo "== find_package(ipt COMPONENTS mpi): C and C++ on 2 ranks"
  mpiexec=$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$work/fp/CMakeCache.txt")
  [ -x "$mpiexec" ] || mpiexec=$(command -v mpiexec)
  run_ranks "$work/fp/consumer_mpi_c"
  run_ranks "$work/fp/consumer_mpi_cpp"
fi

echo "== pkg-config ipt: C"
export PKG_CONFIG_PATH=$libdir/pkgconfig
pkg-config --exists --print-errors ipt
# The prefix as given to cmake --install, not a path relative to the .pc file.
cflags=$(pkg-config --cflags ipt)
[[ $cflags == *"-I$prefix/include"* && $cflags != *..* ]] || { echo "pkg-config --cflags ipt: $cflags"; exit 1; }
cc -std=c99 -Wall "$source/examples/transpose.c" $(pkg-config --cflags --libs ipt) \
  -Wl,-rpath,"$(pkg-config --variable=libdir ipt)" -o "$work/consumer_pc"
"$work/consumer_pc"
echo "== pkg-config ipt: C++"
c++ -std=c++17 -Wall "$source/examples/transpose.cpp" $(pkg-config --cflags --libs ipt) \
  -Wl,-rpath,"$(pkg-config --variable=libdir ipt)" -o "$work/consumer_pc_cpp"
"$work/consumer_pc_cpp"
if [ "$mpi" = ON ]; then
  echo "== pkg-config ipt-mpi: C and C++ on 2 ranks"
  pkg-config --exists --print-errors ipt-mpi
  cc -std=c99 -Wall "$source/tests/consumers/mpi/transpose_mpi.c" $(pkg-config --cflags --libs ipt-mpi) \
    -Wl,-rpath,"$(pkg-config --variable=libdir ipt-mpi)" -o "$work/consumer_mpi_pc"
  c++ -std=c++17 -Wall "$source/tests/consumers/mpi/transpose_mpi.cpp" \
    $(pkg-config --cflags --libs ipt-mpi) -Wl,-rpath,"$(pkg-config --variable=libdir ipt-mpi)" \
    -o "$work/consumer_mpi_pc_cpp"
  run_ranks "$work/consumer_mpi_pc"
  run_ranks "$work/consumer_mpi_pc_cpp"
fi

if [ "$fortran" = ON ]; then
  echo "== find_package(ipt) from a Fortran-only project: the module and the example"
  test -f "$prefix/include/ipt/ipt.mod" || { echo "missing ipt.mod"; exit 1; }
  cmake -S "$source/tests/consumers/fortran" -B "$work/ff" -DCMAKE_PREFIX_PATH="$prefix" \
    -DEXAMPLES="$source/examples" -DIPT_MPI=$mpi > "$work/ff.log" || { cat "$work/ff.log"; exit 1; }
  cmake --build "$work/ff" > "$work/ff-build.log" || { cat "$work/ff-build.log"; exit 1; }
  "$work/ff/consumer_fortran"
  "$work/ff/example_fortran"
  if [ "$mpi" = ON ]; then
    test -f "$prefix/include/ipt/ipt_mpi.mod" || { echo "missing ipt_mpi.mod"; exit 1; }
    if [ -x "$work/ff/consumer_fortran_mpi" ]; then
      echo "== find_package(ipt COMPONENTS mpi) from a Fortran-only project: ipt_mpi on 2 ranks"
      run_ranks "$work/ff/consumer_fortran_mpi"
    else
      echo "== no Fortran MPI: the ipt_mpi consumer is not built"
    fi
  fi
fi
if [ "$python" != OFF ]; then
  echo "== the Python package from the prefix: import ipt, examples/transpose.py"
  packages=$prefix/$python_dir
  test -f "$packages/ipt/__init__.py" || { echo "missing $python_dir/ipt"; exit 1; }
  # Nothing but the prefix: no build tree on PYTHONPATH, no IPT_LIBRARY, no loader path;
  # from $work, so that the current directory holds no ipt either.
  run_python() {
    (cd "$work" && env -u LD_LIBRARY_PATH -u IPT_LIBRARY PYTHONPATH="$packages" \
       PYTHONDONTWRITEBYTECODE=1 "$python" "$@")
  }
  run_python -c '
import os, sys, ipt
prefix = os.path.realpath(sys.argv[1])
for what, path in [("package", ipt.__file__), ("library", ipt.library_path)]:
    print("ipt", what, path)
    if not os.path.realpath(path).startswith(prefix + os.sep):
        sys.exit("the installed package loaded its %s from outside the prefix" % what)
' "$prefix"
  run_python "$source/examples/transpose.py"
fi
echo "consumers: all built and ran"
