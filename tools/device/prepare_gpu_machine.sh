# SPDX-License-Identifier: Apache-2.0
# Sourced by the GPU-machine scripts: registers NVIDIA's OpenCL driver, unpacks the
# Catch2/CLBlast Debian packages carried in .device/ (the GPU machine has neither and no
# network) and Open MPI's from .device/mpi where it has no MPI, selects the NVIDIA device, records the GPU, and builds build-gpu. Sets `out` (logs and CSVs: $OUT).
out=${OUT:-/tmp/ipt-out}
mkdir -p "$out"
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
for f in .device/*.deb; do dpkg -x "$f" /; done
# Open MPI for libipt_mpi where the machine has none: Debian's packages carried in
# .device/mpi, unpacked beside the system without replacing any file it already has.
if ! command -v mpirun > /dev/null && ls .device/mpi/*.deb > /dev/null 2>&1; then
  rm -rf /tmp/mpi-root && mkdir -p /tmp/mpi-root
  for f in .device/mpi/*.deb; do dpkg -x "$f" /tmp/mpi-root; done
  cp -an /tmp/mpi-root/. /
fi
ldconfig
command -v mpirun > /dev/null && mpirun --version 2>&1 | head -1
export IPT_DEVICE=${IPT_DEVICE:-NVIDIA}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
# The device tool copies the working tree, not always its current history: the caller
# names the commit (IPT_COMMIT) so that ipt-bench's summaries record the right one.
# IPT_CMAKE_ARGS: extra configure arguments (e.g. -DIPT_BUILD_TESTS=OFF for benchmarks only).
# The options are given their defaults first: build-gpu's cache keeps what an earlier
# script of the same machine set, and a suite configured after a benchmarks-only build
# found no tests.
defaults="-DIPT_BUILD_TESTS=ON -DIPT_BUILD_TOOLS=ON -DIPT_BUILD_FORTRAN=ON -DIPT_BUILD_MPI=ON -DIPT_BUILD_PYTHON=ON"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DIPT_GIT_COMMIT="${IPT_COMMIT:-}" $defaults ${IPT_CMAKE_ARGS:-} > "$out/build.log" 2>&1 &&
  cmake --build build-gpu -j "$(nproc)" >> "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
