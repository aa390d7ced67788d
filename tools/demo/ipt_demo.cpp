// SPDX-License-Identifier: Apache-2.0
// ipt-demo: transposes a few matrices in place on the OpenCL device, checks every result
// against the host, and prints the throughput next to the device's copy bandwidth. kHelp
// below (and tools/man/ipt-demo.1) describes it.
#include <cstdio>
#include <exception>
#include <string>
#include <utility>

#include "support/transpose_run.hpp"

namespace {

const char* const kHelp =
    "usage: ipt-demo\n"
    "\n"
    "Transposes a few matrices in place with libipt on the OpenCL device, f32 and f64\n"
    "(8-byte elements where the device has no fp64), square and rectangular, from 1 x 1\n"
    "to 4099 x 4099; checks every result against a transpose made on the host, and\n"
    "prints each throughput beside the device's copy bandwidth.\n"
    "\n"
    "Output: the libipt version and device, the copy bandwidth, then one line per\n"
    "matrix:\n"
    "  type       f32, f64, or 8-byte (f64 data moved as 8-byte elements)\n"
    "  shape      rows x cols\n"
    "  time [ms]  median kernel time of 5 timed calls after a warm-up (OpenCL profiling)\n"
    "  GB/s       2 * rows * cols * elem_size / time (bytes read + written, 1e9 B/s)\n"
    "  %% of copy  GB/s as a percentage of the copy bandwidth\n"
    "  result     verified, or FAILED with the library's status and reason\n"
    "Copy bandwidth: clEnqueueCopyBuffer between two device buffers of the largest\n"
    "matrix's size, bytes read + written / median time of 10 copies after a warm-up,\n"
    "measured as ipt-bench and ipt-kernel-bench measure it.\n"
    "\n"
    "Options: -h, --help  this text\n"
    "Environment: IPT_DEVICE picks the device by a part of its name (default: the\n"
    "first GPU, else the first OpenCL device).\n"
    "Exit status: 0 every result was right, 1 a transposition failed or was wrong,\n"
    "2 a bad command line or no usable device.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    const std::string arg = argv[1];
    if (arg == "--help" || arg == "-h") {
      std::printf(kHelp);
      return 0;
    }
    std::fprintf(stderr,
                 "ipt-demo: unexpected argument '%s'\nusage: ipt-demo  (ipt-demo --help "
                 "describes it)\n",
                 arg.c_str());
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  try {
    const ipt::support::Session session;
    std::printf("libipt %s on: %s\n", ipt_version_string(), session.description().c_str());
    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(session.device(), CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(fp64), &fp64, nullptr);

    // Square shapes (tiled swap) and rectangular ones (one-stage cycle following for now).
    const std::pair<std::size_t, std::size_t> shapes[] = {
        {1, 1}, {37, 37}, {1000, 1000}, {2048, 2048}, {4099, 4099}, {1000, 37}, {3000, 1999}};
    // As ipt-bench measures it: a copy the size of the largest matrix (4099 x 4099 f64).
    const auto copy = ipt::support::measure_copy_bandwidth(
        session, ipt::support::copy_bytes_for(std::size_t{4099} * 4099 * 8));
    const double copy_gbs = copy.gbs;
    std::printf("copy bandwidth: %s\n\n", ipt::support::describe(copy).c_str());
    std::printf("%-6s %12s %10s %12s %10s  %s\n", "type", "shape", "time [ms]", "GB/s", "% of copy",
                "result");
    int failures = 0;
    for (const bool f64 : {false, true}) {
      for (const auto& [rows, cols] : shapes) {
        ipt::support::RunOptions options;
        options.rows = rows;
        options.cols = cols;
        options.elem_size = f64 ? 8 : 4;
        options.use_f64_entry = f64 && fp64 != 0;  // 8-byte moves need no fp64 support
        options.repetitions = 5;
        options.seed = rows * 7 + cols;
        const auto result = ipt::support::run_transpose(session, options);
        const char* type = f64 ? (fp64 != 0 ? "f64" : "8-byte") : "f32";
        if (result.status != IPT_SUCCESS || !result.verified) {
          ++failures;
          std::printf("%-6s %5zu x %-5zu  FAILED: %s%s\n", type, rows, cols, result.error.c_str(),
                      result.mismatch.c_str());
          continue;
        }
        std::printf("%-6s %5zu x %-5zu %10.3f %12.1f %9.1f%%  verified\n", type, rows, cols,
                    result.seconds.median * 1e3, result.throughput_gbs,
                    100.0 * result.throughput_gbs / copy_gbs);
      }
    }
    std::printf("\n%s\n",
                failures == 0 ? "all transpositions verified" : "SOME TRANSPOSITIONS FAILED");
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipt-demo: %s\n", e.what());
    return 2;
  }
}
