// ipt-plan: prints, in words, the plan libipt makes for a shape on a device (through the
// public ipt_plan call): sequence, factors, every stage with its view, scratch memory.
// IPT_DEVICE picks the device; IPT_OVERRIDES applies as in the library (for example
// local_mem=49152 shows a 48 KiB GPU's plan on PoCL).
//
//   ipt-plan [--batch B] ROWS COLS [ELEM_SIZE]
//   ipt-plan mpi RANKS ROWS COLS [ELEM_SIZE] [options]   (the distributed plan)
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "ipt/ipt.h"
#include "mpi_plan.hpp"
#include "support/device_select.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "mpi")
    return ipt::tools::print_mpi_plan({args.begin() + 1, args.end()});
  const bool help = args.size() == 1 && (args[0] == "--help" || args[0] == "-h");
  std::size_t batch = 1;
  bool batch_given = false;
  if (args.size() >= 2 && args[0] == "--batch") {
    batch_given = true;
    try {
      batch = std::stoull(args[1]);
    } catch (const std::exception&) {
      args.clear();  // usage
    }
    if (!args.empty()) args.erase(args.begin(), args.begin() + 2);
  }
  if (help || args.size() < 2 || args.size() > 3) {
    std::fprintf(help ? stdout : stderr,
                 "usage: ipt-plan [--batch B] ROWS COLS [ELEM_SIZE (default 4)]\n"
                 "       ipt-plan mpi RANKS ROWS COLS [ELEM_SIZE] [options] (ipt-plan mpi --help)\n"
                 "Prints the plan libipt makes for a ROWS x COLS matrix of ELEM_SIZE-byte\n"
                 "elements on the default OpenCL device (IPT_DEVICE picks another): its\n"
                 "sequence, every kernel, and the scratch memory a call needs. --batch: the\n"
                 "plan of ipt_transpose_batched for B such matrices back to back.\n");
    return help ? 0 : 2;
  }
  try {
    const std::size_t rows = std::stoull(args[0]), cols = std::stoull(args[1]);
    const std::size_t elem_size = args.size() == 3 ? std::stoull(args[2]) : 4;
    const auto device = ipt::support::select_device();
    ipt_plan_info info;
    const ipt_status status =
        batch_given ? ipt_plan_batched(device.device, batch, rows, cols, elem_size, nullptr, &info)
                    : ipt_plan(device.device, rows, cols, elem_size, nullptr, &info);
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
