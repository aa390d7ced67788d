// Compiled programs, built once per (context, device, source text, build options) and
// shared by every thread. Concurrent first uses of the same key wait for one build
// instead of compiling twice.
#pragma once

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
