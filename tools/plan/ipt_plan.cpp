// SPDX-License-Identifier: Apache-2.0
// ipt-plan: prints, in words, the plan libipt makes for a shape on a device (through the
// public ipt_plan call), with "permute" that of a tensor permutation (ipt_plan_permute),
// or with "mpi" the distributed plan of libipt_mpi. The usage text
// below, and tools/man/ipt-plan.1, describe the command line.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "ipt/ipt.h"
#include "mpi_plan.hpp"
#include "support/cli_values.hpp"
#include "support/command_line.hpp"
#include "support/device_select.hpp"
#include "support/transpose_run.hpp"

namespace {

constexpr const char* kUsage =
    "usage: ipt-plan [--batch B] ROWS COLS [ELEM_SIZE]\n"
    "       ipt-plan permute DIMS PERM [ELEM_SIZE]\n"
    "       ipt-plan mpi RANKS ROWS COLS [ELEM_SIZE] [options]  (ipt-plan mpi --help)\n"
    "\n"
    "Prints the plan libipt makes (ipt_plan) for transposing a ROWS x COLS row-major\n"
    "matrix of ELEM_SIZE-byte elements (default 4) in place on the OpenCL device: the\n"
    "sequence of stages, the factors m and n, every kernel with the view of the matrix it\n"
    "works on, any padding, and the scratch device memory one call needs. Nothing runs on\n"
    "the device.\n"
    "\n"
    "  --batch B   the plan of ipt_transpose_batched for B such matrices back to back\n"
    "  permute     the plan of ipt_permute for a row-major tensor of the sizes DIMS\n"
    "              (comma-separated, last axis fastest) whose axis i becomes input axis\n"
    "              PERM[i] (numpy.transpose's axes): ipt-plan permute 8,64,56,56 0,2,3,1\n"
    "              is NCHW -> NHWC; the permutation as reduced, its block swaps, their\n"
    "              kernels and the scratch\n"
    "  mpi         the distributed plan of ipt_mpi_transpose, rank by rank; needs neither\n"
    "              MPI nor a device (ipt-plan mpi --help lists its options)\n"
    "  -h, --help  this text\n"
    "\n"
    "Numbers are plain decimal digits: no sign, no 0x, no exponent, no separators.\n"
    "Environment: IPT_DEVICE picks the device by a part of its name (default: the first\n"
    "GPU, else the first OpenCL device); IPT_OVERRIDES changes what the planner assumes\n"
    "of it, as in the library (for example IPT_OVERRIDES=local_mem=49152 shows a 48 KiB\n"
    "device's plan).\n"
    "Exit status: 0 the plan was printed, 1 the library refused the shape (its status and\n"
    "reason are printed), 2 a bad command line.\n";

// "8,64,56,56" as numbers (parse_count_list: strict, no empty items).
std::vector<std::size_t> parse_list(const std::string& text, const char* what) {
  const std::vector<std::uint64_t> values = ipt::support::parse_count_list(text, what);
  return {values.begin(), values.end()};
}

int print_permute_plan(const std::vector<std::string>& args) {
  std::vector<std::size_t> dims, perm;
  std::size_t elem_size = 4;
  try {
    if (args.size() < 2 || args.size() > 3)
      throw ipt::support::CliError("expected permute DIMS PERM [ELEM_SIZE], got " +
                                   std::to_string(args.size()) + " value(s) after permute");
    dims = parse_list(args[0], "DIMS");
    perm = parse_list(args[1], "PERM");
    if (args.size() == 3) elem_size = ipt::support::parse_count(args[2], "ELEM_SIZE");
    if (perm.size() != dims.size())
      throw ipt::support::CliError("DIMS has " + std::to_string(dims.size()) + " axes, PERM " +
                                   std::to_string(perm.size()));
  } catch (const ipt::support::CliError& e) {
    std::fprintf(stderr, "ipt-plan: %s\n%s", e.what(), kUsage);
    return 2;
  }
  try {
    const auto device = ipt::support::select_device();
    ipt_permute_info info;
    const ipt_status status =
        ipt_plan_permute(device.device, dims.size(), dims.data(), perm.data(), elem_size, &info);
    if (status != IPT_SUCCESS) {
      std::fprintf(stderr, "ipt-plan: %s\n", ipt::support::failure_text(status).c_str());
      return 1;
    }
    std::printf("device: %s\n%s\n%u block swap(s), %u kernel(s), %zu bytes of scratch per call\n",
                device.description.c_str(), info.description, info.num_swaps, info.num_stages,
                info.scratch_bytes);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipt-plan: %s\n", e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "mpi")
    return ipt::tools::print_mpi_plan({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "permute")
    return print_permute_plan({args.begin() + 1, args.end()});
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::size_t rows = 0, cols = 0, elem_size = 4, batch = 1;
  bool batch_given = false;
  try {
    std::vector<std::string> positional;
    ipt::support::CommandLine line;
    line.value("--batch",
               [&](const std::string& v) {
                 batch = ipt::support::parse_count(v, "--batch");
                 batch_given = true;
               })
        .positional([&](const std::string& v) { positional.push_back(v); });
    line.parse(args);
    if (positional.size() < 2 || positional.size() > 3)
      throw ipt::support::CliError("expected ROWS COLS [ELEM_SIZE], got " +
                                   std::to_string(positional.size()) + " value(s)");
    rows = ipt::support::parse_count(positional[0], "ROWS");
    cols = ipt::support::parse_count(positional[1], "COLS");
    if (positional.size() == 3) elem_size = ipt::support::parse_count(positional[2], "ELEM_SIZE");
  } catch (const ipt::support::CliError& e) {
    std::fprintf(stderr, "ipt-plan: %s\n%s", e.what(), kUsage);
    return 2;
  }
  try {
    const auto device = ipt::support::select_device();
    ipt_plan_info info;
    const ipt_status status =
        batch_given ? ipt_plan_batched(device.device, batch, rows, cols, elem_size, nullptr, &info)
                    : ipt_plan(device.device, rows, cols, elem_size, nullptr, &info);
    if (status != IPT_SUCCESS) {
      std::fprintf(stderr, "ipt-plan: %s\n", ipt::support::failure_text(status).c_str());
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
