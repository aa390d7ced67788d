// SPDX-License-Identifier: Apache-2.0
// Compiled programs, built once per (context, device, source text, build options) and
// shared by every thread. Concurrent first uses of the same key wait for one build
// instead of compiling twice.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/opencl.hpp"

namespace ipt::runtime {

class CachedProgram;
// Shared, not retained: a clRetainProgram / clReleaseProgram pair per launch was part of
// the 2 us between a call's plan lookup and its first argument.
using ProgramRef = std::shared_ptr<CachedProgram>;

// Returns the program of kernel `family` ("square", ...) built with `options` for
// `device` in `context`, compiling it on first use; for `groups_per_unit` of its
// work-groups on each compute unit at once where the device's compiler can be asked for
// that (Step::groups_per_unit, runtime/ptx_occupancy.hpp). IPT_BUILD_OPTIONS from the
// environment is appended to the options. Binaries are looked up in the disk cache before
// compiling and stored there after, unless it is turned off (runtime/binary_cache.hpp).
// Throws ipt::Error; a compiler failure is
// IPT_BUILD_PROGRAM_FAILURE with the build log in the message (and is not cached, so a
// corrected IPT_KERNEL_DIR source is picked up by the next call).
ProgramRef get_program(const cl::Context& context, const cl::Device& device,
                       const std::string& family, const std::string& options,
                       std::uint32_t groups_per_unit = 0);

// Whether get_program would return a program already built, without building: a lookup,
// for callers that start threads only for what is missing (build_programs). False for
// sources read from IPT_KERNEL_DIR, which get_program compares by their text.
bool program_built(const cl::Context& context, const cl::Device& device, const std::string& family,
                   const std::string& options, std::uint32_t groups_per_unit = 0);

// A built program and the idle kernel objects made from it (PooledKernel). Clearing the
// cache drops its entries; one still in use lives on, with its pool, until its last
// PooledKernel is gone.
class CachedProgram {
 public:
  explicit CachedProgram(cl::Program program) : program_(std::move(program)) {}
  const cl::Program& program() const { return program_; }

 private:
  friend class PooledKernel;
  struct Scalar {
    std::size_t size = 0;  // 0: not set through PooledKernel::set
    std::uint64_t bits = 0;
  };
  struct KernelState {
    const char* name = nullptr;  // a string literal, compared by content
    cl::Kernel kernel;
    std::uint64_t static_local = 0;
    std::size_t work_group_limit = 0;
    std::size_t compiled_work_group = 0;
    std::vector<Scalar> scalars;  // what the kernel object holds, by argument index
  };
  cl::Program program_;
  std::mutex mutex_;
  std::vector<KernelState> idle_;
};

// A kernel object of a cached program, borrowed from the program's pool and given back
// when this handle is destroyed: creating kernel objects on every call was a large part
// of a small call's fixed cost. A borrowed kernel is used by one launch
// at a time (its arguments are set, then it is enqueued; OpenCL copies the arguments at
// the enqueue), so threads never share one.
//
// Arguments are set through set(): a kernel object keeps its arguments between launches,
// and a scalar equal to the one it already holds is not set again (a call that repeats a
// shape sets only its buffers; each clSetKernelArg takes about 0.1 us). Arguments set on
// the kernel directly (operator*) would make that record wrong.
//
// CL_KERNEL_LOCAL_MEM_SIZE counts the __local arguments set so far (and a driver may lower
// CL_KERNEL_WORK_GROUP_SIZE for them), so a reused kernel would report its previous
// launch's: the pool keeps what the fresh kernel reported, for the launch checks.
class PooledKernel {
 public:
  PooledKernel(ProgramRef program, const char* name, const cl::Device& device);
  ~PooledKernel();
  PooledKernel(const PooledKernel&) = delete;
  PooledKernel& operator=(const PooledKernel&) = delete;
  PooledKernel(PooledKernel&&) noexcept = default;  // the moved-from one gives back nothing
  PooledKernel& operator=(PooledKernel&&) = delete;
  cl::Kernel& operator*() { return state_.kernel; }
  std::uint64_t static_local_bytes() const { return state_.static_local; }
  std::size_t work_group_limit() const { return state_.work_group_limit; }
  // The first dimension of the kernel's reqd_work_group_size, 0 without one.
  std::size_t compiled_work_group() const { return state_.compiled_work_group; }

  void set(cl_uint index, const cl::Buffer& buffer) {
    before_set();
    state_.kernel.setArg(index, buffer);
  }
  void set(cl_uint index, const cl::LocalSpaceArg& local) {
    before_set();
    state_.kernel.setArg(index, local);
  }
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  void set(cl_uint index, T value) {
    static_assert(sizeof(T) <= sizeof(std::uint64_t), "a scalar argument of at most 8 bytes");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof value);
    if (index < state_.scalars.size() && state_.scalars[index].size == sizeof value &&
        state_.scalars[index].bits == bits)
      return;
    before_set();
    state_.kernel.setArg(index, value);
    if (index >= state_.scalars.size()) state_.scalars.resize(index + 1);
    state_.scalars[index] = {sizeof value, bits};
  }
  // An idx_t argument: cl_ulong for 64-bit kernels, cl_uint otherwise (the planner picks
  // 32-bit indices only when every index fits).
  void set_index(cl_uint index, bool index64, std::uint64_t value) {
    if (index64)
      set(index, static_cast<cl_ulong>(value));
    else
      set(index, static_cast<cl_uint>(value));
  }

 private:
  // Before each clSetKernelArg: the fault seam (runtime/fault_seam.hpp).
  static void before_set();

  ProgramRef program_;
  CachedProgram::KernelState state_;
};

// How programs were obtained since the process started (for tests and diagnostics).
struct ProgramCacheStats {
  std::size_t source_builds = 0;    // compiled from source
  std::size_t ptx_only_builds = 0;  // of those, first built only for their PTX (NVIDIA)
  std::size_t disk_loads = 0;       // built from a binary found in the disk cache
};
ProgramCacheStats program_cache_stats();

// Drops every cached program (and with them the library's references to contexts).
void clear_program_cache();

// Number of programs currently cached (for tests and diagnostics).
std::size_t program_cache_size();

}  // namespace ipt::runtime
