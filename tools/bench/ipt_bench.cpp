// ipt-bench: throughput of libipt's in-place transposition, always next to the device's
// copy bandwidth measured in the same run. Throughput = 2 * rows * cols * elem_size / t.
//
//   ipt-bench square [--sizes 16384,8192] [--type f32|f64|1|2|4|8|16] [--reps N]
//                    [--no-verify] [--csv FILE]
//   ipt-bench latency [--sizes 1024] [--type ...]   first-call and cached-call times
//
// The device is the one IPT_DEVICE names (default: the first OpenCL device).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "latency_mode.hpp"
#include "support/transpose_run.hpp"

namespace {

struct Options {
  std::string mode;
  std::vector<std::size_t> sizes{16384};
  std::string type = "f32";
  int repetitions = 10;
  bool verify = true;
  std::string csv;
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "ipt-bench: %s\n"
               "usage: ipt-bench square [--sizes N,N,...] [--type f32|f64|1|2|4|8|16] [--reps N]\n"
               "                        [--no-verify] [--csv FILE]\n"
               "       ipt-bench latency [--sizes N] [--type ...]\n",
               problem.c_str());
  std::exit(2);
}

std::vector<std::size_t> parse_list(const std::string& text) {
  std::vector<std::size_t> values;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) values.push_back(std::stoull(item));
  if (values.empty()) usage("empty list '" + text + "'");
  return values;
}

Options parse(int argc, char** argv) {
  Options options;
  if (argc < 2) usage("no mode given");
  options.mode = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--sizes")
      options.sizes = parse_list(value());
    else if (arg == "--type")
      options.type = value();
    else if (arg == "--reps")
      options.repetitions = std::stoi(value());
    else if (arg == "--no-verify")
      options.verify = false;
    else if (arg == "--csv")
      options.csv = value();
    else
      usage("unknown option " + arg);
  }
  if (options.mode != "square" && options.mode != "latency")
    usage("unknown mode '" + options.mode + "'");
  return options;
}

std::size_t elem_size_of(const std::string& type) {
  if (type == "f32") return 4;
  if (type == "f64") return 8;
  const auto size = std::stoull(type);
  if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16) usage("bad --type " + type);
  return size;
}

int run_square(const Options& options) {
  const ipt::support::Session session;
  const std::size_t elem_size = elem_size_of(options.type);
  std::size_t largest = 0;
  for (auto n : options.sizes) largest = std::max(largest, n * n * elem_size);
  // Copies of 2 GiB and more hung NVIDIA's OpenCL driver 580.159 on an H200; 1 GiB is far
  // past the size where the copy bandwidth stops growing.
  largest = std::min<std::size_t>(largest, std::size_t{1} << 30);
  const double copy_gbs = ipt::support::copy_bandwidth_gbs(session, largest, options.repetitions);
  std::printf("device: %s\nlibipt %s, mode square, type %s, %d timed runs per shape\n",
              session.description().c_str(), ipt_version_string(), options.type.c_str(),
              options.repetitions);
  std::printf("copy bandwidth (clEnqueueCopyBuffer of %zu bytes, read + write): %.1f GB/s\n\n",
              largest, copy_gbs);
  std::printf("%8s %10s %10s %10s %10s %9s %s\n", "n", "median ms", "GB/s", "p10 GB/s", "p90 GB/s",
              "% copy", "verified");
  std::ofstream csv;
  if (!options.csv.empty()) {
    csv.open(options.csv);
    csv << "mode,type,rows,cols,elem_size,median_s,p10_s,p90_s,min_s,max_s,throughput_gbs,"
           "copy_gbs,fraction_of_copy,verified\n";
  }
  int failures = 0;
  for (std::size_t n : options.sizes) {
    ipt::support::RunOptions run;
    run.rows = run.cols = n;
    run.elem_size = elem_size;
    run.use_f64_entry = options.type == "f64";
    run.repetitions = options.repetitions;
    run.verify = options.verify;
    run.seed = n;
    const auto r = ipt::support::run_transpose(session, run);
    if (r.status != IPT_SUCCESS || (options.verify && !r.verified)) {
      ++failures;
      std::printf("%8zu FAILED: %s%s\n", n, r.error.c_str(), r.mismatch.c_str());
      continue;
    }
    const double bytes2 = 2.0 * static_cast<double>(n * n * elem_size) * 1e-9;
    std::printf("%8zu %10.3f %10.1f %10.1f %10.1f %8.1f%% %s\n", n, r.seconds.median * 1e3,
                r.throughput_gbs, bytes2 / r.seconds.p90, bytes2 / r.seconds.p10,
                100.0 * r.throughput_gbs / copy_gbs, options.verify ? "yes" : "skipped");
    if (csv)
      csv << "square," << options.type << ',' << n << ',' << n << ',' << elem_size << ','
          << r.seconds.median << ',' << r.seconds.p10 << ',' << r.seconds.p90 << ','
          << r.seconds.min << ',' << r.seconds.max << ',' << r.throughput_gbs << ',' << copy_gbs
          << ',' << r.throughput_gbs / copy_gbs << ',' << (r.verified ? 1 : 0) << '\n';
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows even through a pipe
  try {
    const Options options = parse(argc, argv);
    if (options.mode == "latency") {
      const ipt::support::Session session;
      return ipt::bench::run_latency(session, options.sizes.front(), elem_size_of(options.type));
    }
    return run_square(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipt-bench: %s\n", e.what());
    return 2;
  }
}
