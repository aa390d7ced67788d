#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/plots/plot.sh installs nothing unless asked: run without matplotlib, without a
# terminal and without IPT_PLOT_INSTALL=1, it must not call apt-get (a stand-in first in
# PATH records any call) and must exit with an error that names the package.
#   plot_no_install.sh SOURCE_DIR
set -uo pipefail
source_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
printf '#!/bin/sh\necho "$@" >> %s/apt-get.calls\nexit 1\n' "$work" > "$work/bin/apt-get"
chmod +x "$work/bin/apt-get"
# An interpreter without matplotlib, whatever this machine has installed.
printf '#!/bin/sh\nexit 1\n' > "$work/bin/nopython"
chmod +x "$work/bin/nopython"
PATH="$work/bin:$PATH" PYTHON="$work/bin/nopython" IPT_PLOT_INSTALL='' \
  bash "$source_dir/tools/plots/plot.sh" "$work/out" /nonexistent.csv < /dev/null > "$work/log" 2>&1
status=$?
if [ -e "$work/apt-get.calls" ]; then
  echo "FAIL: plot.sh called apt-get without being asked: $(cat "$work/apt-get.calls")"
  exit 1
fi
if [ "$status" = 0 ]; then
  echo "FAIL: plot.sh succeeded on a missing CSV"
  exit 1
fi
if ! /usr/bin/python3 -c 'import matplotlib' 2> /dev/null &&
  ! grep -q "apt-get install python3-matplotlib" "$work/log"; then
  echo "FAIL: plot.sh did not say how to install matplotlib:"
  cat "$work/log"
  exit 1
fi
echo "plot.sh installed nothing (exit $status)"
