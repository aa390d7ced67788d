#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The ABI test: each shared library exports exactly the symbols of its stored list
# (tests/abi/*.symbols; docs/abi.md). A symbol missing from the library breaks programs
# linked against an earlier build; an extra one becomes part of the ABI once released.
#   check_symbols.sh NM LIST LIBRARY
# A LIBRARY of "SKIP:<reason>" prints the reason and exits 77 (ctest's SKIP_RETURN_CODE).
set -uo pipefail
nm=$1 list=$2 library=$3
case $library in
  SKIP:*)
    echo "skipped: ${library#SKIP:}"
    exit 77
    ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
grep -v '^#' "$list" | sed '/^$/d' | sort -u > "$work/expected"
if ! "$nm" -D --defined-only "$library" > "$work/nm"; then
  echo "FAIL: $nm -D --defined-only $library failed"
  exit 1
fi
awk 'NF >= 2 { print $NF }' "$work/nm" | sort -u > "$work/actual"
missing=$(comm -23 "$work/expected" "$work/actual")
extra=$(comm -13 "$work/expected" "$work/actual")
if [ -z "$missing" ] && [ -z "$extra" ]; then
  echo "$(basename "$library"): the $(wc -l < "$work/actual") symbols of $(basename "$list")"
  exit 0
fi
echo "FAIL: $(basename "$library") does not export what $list lists."
if [ -n "$missing" ]; then
  echo "  missing (removing a symbol breaks the ABI):"
  echo "$missing" | sed 's/^/    /'
fi
if [ -n "$extra" ]; then
  echo "  extra (a new symbol is new ABI):"
  echo "$extra" | sed 's/^/    /'
fi
echo "  If the change is deliberate (docs/abi.md: an addition is a minor version, a removal"
echo "  or a change a major version and a new SONAME), update the list with:"
echo "    { head -n 2 $list; $nm -D --defined-only $library |" \
  "awk 'NF >= 2 { print \$NF }' | sort -u; } > $list.new && mv $list.new $list"
exit 1
