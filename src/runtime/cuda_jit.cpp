// SPDX-License-Identifier: Apache-2.0
#include "runtime/cuda_jit.hpp"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <mutex>

namespace ipt::runtime {
namespace {

// The few declarations of the CUDA driver API used here (cuda.h is not needed to build
// libipt): values as in every cuda.h since CUDA 6.5.
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUlinkState = void*;
using CUjit_option = int;
constexpr CUresult kSuccess = 0;
constexpr CUjit_option kErrorLogBuffer = 5, kErrorLogBufferSize = 6, kTarget = 9;
constexpr int kInputPtx = 1;

// OpenCL's cl_nv_device_attribute_query.
constexpr cl_device_info kComputeCapabilityMajor = 0x4000, kComputeCapabilityMinor = 0x4001;

}  // namespace

struct CudaJit::Driver {
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*primary_retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*primary_release)(CUdevice) = nullptr;
  CUresult (*push)(CUcontext) = nullptr;
  CUresult (*pop)(CUcontext*) = nullptr;
  CUresult (*link_create)(unsigned, CUjit_option*, void**, CUlinkState*) = nullptr;
  CUresult (*link_add)(CUlinkState, int, void*, std::size_t, const char*, unsigned, CUjit_option*,
                       void**) = nullptr;
  CUresult (*link_complete)(CUlinkState, void**, std::size_t*) = nullptr;
  CUresult (*link_destroy)(CUlinkState) = nullptr;
  bool usable = false;
};

namespace {

template <typename F>
bool resolve(void* library, const char* name, F& function) {
  function = reinterpret_cast<F>(dlsym(library, name));
  return function != nullptr;
}

// Loaded once and never unloaded (like the OpenCL drivers the ICD loader keeps).
const CudaJit::Driver* cuda_driver() {
  static std::once_flag once;
  static CudaJit::Driver driver;
  std::call_once(once, [] {
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) return;
    driver.usable = resolve(library, "cuInit", driver.init) &&
                    resolve(library, "cuDeviceGet", driver.device_get) &&
                    resolve(library, "cuDevicePrimaryCtxRetain", driver.primary_retain) &&
                    resolve(library, "cuDevicePrimaryCtxRelease_v2", driver.primary_release) &&
                    resolve(library, "cuCtxPushCurrent_v2", driver.push) &&
                    resolve(library, "cuCtxPopCurrent_v2", driver.pop) &&
                    resolve(library, "cuLinkCreate_v2", driver.link_create) &&
                    resolve(library, "cuLinkAddData_v2", driver.link_add) &&
                    resolve(library, "cuLinkComplete", driver.link_complete) &&
                    resolve(library, "cuLinkDestroy", driver.link_destroy) &&
                    driver.init(0) == kSuccess;
  });
  return driver.usable ? &driver : nullptr;
}

}  // namespace

CudaJit::CudaJit(const Driver& driver, void* context, int target)
    : driver_(driver), context_(context), target_(target) {}

std::unique_ptr<CudaJit> CudaJit::open(const cl::Device& device) {
  cl_uint major = 0, minor = 0;
  // Only NVIDIA's driver answers these queries; any other device is not a CUDA device.
  if (clGetDeviceInfo(device(), kComputeCapabilityMajor, sizeof(major), &major, nullptr) !=
          CL_SUCCESS ||
      clGetDeviceInfo(device(), kComputeCapabilityMinor, sizeof(minor), &minor, nullptr) !=
          CL_SUCCESS ||
      major == 0)
    return nullptr;
  const Driver* driver = cuda_driver();
  if (driver == nullptr) return nullptr;
  CUcontext context = nullptr;
  if (driver->primary_retain(&context, 0) != kSuccess) return nullptr;
  return std::unique_ptr<CudaJit>(
      new CudaJit(*driver, context, static_cast<int>(major * 10 + minor)));
}

CudaJit::~CudaJit() { driver_.primary_release(0); }

bool CudaJit::is_machine_code(const std::vector<unsigned char>& binary) {
  return binary.size() >= 4 && std::memcmp(binary.data(),
                                           "\x7f"
                                           "ELF",
                                           4) == 0;
}

std::vector<unsigned char> CudaJit::translate(const std::vector<unsigned char>& ptx) const {
  if (driver_.push(context_) != kSuccess) return {};
  std::vector<unsigned char> cubin;
  char log[4096] = {0};
  CUjit_option options[] = {kErrorLogBuffer, kErrorLogBufferSize, kTarget};
  void* values[] = {log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof(log))),
                    reinterpret_cast<void*>(static_cast<std::intptr_t>(target_))};
  CUlinkState link = nullptr;
  if (driver_.link_create(3, options, values, &link) == kSuccess) {
    void* image = nullptr;
    std::size_t size = 0;
    if (driver_.link_add(link, kInputPtx, const_cast<unsigned char*>(ptx.data()), ptx.size(),
                         "ipt.ptx", 0, nullptr, nullptr) == kSuccess &&
        driver_.link_complete(link, &image, &size) == kSuccess && size > 0)
      cubin.assign(static_cast<unsigned char*>(image), static_cast<unsigned char*>(image) + size);
    driver_.link_destroy(link);  // owns the image, copied above
  }
  CUcontext popped = nullptr;
  driver_.pop(&popped);
  return cubin;
}

}  // namespace ipt::runtime
