#!/usr/bin/env bash
# The Debian packages (cmake/IptPackaging.cmake): cpack builds libipt0, libipt-dev,
# ipt-tools and, when the Python package is built, python3-ipt; each holds what it should.
# As root, they are installed with dpkg, a consumer is built against them (CMake and
# pkg-config, from /usr) and run, the tools and the Python package are used from /usr,
# and the packages are removed again. Otherwise they are unpacked into a directory with
# dpkg-deb and the consumer is built against that.
#   check_debs.sh BUILD_DIR SOURCE_DIR PYTHON
# PYTHON: OFF (no Python package), BUILT (built, but pyopencl and numpy, which it
# depends on, are not installed: its contents are checked, it is not installed), USABLE.
set -euo pipefail
build=$1 source=$2 python=$3
work=$(mktemp -d)
installed=()
cleanup() {
  if ((${#installed[@]})); then dpkg --purge "${installed[@]}" > "$work/purge.log" 2>&1 || cat "$work/purge.log"; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== cpack -G DEB"
(cd "$build" && cpack -G DEB -B "$work/debs") > "$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; exit 1; }
names=(libipt0 libipt-dev ipt-tools)
[ "$python" != OFF ] && names+=(python3-ipt)
debs=()
for name in "${names[@]}"; do
  deb=$(ls "$work"/debs/"${name}"_*.deb 2> /dev/null | head -n 1)
  [ -n "$deb" ] || { echo "no $name package"; ls "$work/debs"; exit 1; }
  debs+=("$deb")
  dpkg-deb -c "$deb" > "$work/$name.files"
  echo "$name: $(basename "$deb"), depends: $(dpkg-deb -f "$deb" Depends)"
done
expect() {  # $1 package, $2 a pattern of a path it must hold
  grep -Eq "$2" "$work/$1.files" || { echo "$1 lacks $2"; cat "$work/$1.files"; exit 1; }
}
expect libipt0 '\./usr/lib/.*libipt\.so\.0\.1'
expect libipt-dev '\./usr/include/ipt/ipt\.h$'
expect libipt-dev '\./usr/include/ipt/ipt\.hpp$'
expect libipt-dev '\./usr/lib/.*libipt\.so -> '
expect libipt-dev '\./usr/lib/.*pkgconfig/ipt\.pc$'
expect libipt-dev '\./usr/lib/.*cmake/ipt/iptConfig\.cmake$'
expect ipt-tools '\./usr/bin/ipt-plan$'
[ "$python" != OFF ] && expect python3-ipt '\./usr/lib/python3/dist-packages/ipt/__init__\.py$'
if grep -q 'include/ipt' "$work/libipt0.files"; then echo "libipt0 holds headers"; exit 1; fi

if [ "$(id -u)" = 0 ]; then
  echo "== dpkg -i"
  for name in "${names[@]}"; do
    if dpkg-query -W -f='${Status}' "$name" 2> /dev/null | grep -q "install ok installed"; then
      echo "$name is installed already; not touching it"; exit 1
    fi
  done
  to_install=("${debs[@]}")
  installed=("${names[@]}")
  if [ "$python" = BUILT ]; then
    echo "python3-ipt: contents checked; not installed (python3-pyopencl or python3-numpy missing)"
    unset 'to_install[3]' 'installed[3]'
  fi
  dpkg -i "${to_install[@]}" > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; exit 1; }
  prefix=/usr
  /usr/bin/ipt-plan 300 200 4 > /dev/null
else
  echo "== not root: dpkg-deb -x into a directory"
  for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$work/root"; done
  prefix=$work/root/usr
  export LD_LIBRARY_PATH=$(dirname "$(find "$prefix" -name 'libipt.so.1' | head -n 1)")
fi

echo "== find_package(ipt) against the packages"
cmake -S "$source/tests/consumers/find_package" -B "$work/fp" -DCMAKE_PREFIX_PATH="$prefix" \
  -DEXAMPLES="$source/examples" > "$work/fp.log" 2>&1 || { cat "$work/fp.log"; exit 1; }
cmake --build "$work/fp" > "$work/fp-build.log" 2>&1 || { cat "$work/fp-build.log"; exit 1; }
"$work/fp/consumer_c"
"$work/fp/consumer_cpp"
echo "== pkg-config against the packages"
pc_dir=$(dirname "$(find "$prefix" -name ipt.pc | head -n 1)")
PKG_CONFIG_PATH=$pc_dir cc -std=c99 -Wall "$source/examples/transpose.c" \
  $(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs ipt) -o "$work/consumer_pc"
"$work/consumer_pc"
if [ "$python" = USABLE ] && [ "$(id -u)" = 0 ]; then
  echo "== the Python package from /usr"
  (cd "$work" && env -u PYTHONPATH /usr/bin/python3 "$source/examples/transpose.py")
fi
echo "packages: built, checked and used"
