// SPDX-License-Identifier: Apache-2.0
// Builds the planner's DeviceProfile from an OpenCL device.
#pragma once

#include "planner/device_profile.hpp"
#include "runtime/opencl.hpp"

namespace ipt::runtime {

// Queries the device and applies the device keys of IPT_OVERRIDES (runtime/environment.hpp);
// throws ipt::Error(IPT_INVALID_DEVICE) for an invalid handle, IPT_INVALID_VALUE for a
// malformed IPT_OVERRIDES.
planner::DeviceProfile query_device_profile(cl_device_id device);

}  // namespace ipt::runtime
