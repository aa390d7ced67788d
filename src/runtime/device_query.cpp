// SPDX-License-Identifier: Apache-2.0
#include "runtime/device_query.hpp"

#include "runtime/environment.hpp"
#include "runtime/error.hpp"

namespace ipt::runtime {
namespace {

template <typename T>
T device_info(cl_device_id device, cl_device_info name) {
  T value{};
  check_cl(clGetDeviceInfo(device, name, sizeof(T), &value, nullptr), "clGetDeviceInfo");
  return value;
}

std::string device_string(cl_device_id device, cl_device_info name) {
  std::size_t size = 0;
  check_cl(clGetDeviceInfo(device, name, 0, nullptr, &size), "clGetDeviceInfo");
  std::string value(size, '\0');
  check_cl(clGetDeviceInfo(device, name, size, value.data(), nullptr), "clGetDeviceInfo");
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return value;
}

bool is_nvidia_or_amd(const std::string& vendor) {
  return vendor.find("NVIDIA") != std::string::npos ||
         vendor.find("Advanced Micro Devices") != std::string::npos ||
         vendor.find("AMD") != std::string::npos;
}

// Warp or wavefront width by vendor; the kernels never rely on it for correctness.
std::size_t simd_width_of(const std::string& vendor, cl_device_type type) {
  if (vendor.find("NVIDIA") != std::string::npos) return 32;
  if (vendor.find("Advanced Micro Devices") != std::string::npos ||
      vendor.find("AMD") != std::string::npos)
    return (type & CL_DEVICE_TYPE_GPU) ? 64 : 8;
  if (vendor.find("Intel") != std::string::npos && (type & CL_DEVICE_TYPE_GPU)) return 16;
  return (type & CL_DEVICE_TYPE_GPU) ? 32 : 8;
}

// Shared memory of an NVIDIA multiprocessor by compute capability (NVIDIA's CUDA guide,
// "maximum shared memory per SM"), which OpenCL does not report: its local memory size is
// what one work-group may take. 0 where the capability is unknown.
std::size_t nvidia_shared_per_unit(cl_device_id device) {
  constexpr cl_device_info kMajor = 0x4000, kMinor = 0x4001;  // cl_nv_device_attribute_query
  cl_uint major = 0, minor = 0;
  if (clGetDeviceInfo(device, kMajor, sizeof major, &major, nullptr) != CL_SUCCESS ||
      clGetDeviceInfo(device, kMinor, sizeof minor, &minor, nullptr) != CL_SUCCESS)
    return 0;
  const std::size_t kib = 1024;
  switch (major) {
    case 7:
      return (minor == 5 ? 64 : 96) * kib;
    case 8:
      return (minor == 0 || minor == 7 ? 164 : 100) * kib;
    case 9:
    case 10:
      return 228 * kib;
    case 12:
      return 100 * kib;
    default:
      return 0;
  }
}

}  // namespace

planner::DeviceProfile query_device_profile(cl_device_id device) {
  cl_device_type type = 0;
  if (device == nullptr ||
      clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof(type), &type, nullptr) != CL_SUCCESS)
    fail(IPT_INVALID_DEVICE, "invalid cl_device_id");
  planner::DeviceProfile profile;
  profile.local_mem_bytes = device_info<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE);
  profile.max_work_group_size = device_info<std::size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  profile.compute_units = device_info<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  profile.max_alloc_bytes = device_info<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  profile.global_mem_bytes = device_info<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  profile.has_fp64 = device_info<cl_device_fp_config>(device, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  profile.line_bytes = device_info<cl_uint>(device, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE);
  profile.vendor = device_string(device, CL_DEVICE_VENDOR);
  profile.simd_width = simd_width_of(profile.vendor, type);
  profile.resident_groups = (type & CL_DEVICE_TYPE_GPU) != 0 && is_nvidia_or_amd(profile.vendor);
  if ((type & CL_DEVICE_TYPE_GPU) != 0 && profile.vendor.find("NVIDIA") != std::string::npos)
    profile.local_mem_per_unit = nvidia_shared_per_unit(device);
  apply_overrides(current_overrides(), profile);
  return profile;
}

}  // namespace ipt::runtime
