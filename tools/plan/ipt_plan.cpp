// ipt-plan: prints, in words, the plan libipt makes for a shape on a device (through the
// public ipt_plan call): sequence, factors, every stage with its view, scratch memory.
// IPT_DEVICE picks the device; IPT_OVERRIDES applies as in the library (for example
// local_mem=49152 shows a 48 KiB GPU's plan on PoCL).
//
//   ipt-plan ROWS COLS [ELEM_SIZE]
#include <cstdio>
#include <exception>
#include <string>

#include "ipt/ipt.h"
#include "support/device_select.hpp"

int main(int argc, char** argv) {
  const bool help = argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h");
  if (help || argc < 3 || argc > 4) {
    std::fprintf(help ? stdout : stderr,
                 "usage: ipt-plan ROWS COLS [ELEM_SIZE (default 4)]\n"
                 "Prints the plan libipt makes for a ROWS x COLS matrix of ELEM_SIZE-byte\n"
                 "elements on the default OpenCL device (IPT_DEVICE picks another): its\n"
                 "sequence, every kernel, and the scratch memory a call needs.\n");
    return help ? 0 : 2;
  }
  try {
    const std::size_t rows = std::stoull(argv[1]), cols = std::stoull(argv[2]);
    const std::size_t elem_size = argc == 4 ? std::stoull(argv[3]) : 4;
    const auto device = ipt::support::select_device();
    ipt_plan_info info;
    const ipt_status status = ipt_plan(device.device, rows, cols, elem_size, nullptr, &info);
    if (status != IPT_SUCCESS) {
      std::fprintf(stderr, "ipt-plan: %s\n%s\n", ipt_status_string(status),
                   ipt_last_error_message());
      return 1;
    }
    std::printf("device: %s\n%s\n%u kernel(s), %zu bytes of scratch per call\n",
                device.description.c_str(), info.description, info.num_stages, info.scratch_bytes);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipt-plan: %s\n", e.what());
    return 1;
  }
}
