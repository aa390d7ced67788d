// SPDX-License-Identifier: Apache-2.0
// Machine code for NVIDIA devices. NVIDIA's OpenCL driver gives back PTX for a built
// program and translates PTX to machine code every time a process loads it, one program
// at a time; it also accepts machine code (a cubin) in clCreateProgramWithBinary. The
// CUDA driver's JIT linker (libcuda.so.1, installed with every NVIDIA driver) makes that
// cubin from the same PTX and runs on several threads at once. A session holds a CUDA
// context for as long as it lives (on the first CUDA device, which serves any target:
// the target architecture is named explicitly) and needs one while translating.
#pragma once

#include <memory>
#include <vector>

#include "runtime/opencl.hpp"

namespace ipt::runtime {

class CudaJit {
 public:
  // A session for `device`, or nullptr where it is not an NVIDIA device that reports its
  // compute capability, or libcuda.so.1, its symbols or a CUDA context are unavailable.
  static std::unique_ptr<CudaJit> open(const cl::Device& device);
  ~CudaJit();
  CudaJit(const CudaJit&) = delete;
  CudaJit& operator=(const CudaJit&) = delete;

  // The cubin of `ptx`, or empty if the JIT linker refuses it. Thread-safe.
  std::vector<unsigned char> translate(const std::vector<unsigned char>& ptx) const;

  // Whether `binary` is machine code already (an ELF image) rather than PTX.
  static bool is_machine_code(const std::vector<unsigned char>& binary);

  struct Driver;  // the CUDA driver's entry points, loaded once

 private:
  CudaJit(const Driver& driver, void* context, int target);

  const Driver& driver_;
  void* context_;
  int target_;
};

}  // namespace ipt::runtime
