// ipt-bench: throughput of libipt's in-place transposition, always next to the device's
// copy bandwidth measured in the same run. Throughput = 2 * rows * cols * elem_size / t,
// t from the end of a marker enqueued just before the call to the end of its event.
//
//   ipt-bench square  [--sizes 16384,8192]            n x n matrices
//   ipt-bench shapes  [--shapes 7200x1800,100000x3]   the shapes given
//   ipt-bench random  [--count 1000] [--seed 2015] [--min 1000] [--max 20000]
//                     M, N uniform in [min, max] (the TPDS protocol of DESIGN.md)
//   ipt-bench latency [--sizes 1024]                  first-call and cached-call times
// common: [--type f32|f64|1|2|4|8|16] [--reps N] [--no-verify] [--csv FILE]
//
// The device is the one IPT_DEVICE names (default: the first OpenCL device).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "latency_mode.hpp"
#include "support/transpose_run.hpp"

namespace {

using Shape = std::pair<std::size_t, std::size_t>;

struct Options {
  std::string mode;
  std::vector<std::size_t> sizes{16384};
  std::vector<Shape> shapes;
  std::size_t count = 1000, min_side = 1000, max_side = 20000;
  std::uint64_t seed = 2015;
  std::string type = "f32";
  int repetitions = 10;
  bool verify = true;
  std::string csv;
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "ipt-bench: %s\n"
               "usage: ipt-bench square [--sizes N,N,...]\n"
               "       ipt-bench shapes --shapes RxC,RxC,...\n"
               "       ipt-bench random [--count N] [--seed S] [--min N] [--max N]\n"
               "       ipt-bench latency [--sizes N]\n"
               "  common: [--type f32|f64|1|2|4|8|16] [--reps N] [--no-verify] [--csv FILE]\n",
               problem.c_str());
  std::exit(2);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, separator)) items.push_back(item);
  if (items.empty()) usage("empty list '" + text + "'");
  return items;
}

std::size_t number(const std::string& text) {
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    usage("'" + text + "' is not a number");
  }
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
    if (arg == "--sizes") {
      options.sizes.clear();
      for (const auto& item : split(value(), ',')) options.sizes.push_back(number(item));
    } else if (arg == "--shapes") {
      for (const auto& item : split(value(), ',')) {
        const auto sides = split(item, 'x');
        if (sides.size() != 2) usage("a shape is ROWSxCOLS, not '" + item + "'");
        options.shapes.emplace_back(number(sides[0]), number(sides[1]));
      }
    } else if (arg == "--count")
      options.count = number(value());
    else if (arg == "--seed")
      options.seed = number(value());
    else if (arg == "--min")
      options.min_side = number(value());
    else if (arg == "--max")
      options.max_side = number(value());
    else if (arg == "--type")
      options.type = value();
    else if (arg == "--reps")
      options.repetitions = static_cast<int>(number(value()));
    else if (arg == "--no-verify")
      options.verify = false;
    else if (arg == "--csv")
      options.csv = value();
    else
      usage("unknown option " + arg);
  }
  if (options.mode != "square" && options.mode != "shapes" && options.mode != "random" &&
      options.mode != "latency")
    usage("unknown mode '" + options.mode + "'");
  if (options.mode == "shapes" && options.shapes.empty()) usage("shapes needs --shapes");
  if (options.min_side == 0 || options.min_side > options.max_side) usage("bad --min/--max");
  return options;
}

std::size_t elem_size_of(const std::string& type) {
  if (type == "f32") return 4;
  if (type == "f64") return 8;
  const auto size = number(type);
  if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16) usage("bad --type " + type);
  return size;
}

std::vector<Shape> shapes_of(const Options& options) {
  if (options.mode == "shapes") return options.shapes;
  std::vector<Shape> shapes;
  if (options.mode == "square") {
    for (auto n : options.sizes) shapes.emplace_back(n, n);
    return shapes;
  }
  std::mt19937_64 random(options.seed);
  std::uniform_int_distribution<std::size_t> side(options.min_side, options.max_side);
  for (std::size_t i = 0; i < options.count; ++i) {
    const std::size_t rows = side(random);
    shapes.emplace_back(rows, side(random));
  }
  return shapes;
}

int run_shapes(const Options& options) {
  const ipt::support::Session session;
  const std::size_t elem_size = elem_size_of(options.type);
  const auto shapes = shapes_of(options);
  std::size_t largest = 0;
  for (auto [rows, cols] : shapes) largest = std::max(largest, rows * cols * elem_size);
  // Copies of 2 GiB and more hung NVIDIA's OpenCL driver 580.159 on an H200; 1 GiB is far
  // past the size where the copy bandwidth stops growing.
  largest = std::min<std::size_t>(largest, std::size_t{1} << 30);
  const double copy_gbs = ipt::support::copy_bandwidth_gbs(session, largest, 10);
  std::printf("device: %s\nlibipt %s, mode %s, type %s, %zu shapes, %d timed runs each\n",
              session.description().c_str(), ipt_version_string(), options.mode.c_str(),
              options.type.c_str(), shapes.size(), options.repetitions);
  std::printf("copy bandwidth (clEnqueueCopyBuffer of %zu bytes, read + write): %.1f GB/s\n\n",
              largest, copy_gbs);
  std::printf("%8s %8s %10s %10s %9s %s\n", "rows", "cols", "median ms", "GB/s", "% copy",
              "verified");
  std::ofstream csv;
  if (!options.csv.empty()) {
    csv.open(options.csv);
    csv << "mode,type,rows,cols,elem_size,median_s,p10_s,p90_s,min_s,max_s,throughput_gbs,"
           "copy_gbs,fraction_of_copy,verified\n";
  }
  int failures = 0;
  std::vector<double> throughputs;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto [rows, cols] = shapes[i];
    ipt::support::RunOptions run;
    run.rows = rows;
    run.cols = cols;
    run.elem_size = elem_size;
    run.use_f64_entry = options.type == "f64";
    run.repetitions = options.repetitions;
    run.verify = options.verify;
    run.seed = options.seed + i;
    const auto r = ipt::support::run_transpose(session, run);
    if (r.status != IPT_SUCCESS || (options.verify && !r.verified)) {
      ++failures;
      std::printf("%8zu %8zu FAILED: %s%s\n", rows, cols, r.error.c_str(), r.mismatch.c_str());
      continue;
    }
    throughputs.push_back(r.throughput_gbs);
    std::printf("%8zu %8zu %10.3f %10.1f %8.1f%% %s\n", rows, cols, r.seconds.median * 1e3,
                r.throughput_gbs, 100.0 * r.throughput_gbs / copy_gbs,
                options.verify ? "yes" : "skipped");
    if (csv)
      csv << options.mode << ',' << options.type << ',' << rows << ',' << cols << ',' << elem_size
          << ',' << r.seconds.median << ',' << r.seconds.p10 << ',' << r.seconds.p90 << ','
          << r.seconds.min << ',' << r.seconds.max << ',' << r.throughput_gbs << ',' << copy_gbs
          << ',' << r.throughput_gbs / copy_gbs << ',' << (r.verified ? 1 : 0) << '\n';
  }
  if (throughputs.size() > 1) {
    const auto s = ipt::support::stats_of(throughputs);
    std::printf(
        "\nthroughput over %zu shapes: median %.1f GB/s (%.1f%% of copy), p10 %.1f, "
        "p90 %.1f, min %.1f (%.1f%%), max %.1f\n",
        throughputs.size(), s.median, 100 * s.median / copy_gbs, s.p10, s.p90, s.min,
        100 * s.min / copy_gbs, s.max);
  }
  if (failures > 0) std::printf("%d shapes FAILED\n", failures);
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
    return run_shapes(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipt-bench: %s\n", e.what());
    return 2;
  }
}
