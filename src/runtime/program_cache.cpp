#include "runtime/program_cache.hpp"

#include <cstdlib>
#include <future>
#include <map>
#include <mutex>
#include <tuple>

#include "runtime/error.hpp"
#include "runtime/kernel_sources.hpp"

namespace ipt::runtime {
namespace {

// The context and device handles identify the key; the cached cl::Program retains its
// context, so a handle in the map can never be freed and reused for another context.
using Key = std::tuple<cl_context, cl_device_id, std::string, std::string>;

struct Cache {
  std::mutex mutex;
  std::map<Key, std::shared_future<cl::Program>> programs;
};

// Never destroyed: releasing programs from a static destructor could call into an
// OpenCL driver that has already been unloaded at process exit.
Cache& cache() {
  static Cache* instance = new Cache;
  return *instance;
}

std::string full_options(const std::string& options) {
  const char* extra = std::getenv("IPT_BUILD_OPTIONS");
  if (extra == nullptr || *extra == '\0') return options;
  return options + " " + extra;
}

cl::Program build(const cl::Context& context, const cl::Device& device,
                  const std::string& family, const std::string& source,
                  const std::string& options) {
  cl::Program program(context, source);
  cl_int code = CL_SUCCESS;
  try {
    program.build(std::vector<cl::Device>{device}, options.c_str());
    return program;
  } catch (const cl::BuildError& e) {
    code = e.err();
  } catch (const cl::Error& e) {
    code = e.err();
  }
  std::string log;
  try {
    log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
  } catch (const cl::Error&) {
    log = "(no build log available)";
  }
  fail(IPT_BUILD_PROGRAM_FAILURE, "building kernel family '" + family + "' with options '" +
                                      options + "' failed (OpenCL error " +
                                      std::to_string(code) + "). Build log:\n" + log);
}

}  // namespace

cl::Program get_program(const cl::Context& context, const cl::Device& device,
                        const std::string& family, const std::string& options) {
  const std::string source = program_source(family);
  const std::string all_options = full_options(options);
  Key key{context(), device(), source, all_options};

  std::promise<cl::Program> promise;
  std::shared_future<cl::Program> result;
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
    promise.set_value(build(context, device, family, source, all_options));
  } catch (...) {
    promise.set_exception(std::current_exception());
    std::lock_guard<std::mutex> lock(cache().mutex);
    cache().programs.erase(key);
  }
  return result.get();
}

void clear_program_cache() {
  std::lock_guard<std::mutex> lock(cache().mutex);
  cache().programs.clear();
}

std::size_t program_cache_size() {
  std::lock_guard<std::mutex> lock(cache().mutex);
  return cache().programs.size();
}

}  // namespace ipt::runtime
