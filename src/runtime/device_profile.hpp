// Builds the planner's DeviceProfile from an OpenCL device, then applies the one
// documented override path, the IPT_DEVICE_OVERRIDES environment variable, which lets
// tests on a CPU device plan as a GPU would (see docs/environment.md).
#pragma once

#include <string>

#include "planner/device_profile.hpp"
#include "runtime/opencl.hpp"

namespace ipt::runtime {

// Queries the device; throws ipt::Error(IPT_INVALID_DEVICE) for an invalid handle.
planner::DeviceProfile query_device_profile(cl_device_id device);

// Applies "key=value,key=value" overrides (local_mem, max_wg, simd, compute_units, fp64)
// to `profile`. Throws ipt::Error(IPT_INVALID_VALUE) on an unknown key or bad number.
void apply_device_overrides(planner::DeviceProfile& profile, const std::string& overrides);

}  // namespace ipt::runtime
