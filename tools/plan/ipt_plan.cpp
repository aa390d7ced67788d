// ipt-plan: prints, in words, the plan libipt makes for a shape on a device: sequence,
// factors and every stage with its view. IPT_DEVICE picks the device, IPT_OVERRIDES
// applies as in the library (e.g. local_mem=49152 to see a GPU's plan on PoCL).
//
//   ipt-plan ROWS COLS [ELEM_SIZE]
#include <cstdio>
#include <exception>
#include <string>

#include "planner/transpose_plan.hpp"
#include "runtime/device_profile.hpp"
#include "runtime/overrides.hpp"
#include "support/device_select.hpp"

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: ipt-plan ROWS COLS [ELEM_SIZE (default 4)]\n");
    return 2;
  }
  try {
    const std::uint64_t rows = std::stoull(argv[1]), cols = std::stoull(argv[2]);
    const std::size_t elem_size = argc == 4 ? std::stoull(argv[3]) : 4;
    const auto device = ipt::support::select_device();
    const auto profile = ipt::runtime::query_device_profile(device.device);
    const auto overrides = ipt::runtime::current_overrides();
    const auto plan =
        ipt::planner::plan_transpose(profile, rows, cols, elem_size, overrides.plan.request);
    std::printf("device: %s (local memory %zu bytes, %zu work-items, SIMD %zu)\n",
                device.description.c_str(), profile.local_mem_bytes, profile.max_work_group_size,
                profile.simd_width);
    std::printf("%s\n", ipt::planner::describe(plan).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipt-plan: %s\n", e.what());
    return 1;
  }
}
