// Compiled programs, built once per (context, device, source text, build options) and
// shared by every thread. Concurrent first uses of the same key wait for one build
// instead of compiling twice.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/opencl.hpp"

namespace ipt::runtime {

// Returns the program of kernel `family` ("square", ...) built with `options` for
// `device` in `context`, compiling it on first use. IPT_BUILD_OPTIONS from the
// environment is appended to the options. When IPT_CACHE_DIR names a folder, binaries
// are looked up there before compiling and stored there after (runtime/binary_cache.hpp).
// Throws ipt::Error; a compiler failure is
// IPT_BUILD_PROGRAM_FAILURE with the build log in the message (and is not cached, so a
// corrected IPT_KERNEL_DIR source is picked up by the next call).
cl::Program get_program(const cl::Context& context, const cl::Device& device,
                        const std::string& family, const std::string& options);

// A kernel object of `program`, borrowed from a pool kept beside the program cache and
// given back when this handle is destroyed: creating kernel objects on every call
// (twice, with the dry run) was part of the fixed cost of a call. A borrowed kernel is
// used by one launch at a time (its arguments are set, then it is enqueued; OpenCL
// copies the arguments at the enqueue), so threads never share one.
//
// CL_KERNEL_LOCAL_MEM_SIZE counts the __local arguments set so far (and a driver may lower
// CL_KERNEL_WORK_GROUP_SIZE for them), so a reused kernel would report its previous
// launch's: the pool keeps what the fresh kernel reported, for the launch checks.
class PooledKernel {
 public:
  PooledKernel(const cl::Program& program, const char* name, const cl::Device& device);
  ~PooledKernel();
  PooledKernel(const PooledKernel&) = delete;
  PooledKernel& operator=(const PooledKernel&) = delete;
  cl::Kernel& operator*() { return kernel_; }
  std::uint64_t static_local_bytes() const { return static_local_; }
  std::size_t work_group_limit() const { return work_group_limit_; }

 private:
  cl::Kernel kernel_;
  std::uint64_t static_local_ = 0;
  std::size_t work_group_limit_ = 0;
  cl_program program_;
  std::string name_;
  unsigned long long generation_;
};

// How programs were obtained since the process started (for tests and diagnostics).
struct ProgramCacheStats {
  std::size_t source_builds = 0;  // compiled from source
  std::size_t disk_loads = 0;     // built from a binary found in IPT_CACHE_DIR
};
ProgramCacheStats program_cache_stats();

// Drops every cached program (and with them the library's references to contexts).
void clear_program_cache();

// Number of programs currently cached (for tests and diagnostics).
std::size_t program_cache_size();

}  // namespace ipt::runtime
