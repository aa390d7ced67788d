#!/usr/bin/env bash
# The public headers leave the caller's OpenCL configuration alone: ipt.h (C and C++) and
# ipt.hpp (C++) included first, last and alone, with CL_TARGET_OPENCL_VERSION /
# CL_HPP_TARGET_OPENCL_VERSION 120, 200, 300 and undefined, compile, and the OpenCL
# headers declare what the caller asked for (the OpenCL 2.0 entry points exactly when
# the version is 200 or more, or undefined: the headers' default is 300).
#   check_order.sh CC CXX INCLUDE_DIR
set -uo pipefail
cc=$1 cxx=$2 include=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
count=0
check() {  # $1 c|c++, $2 version (none|120|200|300), $3 order (first|last|alone), $4 header
  local lang=$1 version=$2 order=$3 header=$4 src=$work/t.$1 opencl
  if [ "$lang" = c ]; then opencl="CL/cl.h"; else opencl="CL/opencl.hpp"; fi
  {
    if [ "$version" != none ]; then
      echo "#define CL_TARGET_OPENCL_VERSION $version"
      [ "$lang" = c++ ] && echo "#define CL_HPP_TARGET_OPENCL_VERSION $version" &&
        echo "#define CL_HPP_MINIMUM_OPENCL_VERSION $version"
    fi
    [ "$order" = last ] && echo "#include <$opencl>"
    echo "#include <ipt/$header>"
    [ "$order" = first ] && echo "#include <$opencl>"
    if [ "$version" = none ] || [ "$version" -ge 200 ]; then
      echo "#ifndef CL_VERSION_2_0"
      echo "#error the OpenCL 2.0 declarations are hidden"
      echo "#endif"
    else
      echo "#ifdef CL_VERSION_2_0"
      echo "#error OpenCL 2.0 declarations appeared for a 1.2 target"
      echo "#endif"
    fi
    echo "#ifdef CL_VERSION_2_0"
    echo "void *queue_with_properties(void) { return (void *)&clCreateCommandQueueWithProperties; }"
    echo "#endif"
    echo "void *transpose(void) { return (void *)&ipt_transpose_f32; }"
    [ "$header" = ipt.hpp ] && echo "ipt::error *cpp_layer(void) { return nullptr; }"
  } > "$src"
  local compiler=$cc std=-std=c99
  [ "$lang" = c++ ] && compiler=$cxx std=-std=c++17
  count=$((count + 1))
  if ! "$compiler" $std -Wall -Wextra -Werror -Wno-deprecated-declarations -fsyntax-only \
      -I"$include" -x "$lang" "$src" 2> "$work/err"; then
    echo "FAIL: $lang, version $version, ipt/$header $order:"
    sed 's/^/    /' "$work/err" | head -8
    echo "  source:"
    sed 's/^/    /' "$src"
    fail=1
  fi
}
for version in none 120 200 300; do
  for order in first last alone; do
    check c "$version" "$order" ipt.h
    check c++ "$version" "$order" ipt.h
    check c++ "$version" "$order" ipt.hpp
  done
done
[ "$fail" = 0 ] && echo "headers: $count combinations compile and keep the caller's OpenCL configuration"
exit $fail
