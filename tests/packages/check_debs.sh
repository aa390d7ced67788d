#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian packages (cmake/IptPackaging.cmake, docs/packages.md): cpack builds them,
# each must hold what it should, and lintian must report nothing that is not explained
# below. As root, they are installed with apt, then Intel's Processor Trace runtime
# libipt2 (from Debian's mirror, unless installed already), and ours must stay installed
# and not be offered as upgradable, apt must remove ours to install Intel's libipt-dev
# (the declared Conflicts), and pkg-config, find_package(ipt), `cc t.c -lipt` and the
# Python package must find our libipt under /usr. Everything this run installed is
# purged again, also when a check fails. Not as root, the packages are unpacked into a
# directory with dpkg-deb and a consumer is built against that.
#   check_debs.sh BUILD_DIR SOURCE_DIR PYTHON FORTRAN MPI
# PYTHON: OFF (no Python package), BUILT (built, but pyopencl and numpy, which it
# depends on, are not installed: its contents are checked, it is not installed), USABLE.
# FORTRAN, MPI: ON when libipt_fortran, libipt_mpi were built (1/0 also accepted).
set -euo pipefail
build=$1 source=$2 python=$3 fortran=$4 mpi=$5
case $fortran in ON | 1) fortran=ON ;; *) fortran=OFF ;; esac
case $mpi in ON | 1) mpi=ON ;; *) mpi=OFF ;; esac
work=$(mktemp -d)
installed=() # what this run installed (ours, Intel's, their dependencies): purged at exit
cleanup() {
  local status=$?
  if ((${#installed[@]})); then
    # Only what was not installed before the test: an apt run that upgrades a package the
    # machine had also prints "Setting up" for it, and that one stays.
    mapfile -t installed < <(printf '%s\n' "${installed[@]}" | sort -u |
      comm -23 - <(sort -u "$work/before.txt"))
    echo "== purging what this test installed: ${installed[*]}"
    dpkg --purge "${installed[@]}" > "$work/purge.log" 2>&1 || { cat "$work/purge.log"; status=1; }
  fi
  rm -rf "$work"
  exit $status
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=/usr/lib/$multiarch

echo "== cpack -G DEB"
(cd "$build" && cpack -G DEB -B "$work/debs") > "$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; exit 1; }
names=(libipt-transpose1 libipt-transpose-dev ipt-tools)
libraries=(libipt-transpose1 libipt-transpose-dev) # Multi-Arch: same
[ "$fortran" = ON ] && names+=(libipt-transpose-fortran1 libipt-transpose-fortran-dev) &&
  libraries+=(libipt-transpose-fortran1)
[ "$mpi" = ON ] && names+=(libipt-transpose-mpi1 libipt-transpose-mpi-dev) &&
  libraries+=(libipt-transpose-mpi1)
[ "$mpi" = ON ] && [ "$fortran" = ON ] && names+=(libipt-transpose-mpi-fortran1) &&
  libraries+=(libipt-transpose-mpi-fortran1)
[ "$python" != OFF ] && names+=(python3-ipt)
debs=()
declare -A deb_of
for name in "${names[@]}"; do
  found=("$work"/debs/"${name}"_*.deb)
  deb=${found[0]}
  [ -f "$deb" ] || deb=
  [ -n "$deb" ] || { ls "$work/debs"; fail "no $name package"; }
  debs+=("$deb")
  deb_of[$name]=$deb
  dpkg-deb -c "$deb" | awk '{print $6 $7 $8}' > "$work/$name.files"
  echo "$name: $(basename "$deb"), depends: $(dpkg-deb -f "$deb" Depends)"
done
made=$(ls "$work/debs"/*.deb | wc -l)
[ "$made" = ${#names[@]} ] || { ls "$work/debs"; fail "cpack made $made packages, not ${#names[@]}"; }

echo "== contents"
expect() { # $1 package, $2 a pattern of a path it must hold
  grep -Eq "$2" "$work/$1.files" || { cat "$work/$1.files"; fail "$1 lacks $2"; }
}
refuse() { # $1 package, $2 a pattern of a path it must not hold
  if grep -E "$2" "$work/$1.files"; then fail "$1 holds $2"; fi
}
field() { dpkg-deb -f "${deb_of[$1]}" "$2"; }
lib="\./usr/lib/$multiarch"
expect libipt-transpose1 "^$lib/libipt\.so\.1\.0\.0$"
expect libipt-transpose1 "^$lib/libipt\.so\.1->libipt\.so\.1\.0\.0$"
refuse libipt-transpose1 'include/|\.so->'
expect libipt-transpose-dev '^\./usr/include/ipt/ipt\.h$'
expect libipt-transpose-dev '^\./usr/include/ipt/ipt\.hpp$'
expect libipt-transpose-dev "^$lib/libipt\.so->libipt\.so\.1$"
expect libipt-transpose-dev "^$lib/pkgconfig/ipt\.pc$"
expect libipt-transpose-dev "^$lib/cmake/ipt/iptConfig\.cmake$"
doc=./usr/share/doc/libipt-transpose-dev
expect libipt-transpose-dev "^$doc/README\.md$"
expect libipt-transpose-dev "^$doc/examples/transpose\.c$"
for page in "$source"/docs/*.md; do
  expect libipt-transpose-dev "^$doc/$(basename "$page")$"
done
[ "$(field libipt-transpose-dev Conflicts)" = libipt-dev ] ||
  fail "libipt-transpose-dev does not conflict with Intel's libipt-dev (same libipt.so)"
expect ipt-tools '^\./usr/bin/ipt-plan$'
if [ "$fortran" = ON ]; then
  expect libipt-transpose-fortran1 "^$lib/libipt_fortran\.so\.1\.0\.0$"
  expect libipt-transpose-fortran-dev '^\./usr/include/ipt/ipt\.mod$'
  expect libipt-transpose-fortran-dev "^$lib/libipt_fortran\.so->"
  [[ $(field libipt-transpose-fortran1 Depends) == *libgfortran* ]] || fail "libipt-transpose-fortran1 does not depend on libgfortran"
fi
if [ "$mpi" = ON ]; then
  expect libipt-transpose-mpi1 "^$lib/libipt_mpi\.so\.1\.0\.0$"
  refuse libipt-transpose-mpi1 '/bin/'
  expect libipt-transpose-mpi-dev '^\./usr/include/ipt/ipt_mpi\.h$'
  expect libipt-transpose-mpi-dev "^$lib/pkgconfig/ipt-mpi\.pc$"
  expect libipt-transpose-mpi-dev "^$lib/cmake/ipt/iptMpiTargets\.cmake$"
fi
[ "$python" != OFF ] && expect python3-ipt '^\./usr/lib/python3/dist-packages/ipt/__init__\.py$'
# A C program's packages need neither the Fortran runtime nor MPI.
for name in libipt-transpose1 libipt-transpose-dev; do
  if grep -Ei 'fortran|mpi' <<< "$(field $name Depends)"; then fail "$name depends on Fortran or MPI"; fi
done
for name in "${libraries[@]}"; do
  [ "$(field "$name" Multi-Arch)" = same ] || fail "$name is not Multi-Arch: same"
done
for name in "${names[@]}"; do
  expect "$name" "^\./usr/share/doc/$name/copyright$"
  expect "$name" "^\./usr/share/doc/$name/changelog\.gz$"
  # Libraries, pkg-config and CMake files in the multiarch directory, not in /usr/lib.
  refuse "$name" '^\./usr/lib/[^/]+\.so|^\./usr/lib/(pkgconfig|cmake)/'
  field "$name" Description | sed -n 1p >> "$work/synopses"
done
[ "$(sort -u "$work/synopses" | wc -l)" = ${#names[@]} ] || { cat "$work/synopses"; fail "packages share a synopsis"; }
# Man pages: one, compressed, for every tool in ipt-tools, once tools/man holds them.
if compgen -G "$source/tools/man/*.1" > /dev/null; then
  refuse ipt-tools '/man/.*\.1$'
  for tool in $(sed -n 's#^\./usr/bin/##p' "$work/ipt-tools.files"); do
    expect ipt-tools "^\./usr/share/man/man1/$tool\.1\.gz$"
  done
  dpkg-deb -x "${deb_of[ipt-tools]}" "$work/tools"
  gzip -t "$work"/tools/usr/share/man/man1/*.gz || fail "a man page is not gzip"
fi

echo "== lintian"
command -v lintian > /dev/null || fail "lintian is not installed (apt-get install lintian)"
# Tags that remain, each with its reason. Package name vs SONAME is explained by the
# overrides the library packages ship (packaging/lintian/).
declare -A explained
if ! compgen -G "$source/tools/man/*.1" > /dev/null; then
  explained[no-manual-page]="this tree has no tools/man/*.1 yet"
fi
lintian --fail-on none --tag-display-limit 0 "${debs[@]}" > "$work/lintian.log" 2>&1 ||
  { cat "$work/lintian.log"; fail "lintian did not run"; }
unexplained=0
while read -r line; do
  tag=$(awk '{print $3}' <<< "$line")
  if [ -n "${explained[$tag]:-}" ]; then
    echo "explained: $line (${explained[$tag]})"
  else
    echo "UNEXPLAINED: $line"
    unexplained=1
  fi
done < <(grep -E '^[EW]: ' "$work/lintian.log" || true)
((unexplained == 0)) || fail "lintian reports tags nobody explained"

if [ "$(id -u)" != 0 ]; then
  echo "== not root: dpkg-deb -x into a directory"
  for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$work/root"; done
  prefix=$work/root/usr
  export LD_LIBRARY_PATH=$prefix/lib/$multiarch
  cmake -S "$source/tests/consumers/find_package" -B "$work/fp" -DCMAKE_PREFIX_PATH="$prefix" \
    -DEXAMPLES="$source/examples" > "$work/fp.log" 2>&1 || { cat "$work/fp.log"; exit 1; }
  cmake --build "$work/fp" > "$work/fp-build.log" 2>&1 || { cat "$work/fp-build.log"; exit 1; }
  "$work/fp/consumer_c"
  "$work/fp/consumer_cpp"
  echo "packages: built and checked, a consumer built against them (not root: not installed)"
  exit 0
fi

echo "== apt-get install ./the packages"
dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | sed -n 's/^ii  *//p' > "$work/before.txt"
apt_get() { apt-get -o DPkg::Lock::Timeout=300 -y -q --no-install-recommends "$@"; }
set_up() { sed -n 's/^Setting up \([^: ]*\).*/\1/p' "$1"; }
for name in "${names[@]}"; do
  if dpkg-query -W -f='${Status}' "$name" 2> /dev/null | grep -q 'ok installed'; then
    fail "$name is installed already; this test does not touch it (dpkg --purge it first)"
  fi
done
to_install=()
for name in "${names[@]}"; do
  if [ "$name" = python3-ipt ] && [ "$python" = BUILT ]; then
    echo "python3-ipt: contents checked; not installed (python3-pyopencl or python3-numpy missing)"
    continue
  fi
  to_install+=("${deb_of[$name]}")
  installed+=("$name")
done
apt_get install "${to_install[@]}" > "$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get could not install the packages"; }
mapfile -t -O ${#installed[@]} installed < <(set_up "$work/apt.log")

echo "== Intel's Processor Trace runtime (libipt2) beside ours"
if dpkg-query -W -f='${Status}' libipt2 2> /dev/null | grep -q 'install ok installed'; then
  echo "libipt2 was installed already"
else
  apt_get install libipt2 > "$work/intel.log" 2>&1 || {
    cat "$work/intel.log"
    fail "could not install Intel's libipt2 from Debian's mirror (no network? apt-get update?)"
  }
  mapfile -t -O ${#installed[@]} installed < <(set_up "$work/intel.log")
fi
for name in "${installed[@]}"; do
  [[ $name == *ipt* ]] || continue
  dpkg-query -W -f='${Status}' "$name" | grep -q 'install ok installed' || fail "$name is no longer installed"
done
upgradable=$(apt list --upgradable 2> /dev/null)
for name in "${names[@]}"; do
  if grep -q "^$name/" <<< "$upgradable"; then fail "apt offers to upgrade $name: $upgradable"; fi
done
# Intel's libipt-dev ships libipt.so too: apt must remove ours first (Conflicts).
apt-get -s install libipt-dev > "$work/intel-dev.log" 2>&1 || true
grep -q '^Remv libipt-transpose-dev ' "$work/intel-dev.log" && grep -q '^Inst libipt-dev ' "$work/intel-dev.log" ||
  { cat "$work/intel-dev.log"; fail "apt would install Intel's libipt-dev without removing libipt-transpose-dev"; }

echo "== pkg-config, find_package(ipt), cc -lipt and Python find our libipt in /usr"
cflags=$(pkg-config --cflags ipt)
[[ $cflags != *..* ]] || fail "pkg-config --cflags ipt: $cflags"
[ "$(pkg-config --variable=libdir ipt)" = "$libdir" ] || fail "pkg-config: libdir $(pkg-config --variable=libdir ipt)"
cc -std=c99 -Wall "$source/examples/transpose.c" $(pkg-config --cflags --libs ipt) -o "$work/consumer_pc"
"$work/consumer_pc" > /dev/null
[ "$(readlink -f "$libdir/libipt.so")" = "$libdir/libipt.so.1.0.0" ] || fail "libipt.so is not ours"
cat > "$work/t.c" << 'EOF'
#define CL_TARGET_OPENCL_VERSION 120
#include <ipt/ipt.h>
/* No queue: a status other than success, from the library -lipt found. */
int main(void) { return ipt_transpose_f32(NULL, NULL, 0, 2, 3, 0, NULL, NULL) == IPT_SUCCESS; }
EOF
cc "$work/t.c" -lipt -o "$work/t"
"$work/t"
loaded=$(ldd "$work/t" | sed -n 's/^[[:space:]]*libipt\.so\.1 => \([^ ]*\) .*/\1/p')
[ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$libdir/libipt.so.1.0.0" ] ||
  { ldd "$work/t"; fail "cc t.c -lipt does not load our libipt.so.1"; }
cmake -S "$source/tests/consumers/find_package" -B "$work/fp" -DEXAMPLES="$source/examples" \
  -DIPT_MPI=$mpi > "$work/fp.log" 2>&1 || { cat "$work/fp.log"; exit 1; }
grep -q "ipt_DIR:PATH=$libdir/cmake/ipt" "$work/fp/CMakeCache.txt" || fail "find_package(ipt) found another ipt"
cmake --build "$work/fp" > "$work/fp-build.log" 2>&1 || { cat "$work/fp-build.log"; exit 1; }
"$work/fp/consumer_c" > /dev/null
"$work/fp/consumer_cpp" > /dev/null
if [ "$fortran" = ON ]; then
  cmake -S "$source/tests/consumers/fortran" -B "$work/ff" -DEXAMPLES="$source/examples" \
    > "$work/ff.log" 2>&1 || { cat "$work/ff.log"; exit 1; }
  cmake --build "$work/ff" > "$work/ff-build.log" 2>&1 || { cat "$work/ff-build.log"; exit 1; }
  "$work/ff/consumer_fortran" > /dev/null
fi
/usr/bin/ipt-plan 300 200 4 > /dev/null
if [ "$python" = USABLE ]; then
  (cd "$work" && env -u PYTHONPATH -u IPT_LIBRARY /usr/bin/python3 -c '
import os, sys, ipt
path = os.path.realpath(ipt.library_path)
print("ipt", ipt.__file__, path)
sys.exit(0 if path == sys.argv[1] else "the ipt package loads " + path)' "$libdir/libipt.so.1.0.0")
  (cd "$work" && env -u PYTHONPATH -u IPT_LIBRARY /usr/bin/python3 "$source/examples/transpose.py") > /dev/null
fi
echo "packages: built, checked, installed beside Intel's libipt2 and used"
