#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Plot ipt-bench CSV files: plot.sh OUT_DIR CSV [CSV...]
# Extra options (e.g. --trust-unverified) are passed on to plot_results.py.
# Needs python3 with matplotlib. Without it, prints the apt-get command to run; as root it
# installs Debian's python3-matplotlib (with its dependencies, a few hundred MB) only
# when asked to: IPT_PLOT_INSTALL=1, or "y" at the prompt on a terminal.
# Set PYTHON to choose the interpreter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [[ $# -lt 2 ]]; then
  echo "usage: $0 OUT_DIR CSV [CSV...]" >&2
  exit 2
fi

has_matplotlib() { "$1" -c 'import matplotlib' >/dev/null 2>&1; }

# Whether to install python3-matplotlib (and what apt-get pulls in with it): only when
# IPT_PLOT_INSTALL=1, or when a person at a terminal answers y.
install_wanted() {
  [[ ${IPT_PLOT_INSTALL:-} == 1 ]] && return 0
  [[ -t 0 ]] || return 1
  local size
  size=$(apt-get install -s --no-install-recommends python3-matplotlib 2>/dev/null |
    grep -c '^Inst ' || true)
  read -r -p "matplotlib is missing: install python3-matplotlib and ${size:-its} package(s) with apt-get? [y/N] " answer
  [[ $answer == [yY]* ]]
}

python="${PYTHON:-python3}"
if ! has_matplotlib "$python"; then
  # apt installs into Debian's interpreter, which may not be the python3 on PATH (pyenv, venv).
  if [[ -x /usr/bin/python3 ]] && has_matplotlib /usr/bin/python3; then
    echo "note: $python has no matplotlib; using /usr/bin/python3" >&2
    python=/usr/bin/python3
  elif [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1 && install_wanted; then
    echo "matplotlib missing: installing python3-matplotlib with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y --no-install-recommends python3-matplotlib; then
      apt-get update
      apt-get install -y --no-install-recommends python3-matplotlib
    fi
    if ! has_matplotlib "$python"; then
      python=/usr/bin/python3
    fi
    if ! has_matplotlib "$python"; then
      echo "error: matplotlib still not importable after installing python3-matplotlib" >&2
      exit 1
    fi
  else
    echo "error: matplotlib is not installed for $python. Install it with:" >&2
    echo "  sudo apt-get install python3-matplotlib" >&2
    echo "(as root: IPT_PLOT_INSTALL=1 $0 ... installs it for you)." >&2
    echo "then run $0 again (it falls back to /usr/bin/python3 when that has matplotlib)." >&2
    exit 1
  fi
fi

exec "$python" "$here/plot_results.py" "$@"
