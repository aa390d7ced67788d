// SPDX-License-Identifier: Apache-2.0
#include "runtime/program_cache.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "runtime/binary_cache.hpp"
#include "runtime/environment.hpp"
#include "runtime/error.hpp"
#include "runtime/fault_seam.hpp"
#include "runtime/kernel_sources.hpp"
#include "runtime/ptx_occupancy.hpp"

namespace ipt::runtime {
namespace {

// The context and device handles identify the key; the cached cl::Program retains its
// context, so a handle in the map can never be freed and reused for another context. The
// source part is the family's name for the embedded sources, which never change, and the
// whole text for sources read from IPT_KERNEL_DIR, which may: building the text (15 KB)
// and comparing it in the map took 3-6 us of host time per kernel launch, a tenth of a
// small call.
using Key = std::tuple<cl_context, cl_device_id, std::string, std::string, std::uint32_t>;

struct Cache {
  std::mutex mutex;
  std::map<Key, std::shared_future<ProgramRef>> programs;
  ProgramCacheStats stats;
};

// Never destroyed: releasing programs from a static destructor could call into an
// OpenCL driver that has already been unloaded at process exit.
Cache& cache() {
  static Cache* instance = new Cache;
  return *instance;
}

// The step's options, then what depends on the device alone (kernels/common.cl,
// IPT_UNROLL: no unrolling on a CPU device), then the caller's IPT_BUILD_OPTIONS.
std::string full_options(const cl::Device& device, const std::string& options) {
  std::string all = options;
  if ((device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0) all += " -DIPT_UNROLL=0";
  if (const char* extra = variable(Variable::kBuildOptions)) all += std::string(" ") + extra;
  return all;
}

void count(std::size_t ProgramCacheStats::*field) {
  std::lock_guard<std::mutex> lock(cache().mutex);
  ++(cache().stats.*field);
}

// A program built from a cached binary, or nothing if the binary is refused.
std::optional<cl::Program> build_from_binary(const cl::Context& context, const cl::Device& device,
                                             const std::vector<unsigned char>& binary,
                                             const std::string& options) {
  try {
    faults::point(faults::Site::kAllocation, "clCreateProgramWithBinary");
    cl::Program program(context, {device}, cl::Program::Binaries{binary});
    faults::point(faults::Site::kCall, "clBuildProgram");
    program.build(std::vector<cl::Device>{device}, options.c_str());
    return program;
  } catch (const cl::Error&) {
    return std::nullopt;  // stale or foreign binary: compile from source instead
  }
}

std::vector<unsigned char> program_binary(const cl::Program& program) {
  try {
    auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
    return binaries.empty() ? std::vector<unsigned char>{} : binaries.front();
  } catch (const cl::Error&) {
    return {};
  }
}

cl::Program build_from_source(const cl::Context& context, const cl::Device& device,
                              const std::string& family, const std::string& source,
                              const std::string& options) {
  faults::point(faults::Site::kAllocation, "clCreateProgramWithSource");
  cl::Program program(context, source);
  cl_int code = CL_SUCCESS;
  try {
    faults::point(faults::Site::kCall, "clBuildProgram");
    program.build(std::vector<cl::Device>{device}, options.c_str());
    count(&ProgramCacheStats::source_builds);
    return program;
  } catch (const cl::BuildError& e) {
    code = e.err();
  } catch (const cl::Error& e) {
    // The driver out of memory or resources is not the source failing to compile: its
    // own status, as for any other call.
    if (e.err() != CL_BUILD_PROGRAM_FAILURE && e.err() != CL_INVALID_BUILD_OPTIONS) throw;
    code = e.err();
  }
  std::string log;
  try {
    log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
  } catch (const cl::Error&) {
    log = "(no build log available)";
  }
  fail(IPT_BUILD_PROGRAM_FAILURE, "building kernel family '" + family + "' with options '" +
                                      options + "' failed (OpenCL error " + std::to_string(code) +
                                      "). Build log:\n" + log);
}

// `program` built again from its PTX for `groups_per_unit` groups on each compute unit
// (runtime/ptx_occupancy.hpp), where its binary is PTX and that build succeeds; else
// nothing.
std::optional<cl::Program> for_groups_per_unit(const cl::Context& context, const cl::Device& device,
                                               const cl::Program& program,
                                               const std::string& options,
                                               std::uint32_t groups_per_unit) {
  const auto ptx = with_min_groups_per_unit(program_binary(program), groups_per_unit);
  if (!ptx) return std::nullopt;
  return build_from_binary(context, device, *ptx, options);
}

// Of a program that is built again from its PTX (for_groups_per_unit), the first build
// serves only for that PTX. NVIDIA's driver can translate it at its assembler's lowest
// level: the PTX is the same text at every level, and with the driver's cache cold such a
// first build took 20-30% less time on an H200 (0.34 s against 0.43 s, 0.44 s against
// 0.62 s for on-chip programs of floats). Other platforms build as without it.
constexpr const char* kPtxOnlyOption = " -cl-nv-opt-level=0";

bool takes_ptx_only_option(const cl::Device& device) {
  try {
    // One argument: opencl.hpp versions return cl_platform_id or cl::Platform here.
    const cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
    return platform.getInfo<CL_PLATFORM_NAME>().find("NVIDIA") != std::string::npos;
  } catch (const cl::Error&) {
    return false;
  }
}

// The program built from source for its PTX alone (kPtxOnlyOption); nothing where the
// driver refuses that build.
std::optional<cl::Program> ptx_only_build(const cl::Context& context, const cl::Device& device,
                                          const std::string& source, const std::string& options) {
  try {
    faults::point(faults::Site::kAllocation, "clCreateProgramWithSource");
    cl::Program program(context, source);
    faults::point(faults::Site::kCall, "clBuildProgram");
    program.build(std::vector<cl::Device>{device}, (options + kPtxOnlyOption).c_str());
    return program;
  } catch (const cl::Error&) {
    return std::nullopt;
  }
}

// The program built from source, for `groups_per_unit` groups on each compute unit where
// the device's compiler can be asked for that; else as it is (the on-chip kernel's probe
// finds out whether its groups all run). One group needs nothing: a group of a size the
// device launches at all runs. A build refused at the lowest level is built as without
// it, which reports a failure of the source itself with its log.
cl::Program build_from_source_for_groups(const cl::Context& context, const cl::Device& device,
                                         const std::string& family, const std::string& source,
                                         const std::string& options,
                                         std::uint32_t groups_per_unit) {
  if (groups_per_unit < 2) return build_from_source(context, device, family, source, options);
  if (takes_ptx_only_option(device)) {
    if (const auto first = ptx_only_build(context, device, source, options)) {
      if (auto rebuilt = for_groups_per_unit(context, device, *first, options, groups_per_unit)) {
        count(&ProgramCacheStats::source_builds);
        count(&ProgramCacheStats::ptx_only_builds);
        return *rebuilt;
      }
      // No directive taken: the program at the default level, as it is.
      return build_from_source(context, device, family, source, options);
    }
  }
  cl::Program program = build_from_source(context, device, family, source, options);
  auto rebuilt = for_groups_per_unit(context, device, program, options, groups_per_unit);
  return rebuilt ? *rebuilt : program;
}

cl::Program build(const cl::Context& context, const cl::Device& device, const std::string& family,
                  const std::string& source, const std::string& options,
                  std::uint32_t groups_per_unit) {
  const auto from_source = [&] {
    return build_from_source_for_groups(context, device, family, source, options, groups_per_unit);
  };
  const std::string dir = cache_folder();
  if (dir.empty()) return from_source();
  // The binary stored is the one built for the groups: they are part of its key.
  const BinaryKey key = binary_key(
      device, source,
      groups_per_unit < 2 ? options
                          : options + " (" + std::to_string(groups_per_unit) + " groups per unit)");
  if (const auto binary = load_binary(dir, key)) {
    if (auto program = build_from_binary(context, device, *binary, options)) {
      count(&ProgramCacheStats::disk_loads);
      return *program;
    }
  }
  cl::Program program = from_source();
  store_binary(dir, key, program_binary(program));
  return program;
}

// The cache's key of a program: `source` is the text read from IPT_KERNEL_DIR, or null for
// the embedded sources.
Key key_of(const cl::Context& context, const cl::Device& device, const std::string& family,
           const std::string* source, const std::string& all_options,
           std::uint32_t groups_per_unit) {
  return Key{context(), device(), source != nullptr ? "file:" + *source : "embedded:" + family,
             all_options, groups_per_unit};
}

}  // namespace

bool program_built(const cl::Context& context, const cl::Device& device, const std::string& family,
                   const std::string& options, std::uint32_t groups_per_unit) {
  if (kernel_sources_from_files()) return false;
  const Key key =
      key_of(context, device, family, nullptr, full_options(device, options), groups_per_unit);
  std::lock_guard<std::mutex> lock(cache().mutex);
  const auto found = cache().programs.find(key);
  return found != cache().programs.end() &&
         found->second.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

ProgramRef get_program(const cl::Context& context, const cl::Device& device,
                       const std::string& family, const std::string& options,
                       std::uint32_t groups_per_unit) {
  const bool from_files = kernel_sources_from_files();
  std::string source = from_files ? program_source(family) : std::string();
  const std::string all_options = full_options(device, options);
  const Key key =
      key_of(context, device, family, from_files ? &source : nullptr, all_options, groups_per_unit);

  std::promise<ProgramRef> promise;
  std::shared_future<ProgramRef> result;
  bool builder = false;
  {
    std::lock_guard<std::mutex> lock(cache().mutex);
    auto found = cache().programs.find(key);
    if (found != cache().programs.end()) {
      result = found->second;
    } else {
      result = promise.get_future().share();
      cache().programs.emplace(key, result);
      builder = true;
    }
  }
  if (!builder) return result.get();  // rethrows the builder's error, if any

  try {
    if (!from_files) source = program_source(family);
    promise.set_value(std::make_shared<CachedProgram>(
        build(context, device, family, source, all_options, groups_per_unit)));
  } catch (...) {
    promise.set_exception(std::current_exception());
    std::lock_guard<std::mutex> lock(cache().mutex);
    cache().programs.erase(key);
  }
  return result.get();
}

void clear_program_cache() {
  // Dropped after the lock: releasing a program may block in the driver, and every
  // get_program waits for this lock.
  std::map<Key, std::shared_future<ProgramRef>> dropped;
  std::lock_guard<std::mutex> lock(cache().mutex);
  dropped.swap(cache().programs);
}

PooledKernel::PooledKernel(ProgramRef program, const char* name, const cl::Device& device)
    : program_(std::move(program)) {
  {
    std::lock_guard<std::mutex> lock(program_->mutex_);
    auto& idle = program_->idle_;
    for (auto it = idle.rbegin(); it != idle.rend(); ++it) {
      if (std::strcmp(it->name, name) != 0) continue;
      state_ = std::move(*it);
      idle.erase(std::next(it).base());
      return;
    }
  }
  state_.name = name;
  faults::point(faults::Site::kAllocation, "clCreateKernel");
  state_.kernel = cl::Kernel(program_->program(), name);  // outside the lock: may take a while
  state_.static_local = state_.kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device);
  state_.work_group_limit = state_.kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);
  state_.compiled_work_group =
      state_.kernel.getWorkGroupInfo<CL_KERNEL_COMPILE_WORK_GROUP_SIZE>(device)[0];
}

void PooledKernel::before_set() { faults::point(faults::Site::kCall, "clSetKernelArg"); }

PooledKernel::~PooledKernel() {
  if (program_ == nullptr) return;  // moved from
  try {
    std::lock_guard<std::mutex> lock(program_->mutex_);
    program_->idle_.push_back(std::move(state_));
  } catch (...) {
    // Not pooled: the kernel is simply released.
  }
}

ProgramCacheStats program_cache_stats() {
  std::lock_guard<std::mutex> lock(cache().mutex);
  return cache().stats;
}

std::size_t program_cache_size() {
  std::lock_guard<std::mutex> lock(cache().mutex);
  return cache().programs.size();
}

}  // namespace ipt::runtime
