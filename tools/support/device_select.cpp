// SPDX-License-Identifier: Apache-2.0
#include "support/device_select.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

namespace ipt::support {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string platform_name(cl_platform_id platform) {
  char name[256] = {};
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof(name) - 1, name, nullptr);
  return name;
}

std::string device_name(cl_device_id device) {
  char name[256] = {};
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(name) - 1, name, nullptr);
  return name;
}

cl_device_type device_type(cl_device_id device) {
  cl_device_type type = 0;
  clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof(type), &type, nullptr);
  return type;
}

bool is_gpu(const DeviceChoice& choice) { return (choice.type & CL_DEVICE_TYPE_GPU) != 0; }

}  // namespace

void check(cl_int code, const char* what) {
  if (code != CL_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed with OpenCL error " +
                             std::to_string(code));
}

std::vector<DeviceChoice> list_devices() {
  cl_uint num_platforms = 0;
  if (clGetPlatformIDs(0, nullptr, &num_platforms) != CL_SUCCESS) return {};
  std::vector<cl_platform_id> platforms(num_platforms);
  clGetPlatformIDs(num_platforms, platforms.data(), nullptr);
  std::vector<DeviceChoice> result;
  for (cl_platform_id platform : platforms) {
    cl_uint num_devices = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &num_devices) != CL_SUCCESS)
      continue;
    std::vector<cl_device_id> devices(num_devices);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, num_devices, devices.data(), nullptr);
    for (cl_device_id device : devices)
      result.push_back({platform, device, platform_name(platform) + " | " + device_name(device),
                        device_type(device)});
  }
  return result;
}

const DeviceChoice& default_choice(const std::vector<DeviceChoice>& devices) {
  const auto gpu = std::find_if(devices.begin(), devices.end(), is_gpu);
  return gpu != devices.end() ? *gpu : devices.front();
}

namespace {

std::string wanted_device(const std::string& filter) {
  if (!filter.empty()) return filter;
  const char* env = std::getenv("IPT_DEVICE");
  return env != nullptr ? env : "";
}

bool matches(const DeviceChoice& choice, const std::string& wanted) {
  return lower(choice.description).find(lower(wanted)) != std::string::npos;
}

}  // namespace

DeviceChoice select_device(const std::string& filter) {
  const std::string wanted = wanted_device(filter);
  const auto devices = list_devices();
  if (devices.empty())
    throw std::runtime_error(
        "no OpenCL device found: install an OpenCL driver (for a CPU device on Debian: "
        "apt-get install pocl-opencl-icd)");
  if (wanted.empty()) return default_choice(devices);
  for (const auto& choice : devices)
    if (matches(choice, wanted)) return choice;
  std::string message = "IPT_DEVICE='" + wanted + "' matches no device; available:";
  for (const auto& choice : devices) message += "\n  " + choice.description;
  throw std::runtime_error(message);
}

std::vector<DeviceChoice> platform_devices(const std::string& filter) {
  const DeviceChoice first = select_device(filter);
  const std::string wanted = wanted_device(filter);
  std::vector<DeviceChoice> devices;
  for (const auto& choice : list_devices())
    if (choice.platform == first.platform && (wanted.empty() || matches(choice, wanted)))
      devices.push_back(choice);
  return devices;
}

Session::Session(const std::string& filter) : Session(select_device(filter)) {}

Session::Session(const DeviceChoice& choice) : choice_(choice) {
  cl_int code = CL_SUCCESS;
  const cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(choice_.platform), 0};
  context_ = clCreateContext(properties, 1, &choice_.device, nullptr, nullptr, &code);
  check(code, "clCreateContext");
  queue_ = clCreateCommandQueue(context_, choice_.device, CL_QUEUE_PROFILING_ENABLE, &code);
  if (code != CL_SUCCESS) {
    clReleaseContext(context_);
    check(code, "clCreateCommandQueue");
  }
}

Session::~Session() {
  if (queue_ != nullptr) {
    clFinish(queue_);
    clReleaseCommandQueue(queue_);
  }
  if (context_ != nullptr) clReleaseContext(context_);
}

}  // namespace ipt::support
