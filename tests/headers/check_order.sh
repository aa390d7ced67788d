#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The public headers leave the caller's OpenCL configuration alone. For each way a caller
# may configure OpenCL (only the bindings' CL_HPP_TARGET_OPENCL_VERSION, with or without
# CL_HPP_MINIMUM_OPENCL_VERSION; only CL_TARGET_OPENCL_VERSION; both; neither; version 120,
# and both at 300) and each include order of the public headers
# (ipt.h, ipt.hpp, <CL/cl.h>, <CL/opencl.hpp>, and ipt_mpi.h / ipt_mpi.hpp when MPI's
# include directories are given), the sources preprocess with -Werror and:
#   - the OpenCL headers declare the version the caller asked for (the OpenCL 2.0 entry
#     points exactly when it is 200 or more; 300 where no version is set, or where the
#     caller's own <CL/cl.h> comes first with only the bindings' macro set, as without
#     libipt);
#   - no "#pragma message" appears that the same OpenCL includes without libipt's
#     headers would not print (the OpenCL headers' notes of a missing version, say).
# Preprocessing finds all of that (the pragmas stay in its output); one full compile per
# header and configuration, with -Wall -Wextra -Werror, checks the declarations are usable.
#   check_order.sh CC CXX INCLUDE_DIR [MPI_INCLUDE_DIR...]
set -uo pipefail
cc=$1 cxx=$2 include=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpi_flags=()
# System directories: MPI's C++ bindings are not warning-free.
for dir in "$@"; do mpi_flags+=(-isystem "$dir"); done
fail=0 count=0 compiles=0

# $1 c|c++, $2 config (hpp|cl|both|none), $3 version, $4 full (1: also compile), then the
# headers in include order.
check() {
  local lang=$1 config=$2 version=$3 full=$4
  shift 4
  local headers=("$@") src=$work/t.$lang base=$work/base.$lang expected=$version h
  if [ "$version" -lt 200 ] && [ "$config" != hpp ]; then
    # The bindings refuse a target below 200 without a minimum, with libipt or without:
    # only orders in which ipt.hpp, which supplies the minimum, comes before
    # <CL/opencl.hpp> (or no <CL/opencl.hpp>).
    for h in "${headers[@]}"; do
      case $h in ipt/ipt.hpp | ipt/ipt_mpi.hpp) break ;; CL/opencl.hpp) return ;; esac
    done
  fi
  [ "$config" = none ] && expected=300
  # The caller's own <CL/cl.h> first with only the bindings' macro: the C headers' default.
  case $config in hpp*) [ "${headers[0]}" = CL/cl.h ] && expected=300 ;; esac
  {
    case $config in
      hpp)
        echo "#define CL_HPP_TARGET_OPENCL_VERSION $version"
        echo "#define CL_HPP_MINIMUM_OPENCL_VERSION $version"
        ;;
      hpptarget) echo "#define CL_HPP_TARGET_OPENCL_VERSION $version" ;;
      cl) echo "#define CL_TARGET_OPENCL_VERSION $version" ;;
      both)
        echo "#define CL_TARGET_OPENCL_VERSION $version"
        echo "#define CL_HPP_TARGET_OPENCL_VERSION $version"
        ;;
    esac
  } > "$base"
  cp "$base" "$src"
  for h in "${headers[@]}"; do
    echo "#include <$h>" >> "$src"
    case $h in CL/*) echo "#include <$h>" >> "$base" ;; esac
  done
  if [ "$expected" -ge 200 ]; then
    printf '#ifndef CL_VERSION_2_0\n#error the OpenCL 2.0 declarations are hidden\n#endif\n'
  else
    printf '#ifdef CL_VERSION_2_0\n#error OpenCL 2.0 declarations appeared for a %s target\n#endif\n' \
      "$expected"
  fi >> "$src"
  local compiler=$cc std=-std=c99
  [ "$lang" = c++ ] && compiler=$cxx std=-std=c++17
  local flags=("$std" -Wall -Wextra -Werror -I"$include" "${mpi_flags[@]}" -x "$lang")
  count=$((count + 1))
  local what="$lang, $config $version, order: ${headers[*]}"
  if ! "$compiler" "${flags[@]}" -E "$src" -o "$work/out" 2> "$work/err"; then
    echo "FAIL: $what:"
    sed 's/^/    /' "$work/err" | head -8
    fail=1
    return
  fi
  # The notes of the OpenCL includes alone, once per distinct list of them.
  local key
  key=$work/base.$(cksum < "$base" | tr ' ' _).$lang.notes
  if [ ! -e "$key" ]; then
    "$compiler" "${flags[@]}" -E "$base" 2> /dev/null | grep -h '^#pragma message' |
      sort -u > "$key"
  fi
  grep -h '^#pragma message' "$work/out" | sort -u > "$work/notes"
  local extra
  extra=$(comm -23 "$work/notes" "$key")
  if [ -n "$extra" ]; then
    echo "FAIL: $what: notes the OpenCL includes alone do not print:"
    echo "$extra" | sed 's/^/    /'
    fail=1
  fi
  [ "$full" = 1 ] || return
  {
    echo "#ifdef CL_VERSION_2_0"
    echo "void *queue_with_properties(void) { return (void *)&clCreateCommandQueueWithProperties; }"
    echo "#endif"
    echo "void *transpose(void) { return (void *)&ipt_transpose_f32; }"
    case " ${headers[*]}" in *ipt/ipt*.hpp*) echo "ipt::error *cpp_layer(void) { return nullptr; }" ;; esac
  } >> "$src"
  compiles=$((compiles + 1))
  if ! "$compiler" "${flags[@]}" -Wno-deprecated-declarations -fsyntax-only "$src" \
      2> "$work/err" || [ -s "$work/err" ]; then
    echo "FAIL: $what (compiled):"
    sed 's/^/    /' "$work/err" | head -8
    fail=1
  fi
}

# Every order of `items` (recursively), each checked.
permute() {  # $1 lang, $2 config, $3 version, $4 prefix (space-separated), then the rest
  local lang=$1 config=$2 version=$3 prefix=$4
  shift 4
  if [ $# -eq 0 ]; then
    # shellcheck disable=SC2086
    check "$lang" "$config" "$version" 0 $prefix
    return
  fi
  local i items=("$@")
  for i in "${!items[@]}"; do
    local rest=("${items[@]:0:i}" "${items[@]:i+1}")
    permute "$lang" "$config" "$version" "$prefix ${items[i]}" "${rest[@]}"
  done
}

# The last field: whether the libipt headers alone are also compiled in full (once for each
# way of configuring; the declarations differ only by version).
configs=("none 0 1" "hpp 120 1" "hpptarget 120 0" "cl 120 1" "both 120 0" "both 300 0")
for entry in "${configs[@]}"; do
  read -r config version full <<< "$entry"
  # C: every order of ipt.h, <CL/cl.h> (and ipt_mpi.h); each libipt header alone.
  c_headers=(ipt/ipt.h CL/cl.h)
  [ ${#mpi_flags[@]} -gt 0 ] && c_headers+=(ipt/ipt_mpi.h)
  permute c "$config" "$version" "" "${c_headers[@]}"
  check c "$config" "$version" "$full" ipt/ipt.h
  [ ${#mpi_flags[@]} -gt 0 ] && check c "$config" "$version" "$full" ipt/ipt_mpi.h
  # C++: every order of ipt.h, ipt.hpp, <CL/cl.h> and <CL/opencl.hpp>; each libipt
  # header alone; the MPI headers alone, before and after each OpenCL header.
  permute c++ "$config" "$version" "" ipt/ipt.h ipt/ipt.hpp CL/cl.h CL/opencl.hpp
  check c++ "$config" "$version" 0 ipt/ipt.h
  check c++ "$config" "$version" "$full" ipt/ipt.hpp
  if [ ${#mpi_flags[@]} -gt 0 ]; then
    for header in ipt/ipt_mpi.h ipt/ipt_mpi.hpp; do
      check c++ "$config" "$version" "$full" "$header"
      for opencl in CL/cl.h CL/opencl.hpp; do
        check c++ "$config" "$version" 0 "$header" "$opencl"
        check c++ "$config" "$version" 0 "$opencl" "$header"
      done
    done
  fi
done
[ "$fail" = 0 ] &&
  echo "headers: $count include orders ($compiles compiled) keep the caller's OpenCL configuration"
exit $fail
