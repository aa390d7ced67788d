// SPDX-License-Identifier: Apache-2.0
// Device selection shared by the tests and the tools: the IPT_DEVICE environment variable
// holds a case-insensitive substring of "platform name | device name" (for example
// "NVIDIA" or "pocl"); unset, the first GPU is used, else the first device: a machine with
// a GPU and a CPU driver (PoCL) would otherwise test and time whichever ICD lists first.
#pragma once

#include <CL/cl.h>

#include <string>
#include <vector>

namespace ipt::support {

struct DeviceChoice {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string description;  // "platform name | device name"
  cl_device_type type = 0;
};

// Every device of every platform, in ICD order.
std::vector<DeviceChoice> list_devices();

// The first GPU of `devices`, else their first; `devices` must not be empty.
const DeviceChoice& default_choice(const std::vector<DeviceChoice>& devices);

// The device IPT_DEVICE names (or `filter` when not empty); throws std::runtime_error
// listing the available devices when none matches or no OpenCL device exists.
DeviceChoice select_device(const std::string& filter = "");

// The devices of the platform of the device select_device(filter) picks that match the
// filter too (every device of that platform when none is given), in ICD order: one
// process per device (an MPI rank per GPU) takes the k-th, k modulo their number.
std::vector<DeviceChoice> platform_devices(const std::string& filter = "");

// A context and an in-order, profiling-enabled queue on one device, released on exit.
class Session {
 public:
  explicit Session(const std::string& filter = "");
  explicit Session(const DeviceChoice& choice);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  cl_device_id device() const { return choice_.device; }
  const std::string& description() const { return choice_.description; }

 private:
  DeviceChoice choice_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
};

// Throws std::runtime_error naming `what` when code is not CL_SUCCESS.
void check(cl_int code, const char* what);

}  // namespace ipt::support
