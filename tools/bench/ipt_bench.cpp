// SPDX-License-Identifier: Apache-2.0
// ipt-bench: libipt's in-place transposition measured by the papers' protocol, beside
// out-of-place baselines on the same shapes and the device's copy bandwidth measured in
// the same run. kHelp below (and tools/man/ipt-bench.1) describes every mode, option and
// column; keep the three in step.
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "baselines.hpp"
#include "batch_mode.hpp"
#include "host_mode.hpp"
#include "imatcopy_mode.hpp"
#include "latency_mode.hpp"
#include "permute_mode.hpp"
#include "results.hpp"
#include "support/cli_values.hpp"
#include "support/command_line.hpp"
#include "support/transpose_run.hpp"

#ifndef IPT_BENCH_COMMIT
#define IPT_BENCH_COMMIT "unknown"
#endif

namespace {

using Shape = std::pair<std::size_t, std::size_t>;

struct Options {
  std::string mode;
  std::vector<std::size_t> sizes{16384};
  std::vector<Shape> shapes;
  std::size_t count = 1000, min_side = 1000, max_side = 20000, max_pairs = 48;
  std::size_t batch = 10000;              // batched: matrices per call
  unsigned threads = 0;                   // host: the CPU path's threads (0: the hardware's)
  std::vector<unsigned> slices{2, 4, 8};  // host: the asynchronous scheme's Q, each measured
  bool large = false;                     // host: --large (no reference copies)
  std::uint64_t seed = 2015;
  std::string type = "f32";
  int repetitions = 5;
  bool verify = true;
  bool verify_on_host = false;
  std::vector<std::string> baselines{"default"};
  std::string csv, json, shapes_out;
  bool list_shapes = false;
  std::string buffer = "exact";         // exact | padded
  std::string protocol;                 // latency: random | skinny (empty: the single-shape table)
  bool warmup = false;                  // latency --protocol: ipt_warmup before the shapes
  std::string one;                      // latency --one first|warmup: one child process's figures
  std::vector<std::size_t> dims, perm;  // permute: one case instead of the protocol
  bool count_given = false;
};

#ifdef IPT_BENCH_HAVE_MPI
constexpr bool kMpiBuilt = true;
#else
constexpr bool kMpiBuilt = false;
#endif

const char* const kHelp =
    "usage: ipt-bench MODE [options]\n"
    "\n"
    "Measures libipt's in-place transposition on the OpenCL device, verifies every\n"
    "result, and prints each throughput beside the device's copy bandwidth measured in\n"
    "the same run. The device is the one IPT_DEVICE names by a part of its name\n"
    "(default: the first GPU, else the first OpenCL device).\n"
    "\n"
    "Modes:\n"
    "  random     [--count N (1000)] [--seed S (2015)] [--min N (1000)] [--max N (20000)]\n"
    "             N shapes with rows and cols drawn uniformly from [min, max]\n"
    "  skinny     [--count N] [--seed S]  arrays of structures: the long side\n"
    "             log-uniform in [10^4, 10^7), the short side in [2, 32), both ways\n"
    "  square     [--sizes N,... (16384)]  n x n matrices\n"
    "  shapes     --shapes RxC,... | --shapes-file FILE  the shapes given; FILE holds\n"
    "             one 'ROWS COLS' per line ('#' starts a comment line)\n"
    "  sequences  [random options]  every sequence of stages forced on the same\n"
    "             (padded) shapes, beside the automatic plan; sequences that cannot\n"
    "             run a shape are left out\n"
    "  tiles      [random options] [--max-pairs N (48)]  the heuristic's factors (m, n)\n"
    "             against every factor pair of the same sequence tried by force, an\n"
    "             even sample of at most N pairs per shape\n"
    "  padding    [random options]  the padded plan against padding off\n"
    "  kernels    MODE [options]  the elementary kernels on their own: runs\n"
    "             ipt-kernel-bench MODE (ipt-kernel-bench --help)\n"
    "  latency    [--shapes RxC,...]  a process's first call for each plan class\n"
    "             (default: square 16384x16384, on chip 2000x30, two passes 4096x4100,\n"
    "             padded 3001x4999, 64-bit indices 46341x46342), each in a process of\n"
    "             its own, cold (the driver's cache off where the platform lets a\n"
    "             process turn it off: CUDA_CACHE_DISABLE=1, POCL_KERNEL_CACHE=0) and\n"
    "             warm, with libipt's disk cache empty, filled and off; then\n"
    "             ipt_warmup cold and warm and a first call after it\n"
    "             (--one first|warmup: one such process's figures)\n"
    "  latency    --protocol random|skinny [--count N] [--seed S] [--warmup]  the\n"
    "             first-call overhead of each new shape in one process (planning,\n"
    "             first and repeated call), its distribution and the slowest shapes;\n"
    "             --warmup calls ipt_warmup before the first shape\n"
    "  batched    [--batch N (10000)] [--shapes RxC (64x100)]  one\n"
    "             ipt_transpose_batched call on N matrices, against one matrix of\n"
    "             the same size and a loop of N calls\n"
    "  permute    [--count N (20)] [--seed S] [--dims D,... --perm P,...]  ipt_permute\n"
    "             on common layouts (NCHW <-> NHWC of ResNet- and ViT-like activations,\n"
    "             attention heads [B][S][H][D] <-> [B][H][S][D], xyz -> zxy and yzx of\n"
    "             cubes and bricks) and N random rank-3 and rank-4 permutations of 2^24\n"
    "             to 2^26 elements, or the one tensor --dims permuted by --perm; --csv\n"
    "             for tools/compare/torch_permute.py\n"
    "  imatcopy   [--shapes RxC (8000x6000)] [--type f32|f64|c32|c64]  the\n"
    "             ipt_?imatcopy variants (alpha, pitches, no transpose) beside a\n"
    "             plain transpose\n"
    "  host       [--shapes RxC,... (4096x4096,8192x8192,5000x7001,100003x301)]\n"
    "             [--threads N (0: all the hardware's)] [--slices Q,... (2,4,8)] [--large]\n"
    "             host matrices (ipt_transpose_host) through the device, synchronous\n"
    "             and asynchronous on Q slices, and on the CPU, beside the transfers\n"
    "             alone and a host memcpy; --large: shapes beyond one allocation,\n"
    "             checked by formula instead of a reference copy\n"
    "  mpi        run as: mpirun -np P ipt-bench mpi [options] (this build %s)\n"
    "             libipt_mpi's distributed transposition, each rank on the device of\n"
    "             its local rank, beside an MPI all-to-all of the same bytes; runs\n"
    "             ipt-bench-mpi. Options:\n"
    "             --shapes RxC,... (8192x8192)  global shapes\n"
    "             --fill F,...  also a square filling fraction F (0 < F < 1) of each\n"
    "               rank's share of its device memory, within one allocation unless\n"
    "               --beyond-max-alloc (for drivers that allocate more)\n"
    "             --weak  each shape's rows times P (fixed blocks per rank)\n"
    "             --scheme auto|pairwise|alltoall,... (auto)  each measured\n"
    "             --staging BYTES  host staging per rank (0: the library's 16 MiB)\n"
    "             --block-rows B, --block-cols C  the blocks (0: ceil(side / P))\n"
    "             --flags none|in|out|in,out  blocks stored transposed before/after\n"
    "             and --type, --reps, --csv, --json as below; its header explains\n"
    "             its columns\n"
    "\n"
    "Options of the random, skinny, square, shapes, sequences, tiles and padding modes\n"
    "(--type and --reps also of the others):\n"
    "  --type T        f32 (default), f64, u8, f16, bf16 or an element size 1|2|4|8|16\n"
    "  --reps N        timed runs per shape after one warm-up (5); the median counts\n"
    "  --verify device|host  check every result on the device (default: the matrix is\n"
    "                  a hash of its indices, made and checked by kernels) or against\n"
    "                  random data kept on the host (slow: seconds per 10^8 elements)\n"
    "  --no-verify     do not check results\n"
    "  --baselines all|none|NAME,...  out-of-place baselines run on the same shapes\n"
    "                  (default: all in random, skinny, square and shapes; none in the\n"
    "                  others). oop-kernel: a textbook out-of-place transpose kernel of\n"
    "                  this tool (32 x 32 tiles through local memory) from one buffer\n"
    "                  into a second, what in-place transposition saves the memory of;\n"
    "                  clblast-omatcopy: CLBlast's out-of-place omatcopy (f32 and f64,\n"
    "                  when the build found CLBlast). Both need twice the memory.\n"
    "  --buffer exact|padded  the buffer of each call: exactly rows * cols elements\n"
    "                  (default) or ipt_padded_size bytes, so that padding uses the\n"
    "                  buffer's room instead of scratch (sequences, tiles and padding\n"
    "                  always give the room)\n"
    "  --csv FILE      one line per run, written as measured\n"
    "  --json FILE     the summary, with the run's context (device, driver, commit)\n"
    "  --shapes-out FILE  write the shapes, one 'ROWS COLS' per line\n"
    "  --list-shapes   print the shapes as RxC,... and exit without measuring\n"
    "  -h, --help      this text\n"
    "Numbers are plain decimal digits: no sign, no 0x, no exponent, no separators;\n"
    "a bad one exits 2 with a message naming the option.\n"
    "\n"
    "Output (random, skinny, square, shapes, sequences, tiles, padding): a header with\n"
    "the device, libipt and the copy bandwidth, then one line per run:\n"
    "  rows, cols   the matrix (row-major), transposed in place\n"
    "  variant      auto (the automatic plan), a forced sequence, heuristic, padded or\n"
    "               unpadded; out-of-place for a baseline\n"
    "  seq          the plan's sequence of stages\n"
    "  median ms    median kernel time of the timed runs (OpenCL profiling, from a\n"
    "               marker enqueued just before the call to the end of its event)\n"
    "  GB/s         2 * rows * cols * elem_size / time (bytes read + written, 1e9 B/s)\n"
    "  %% copy       GB/s as a percentage of the copy bandwidth\n"
    "then a summary per library and variant (shapes, failures, median, %% of copy, p10,\n"
    "p90, min and max GB/s) and a histogram of %% of copy in bins of 5%%.\n"
    "Copy bandwidth: clEnqueueCopyBuffer between two device buffers of the largest\n"
    "matrix's size (1 MiB to 1 GiB), bytes read + written / median time of 10 copies\n"
    "after a warm-up; ipt-demo and ipt-kernel-bench measure it the same way.\n"
    "CSV columns: mode, library (libipt or a baseline), variant, param, type,\n"
    "elem_size, rows, cols, sequence, m, n (the plan's factors; empty where unused),\n"
    "padded_rows, padded_cols, time_s (median kernel time), wall_s (median host time\n"
    "from the call to completion), throughput_gbs, copy_gbs, fraction_of_copy,\n"
    "memory_bytes (device memory of the call: buffers and scratch), verified (1/0),\n"
    "extra_bytes (memory beyond the matrix: scratch and the buffer's room).\n"
    "JSON: the context (tool, mode, type, device, driver, libipt, commit, buffer,\n"
    "verify, count, seed, min, max, repetitions), copy_gbs, results (per library and\n"
    "variant: shapes, failures, median/p10/p90/min/max_gbs, median_fraction_of_copy,\n"
    "max_memory_bytes, median/p90/max_extra_fraction) and histograms.\n"
    "The latency, batched, imatcopy and host modes print their own table, headed by\n"
    "what each column measures.\n"
    "\n"
    "Exit status: 0 every run verified, 1 a run failed, 2 a bad command line.\n";

// --help: the whole text on stdout, exit 0; a bad command line: `problem` and the short
// usage on stderr, exit 2.
[[noreturn]] void usage(const std::string& problem) {
  if (problem.empty()) {
    std::printf(kHelp, kMpiBuilt ? "has it" : "has no MPI: it exits 2");
    std::exit(0);
  }
  std::fprintf(stderr,
               "ipt-bench: %s\nusage: ipt-bench MODE [options]  (ipt-bench --help lists the "
               "modes and options)\n",
               problem.c_str());
  std::exit(2);
}

std::uint64_t number(const std::string& text, const std::string& what,
                     std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  return ipt::support::or_usage([&] { return ipt::support::parse_count(text, what, max); }, usage);
}

// Each SIDExSIDE of a comma-separated list.
std::vector<Shape> shapes_of(const std::string& text, const std::string& what) {
  std::vector<Shape> shapes;
  for (const auto& item : ipt::support::split_list(text, ',', what)) {
    const auto sides = ipt::support::parse_dims(item, 2, what);
    shapes.emplace_back(sides[0], sides[1]);
  }
  return shapes;
}

// ROWS COLS per line, blanks between; '#' starts a comment line.
std::vector<Shape> shapes_in_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw ipt::support::CliError("--shapes-file: cannot read '" + path + "'");
  std::vector<Shape> shapes;
  std::string line;
  for (std::size_t number_of_line = 1; std::getline(file, line); ++number_of_line) {
    if (line.empty() || line[0] == '#') continue;
    // Each side as strict as on the command line.
    std::istringstream fields(line);
    std::string rows, cols, extra;
    const std::string where = "--shapes-file line " + std::to_string(number_of_line);
    if (!(fields >> rows >> cols) || (fields >> extra))
      throw ipt::support::CliError(where + ": '" + line + "' is not ROWS COLS");
    shapes.emplace_back(ipt::support::parse_count(rows, where),
                        ipt::support::parse_count(cols, where));
  }
  return shapes;
}

Options parse(int argc, char** argv) {
  namespace cli = ipt::support;
  Options options;
  if (argc < 2) usage("no mode given");
  if (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") usage("");
  options.mode = argv[1];
  cli::CommandLine line;
  line.value("--protocol",
             [&](const std::string& v) {
               options.protocol = cli::one_of(v, "--protocol", {"random", "skinny"});
             })
      .value("--sizes",
             [&](const std::string& v) {
               options.sizes.clear();
               for (const auto n : cli::parse_count_list(v, "--sizes")) options.sizes.push_back(n);
             })
      .value("--shapes",
             [&](const std::string& v) {
               for (const auto& shape : shapes_of(v, "--shapes")) options.shapes.push_back(shape);
             })
      .value("--shapes-file",
             [&](const std::string& v) {
               for (const auto& shape : shapes_in_file(v)) options.shapes.push_back(shape);
             })
      .flag("--warmup", [&] { options.warmup = true; })
      .value("--one",
             [&](const std::string& v) {
               options.one = cli::one_of(v, "--one", {"first", "warmup"});
             })
      .value("--count",
             [&](const std::string& v) {
               options.count = cli::parse_count(v, "--count");
               options.count_given = true;
             })
      .value("--batch",
             [&](const std::string& v) { options.batch = cli::parse_count(v, "--batch"); })
      .flag("--large", [&] { options.large = true; })
      .value("--slices",
             [&](const std::string& v) {
               options.slices.clear();
               for (const auto q : cli::parse_count_list(v, "--slices", UINT_MAX))
                 options.slices.push_back(static_cast<unsigned>(q));
             })
      .value("--threads",
             [&](const std::string& v) {
               options.threads = static_cast<unsigned>(cli::parse_count(v, "--threads", UINT_MAX));
             })
      .value("--seed", [&](const std::string& v) { options.seed = cli::parse_count(v, "--seed"); })
      .value("--dims",
             [&](const std::string& v) {
               const auto values = cli::parse_count_list(v, "--dims");
               options.dims.assign(values.begin(), values.end());
             })
      .value("--perm",
             [&](const std::string& v) {
               const auto values = cli::parse_count_list(v, "--perm");
               options.perm.assign(values.begin(), values.end());
             })
      .value("--min",
             [&](const std::string& v) { options.min_side = cli::parse_count(v, "--min"); })
      .value("--max",
             [&](const std::string& v) { options.max_side = cli::parse_count(v, "--max"); })
      .value("--max-pairs",
             [&](const std::string& v) { options.max_pairs = cli::parse_count(v, "--max-pairs"); })
      .value("--type", [&](const std::string& v) { options.type = v; })
      .value("--reps",
             [&](const std::string& v) {
               options.repetitions = static_cast<int>(
                   std::max<std::uint64_t>(1, cli::parse_count(v, "--reps", INT_MAX)));
             })
      .flag("--no-verify", [&] { options.verify = false; })
      .value("--verify",
             [&](const std::string& v) {
               options.verify = true;
               options.verify_on_host = cli::one_of(v, "--verify", {"device", "host"}) == "host";
             })
      .value(
          "--baselines",
          [&](const std::string& v) { options.baselines = cli::split_list(v, ',', "--baselines"); })
      .value("--csv", [&](const std::string& v) { options.csv = v; })
      .value("--json", [&](const std::string& v) { options.json = v; })
      .value("--shapes-out", [&](const std::string& v) { options.shapes_out = v; })
      .flag("--list-shapes", [&] { options.list_shapes = true; })
      .value("--buffer", [&](const std::string& v) {
        options.buffer = cli::one_of(v, "--buffer", {"exact", "padded"});
      });
  cli::or_usage([&] { line.parse(argc, argv, 2); }, usage);
  const std::vector<std::string> modes{"random",    "skinny",   "square",  "shapes",
                                       "sequences", "tiles",    "padding", "latency",
                                       "batched",   "imatcopy", "host",    "permute"};
  if (std::find(modes.begin(), modes.end(), options.mode) == modes.end())
    usage("unknown mode '" + options.mode + "'");
  if (options.mode == "shapes" && options.shapes.empty()) usage("shapes needs --shapes");
  if (options.dims.size() != options.perm.size()) usage("--dims and --perm must name as many axes");
  if (options.min_side == 0 || options.min_side > options.max_side) usage("bad --min/--max");
  return options;
}

std::size_t elem_size_of(const std::string& type) {
  if (type == "f32") return 4;
  if (type == "f64") return 8;
  // Names of the narrow types users bring; elements move bit for bit, so only the size
  // matters.
  if (type == "u8") return 1;
  if (type == "f16" || type == "bf16") return 2;
  const auto size = number(type, "--type");
  if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16) usage("bad --type " + type);
  return size;
}

std::vector<Shape> shapes_of(const Options& options) {
  if (!options.shapes.empty()) return options.shapes;
  std::vector<Shape> shapes;
  if (options.mode == "square") {
    for (auto n : options.sizes) shapes.emplace_back(n, n);
    return shapes;
  }
  std::mt19937_64 random(options.seed);
  if (options.mode == "skinny") {
    std::uniform_real_distribution<double> exponent(4.0, 7.0);
    std::uniform_int_distribution<std::size_t> short_side(2, 31);
    for (std::size_t i = 0; i < options.count; ++i) {
      const auto long_side = static_cast<std::size_t>(std::pow(10.0, exponent(random)));
      const std::size_t k = short_side(random);
      shapes.push_back(random() % 2 == 0 ? Shape{long_side, k} : Shape{k, long_side});
    }
    return shapes;
  }
  std::uniform_int_distribution<std::size_t> side(options.min_side, options.max_side);
  for (std::size_t i = 0; i < options.count; ++i) {
    const std::size_t rows = side(random);
    shapes.emplace_back(rows, side(random));
  }
  return shapes;
}

std::string device_info(cl_device_id device, cl_device_info what) {
  std::size_t size = 0;
  clGetDeviceInfo(device, what, 0, nullptr, &size);
  std::string text(size, '\0');
  clGetDeviceInfo(device, what, size, text.data(), nullptr);
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

class Bench {
 public:
  Bench(const Options& options, const ipt::support::Session& session, double copy_gbs)
      : options_(options),
        session_(session),
        elem_size_(elem_size_of(options.type)),
        results_(options.csv, options.json, copy_gbs, context(options, session), numbers(options)) {
    if (!options.verify_on_host) pattern_.emplace(session);
    baselines_ = options.baselines;
    const bool by_default = options.mode == "random" || options.mode == "skinny" ||
                            options.mode == "square" || options.mode == "shapes";
    if (baselines_ == std::vector<std::string>{"default"})
      baselines_ = by_default ? ipt::bench::available_baselines() : std::vector<std::string>{};
    else if (baselines_ == std::vector<std::string>{"all"})
      baselines_ = ipt::bench::available_baselines();
    else if (baselines_ == std::vector<std::string>{"none"})
      baselines_.clear();
  }

  // libipt on one shape with `plan_options` (NULL: automatic); returns the row added.
  ipt::bench::Row libipt(std::size_t rows, std::size_t cols, std::uint64_t seed,
                         const std::string& variant, const ipt_plan_options* plan_options) {
    ipt::support::RunOptions run;
    run.rows = rows;
    run.cols = cols;
    run.elem_size = elem_size_;
    run.use_f64_entry = options_.type == "f64";
    run.repetitions = options_.repetitions;
    run.verify = options_.verify;
    run.seed = seed;
    run.pattern = pattern();
    // Modes that force padded shapes need the room for them.
    const bool forces_padding =
        options_.mode == "sequences" || options_.mode == "tiles" || options_.mode == "padding";
    run.padding_room = forces_padding || options_.buffer == "padded";
    run.options = plan_options;
    const auto r = ipt::support::run_transpose(session_, run);
    ipt::bench::Row row = base_row(rows, cols);
    row.variant = variant;
    row.sequence = ipt_sequence_name(r.plan.sequence);
    const bool uses_m = r.plan.sequence != IPT_SEQUENCE_2_2 &&
                        r.plan.sequence != IPT_SEQUENCE_SQUARE &&
                        r.plan.sequence != IPT_SEQUENCE_ONE_STAGE;
    const bool uses_n = r.plan.sequence != IPT_SEQUENCE_2_1 &&
                        r.plan.sequence != IPT_SEQUENCE_SQUARE &&
                        r.plan.sequence != IPT_SEQUENCE_ONE_STAGE;
    row.m = uses_m ? r.plan.m : 0;
    row.n = uses_n ? r.plan.n : 0;
    row.padded_rows = r.plan.padded_rows;
    row.padded_cols = r.plan.padded_cols;
    row.time_s = r.seconds.median;
    row.wall_s = r.wall_seconds;
    row.throughput_gbs = r.throughput_gbs;
    row.memory_bytes = r.buffer_bytes + r.plan.scratch_bytes;
    row.extra_bytes = row.memory_bytes - std::min(row.memory_bytes, rows * cols * elem_size_);
    row.verified = r.verified;
    row.ok = r.status == IPT_SUCCESS && (!options_.verify || r.verified);
    if (!row.ok)
      std::printf("%8zu %8zu %-10s FAILED: %s%s\n", rows, cols, variant.c_str(), r.error.c_str(),
                  r.mismatch.c_str());
    results_.add(row);
    return row;
  }

  void baselines(std::size_t rows, std::size_t cols, std::uint64_t seed) {
    for (const auto& name : baselines_) {
      const auto b =
          ipt::bench::run_baseline(session_, name, rows, cols, elem_size_, options_.repetitions,
                                   options_.verify, seed, pattern());
      if (!b.ran) continue;  // not for this type, or no memory for a second buffer
      ipt::bench::Row row = base_row(rows, cols);
      row.library = name;
      row.variant = "out-of-place";
      row.time_s = b.seconds;
      row.wall_s = b.wall_seconds;
      row.throughput_gbs = bytes(rows, cols) / b.seconds * 1e-9;
      row.memory_bytes = b.memory_bytes;
      row.extra_bytes = b.memory_bytes - std::min(b.memory_bytes, rows * cols * elem_size_);
      row.verified = b.verified;
      row.ok = !options_.verify || b.verified;
      results_.add(row);
    }
  }

  void print(const ipt::bench::Row& row) const {
    if (!row.ok) return;
    std::printf("%8zu %8zu %-10s %-5s %10.3f %10.1f %7.1f%%\n", row.rows, row.cols,
                row.variant.c_str(), row.sequence.c_str(), row.time_s * 1e3, row.throughput_gbs,
                100 * row.throughput_gbs / copy_gbs());
  }

  double copy_gbs() const { return copy_gbs_; }
  void set_copy(double gbs) { copy_gbs_ = gbs; }
  int finish() { return results_.finish(); }
  std::size_t elem_size() const { return elem_size_; }
  const ipt::support::Session& session() const { return session_; }

 private:
  static std::map<std::string, std::string> context(const Options& options,
                                                    const ipt::support::Session& session) {
    return {{"tool", "ipt-bench"},
            {"mode", options.mode},
            {"type", options.type},
            {"device", session.description()},
            {"driver", device_info(session.device(), CL_DRIVER_VERSION)},
            {"libipt", ipt_version_string()},
            {"commit", IPT_BENCH_COMMIT},
            {"buffer", options.buffer},
            {"verify", !options.verify          ? "no"
                       : options.verify_on_host ? "host"
                                                : "device"}};
  }
  static std::map<std::string, std::uint64_t> numbers(const Options& options) {
    return {{"count", options.count},
            {"seed", options.seed},
            {"min", options.min_side},
            {"max", options.max_side},
            {"repetitions", static_cast<std::uint64_t>(options.repetitions)}};
  }

  ipt::bench::Row base_row(std::size_t rows, std::size_t cols) const {
    ipt::bench::Row row;
    row.mode = options_.mode;
    row.type = options_.type;
    row.elem_size = elem_size_;
    row.rows = rows;
    row.cols = cols;
    return row;
  }

  double bytes(std::size_t rows, std::size_t cols) const {
    return 2.0 * static_cast<double>(rows) * static_cast<double>(cols) *
           static_cast<double>(elem_size_);
  }

  ipt::support::DevicePattern* pattern() { return pattern_ ? &*pattern_ : nullptr; }

  const Options& options_;
  const ipt::support::Session& session_;
  std::optional<ipt::support::DevicePattern> pattern_;
  std::size_t elem_size_;
  ipt::bench::Results results_;
  std::vector<std::string> baselines_;
  double copy_gbs_ = 0;
};

std::vector<std::size_t> divisors(std::size_t x) {
  std::vector<std::size_t> out;
  for (std::size_t d = 1; d <= x; ++d)
    if (x % d == 0) out.push_back(d);
  return out;
}

// The plan a call with room for padding gets.
ipt_plan_info auto_plan(const Bench& bench, std::size_t rows, std::size_t cols) {
  ipt_plan_info info{};
  ipt_plan(bench.session().device(), rows, cols, bench.elem_size(), nullptr, &info);
  return info;
}

void run_mode(Bench& bench, const Options& options, const std::vector<Shape>& shapes) {
  ipt::bench::Progress progress(shapes.size(), "shapes");
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto [rows, cols] = shapes[i];
    const std::uint64_t seed = options.seed + i;
    if (options.mode == "sequences") {
      // Every sequence on the automatic plan's padded shape, so that all run the same
      // matrix; those that cannot work for it (tiles too large...) are left out.
      const ipt_plan_info plan = auto_plan(bench, rows, cols);
      bench.print(bench.libipt(rows, cols, seed, "auto", nullptr));
      for (ipt_sequence s :
           {IPT_SEQUENCE_ONE_STAGE, IPT_SEQUENCE_2_1, IPT_SEQUENCE_2_2, IPT_SEQUENCE_3_1,
            IPT_SEQUENCE_3_2, IPT_SEQUENCE_4_1, IPT_SEQUENCE_4_2, IPT_SEQUENCE_SQUARE}) {
        ipt_plan_options forced{};
        forced.sequence = s;
        forced.padded_rows = plan.padded_rows;
        forced.padded_cols = plan.padded_cols;
        ipt_plan_info check{};
        if (ipt_plan(bench.session().device(), rows, cols, bench.elem_size(), &forced, &check) !=
            IPT_SUCCESS)
          continue;
        bench.print(bench.libipt(rows, cols, seed, ipt_sequence_name(s), &forced));
      }
    } else if (options.mode == "tiles") {
      // The heuristic's factors against every pair (or m alone for 2.1, n for 2.2) of
      // the same sequence family on the same padded shape.
      const ipt_plan_info plan = auto_plan(bench, rows, cols);
      bench.print(bench.libipt(rows, cols, seed, "heuristic", nullptr));
      std::vector<std::pair<std::size_t, std::size_t>> pairs;
      const auto ms = divisors(plan.padded_rows), ns = divisors(plan.padded_cols);
      if (plan.sequence == IPT_SEQUENCE_2_1)
        for (auto m : ms) pairs.emplace_back(m, 0);
      else if (plan.sequence == IPT_SEQUENCE_2_2)
        for (auto n : ns) pairs.emplace_back(0, n);
      else if (plan.sequence == IPT_SEQUENCE_3_1 || plan.sequence == IPT_SEQUENCE_3_2)
        for (auto m : ms)
          for (auto n : ns)
            if (m >= 2 && n >= 2 && m < plan.padded_rows && n < plan.padded_cols)
              pairs.emplace_back(m, n);
      // The forced options of a pair: the heuristic's 2-stage sequence, or 3.1 / 3.2 by
      // Algorithm 3, on the heuristic's padded shape.
      const auto forced_for = [&](std::size_t m, std::size_t n) {
        ipt_plan_options forced{};
        forced.sequence = plan.sequence == IPT_SEQUENCE_2_1 || plan.sequence == IPT_SEQUENCE_2_2
                              ? plan.sequence
                              : (m < n ? IPT_SEQUENCE_3_1 : IPT_SEQUENCE_3_2);
        forced.m = m;
        forced.n = n;
        forced.padded_rows = plan.padded_rows;
        forced.padded_cols = plan.padded_cols;
        return forced;
      };
      std::vector<ipt_plan_options> runnable;
      for (const auto& [m, n] : pairs) {
        const ipt_plan_options forced = forced_for(m, n);
        ipt_plan_info check{};
        if (ipt_plan(bench.session().device(), rows, cols, bench.elem_size(), &forced, &check) ==
            IPT_SUCCESS)
          runnable.push_back(forced);
      }
      // Too many pairs: an even sample (the heuristic's own pair is measured above).
      const std::size_t limit = std::max<std::size_t>(1, options.max_pairs);
      const std::size_t step = std::max<std::size_t>(1, (runnable.size() + limit - 1) / limit);
      for (std::size_t k = 0; k < runnable.size(); k += step)
        bench.libipt(rows, cols, seed, "pair", &runnable[k]);
    } else if (options.mode == "padding") {
      bench.print(bench.libipt(rows, cols, seed, "padded", nullptr));
      ipt_plan_options off{};
      off.padding = IPT_PADDING_OFF;
      bench.print(bench.libipt(rows, cols, seed, "unpadded", &off));
    } else {
      bench.print(bench.libipt(rows, cols, seed, "auto", nullptr));
      bench.baselines(rows, cols, seed);
    }
    progress.step();
  }
}

// This tool's own path, for the latency mode's child processes.
std::string self_path(const char* argv0) {
  std::string self(4096, '\0');
  const ssize_t length = readlink("/proc/self/exe", self.data(), self.size() - 1);
  return length > 0 ? self.substr(0, static_cast<std::size_t>(length)) : argv0;
}

// Runs `name`, beside this tool, in this process's place with the arguments after the
// mode: ipt-bench kernels MODE ... runs ipt-kernel-bench (it reaches the library's internal
// launchers), ipt-bench mpi ... runs ipt-bench-mpi (it links MPI and libipt_mpi, which
// ipt-bench's other modes need not load).
int run_beside(const char* name, int argc, char** argv) {
  std::string dir = self_path(argv[0]);
  dir = dir.substr(0, dir.find_last_of('/') + 1);
  const std::string tool = dir + name;
  std::vector<char*> args{const_cast<char*>(tool.c_str())};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(tool.c_str(), args.data());
  std::fprintf(stderr, "ipt-bench: cannot run %s\n", tool.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows even through a pipe
  if (argc >= 2 && std::string(argv[1]) == "kernels")
    return run_beside("ipt-kernel-bench", argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "mpi") {
    if (!kMpiBuilt) {
      std::fprintf(stderr,
                   "ipt-bench: this build has no MPI: the mpi mode needs libipt_mpi, built when "
                   "CMake finds MPI (and IPT_BUILD_MPI is ON)\n");
      return 2;
    }
    return run_beside("ipt-bench-mpi", argc, argv);
  }
  try {
    const Options options = parse(argc, argv);
    if (options.mode == "latency") {
      const ipt::support::Session session;
      if (!options.protocol.empty()) {
        Options protocol = options;
        protocol.mode = options.protocol;
        return ipt::bench::run_latency_protocol(session, shapes_of(protocol),
                                                elem_size_of(options.type), options.protocol,
                                                options.warmup);
      }
      if (!options.one.empty()) {
        if (options.shapes.size() != 1) usage("--one needs one shape (--shapes RxC)");
        return ipt::bench::run_latency_one(session, options.shapes.front().first,
                                           options.shapes.front().second,
                                           elem_size_of(options.type), options.one == "warmup");
      }
      std::vector<ipt::bench::LatencyShape> shapes;
      for (const Shape& shape : options.shapes) shapes.push_back({"", shape.first, shape.second});
      if (shapes.empty())
        shapes = {{"square", 16384, 16384},
                  {"on chip", 2000, 30},
                  {"two passes", 4096, 4100},
                  {"padded", 3001, 4999},
                  {"64-bit indices", 46341, 46342}};
      return ipt::bench::run_latency(session, self_path(argv[0]), shapes,
                                     elem_size_of(options.type));
    }
    if (options.mode == "batched") {
      const ipt::support::Session session;
      const Shape shape = options.shapes.empty() ? Shape{64, 100} : options.shapes.front();
      if (options.batch == 0) usage("--batch must be at least 1");
      return ipt::bench::run_batched(session, options.batch, shape.first, shape.second,
                                     elem_size_of(options.type), options.repetitions);
    }
    if (options.mode == "permute") {
      const ipt::support::Session session;
      return ipt::bench::run_permute(session, elem_size_of(options.type),
                                     options.count_given ? options.count : 20, options.seed,
                                     options.repetitions, options.csv, options.dims, options.perm);
    }
    if (options.mode == "host") {
      const ipt::support::Session session;
      const std::vector<Shape> shapes =
          options.shapes.empty()
              ? std::vector<Shape>{{4096, 4096}, {8192, 8192}, {5000, 7001}, {100003, 301}}
              : options.shapes;
      if (options.large)
        return ipt::bench::run_host_large(session, shapes, elem_size_of(options.type),
                                          options.threads);
      return ipt::bench::run_host(session, shapes, elem_size_of(options.type), options.repetitions,
                                  options.threads, options.slices);
    }
    if (options.mode == "imatcopy") {
      const ipt::support::Session session;
      const Shape shape = options.shapes.empty() ? Shape{8000, 6000} : options.shapes.front();
      return ipt::bench::run_imatcopy(session, shape.first, shape.second, options.type,
                                      options.repetitions);
    }
    const auto shapes = shapes_of(options);
    if (!options.shapes_out.empty() || options.list_shapes) {
      std::ofstream out;
      if (!options.shapes_out.empty()) out.open(options.shapes_out);
      std::string list;
      for (const auto& [r, c] : shapes) {
        if (out) out << r << ' ' << c << '\n';
        list += (list.empty() ? "" : ",") + std::to_string(r) + "x" + std::to_string(c);
      }
      if (options.list_shapes) {
        std::printf("%s\n", list.c_str());
        return 0;
      }
    }
    const ipt::support::Session session;
    const std::size_t elem_size = elem_size_of(options.type);
    std::size_t largest = 0;
    for (auto [rows, cols] : shapes) largest = std::max(largest, rows * cols * elem_size);
    const auto copy =
        ipt::support::measure_copy_bandwidth(session, ipt::support::copy_bytes_for(largest));
    const double copy_gbs = copy.gbs;
    std::printf(
        "device: %s (driver %s)\nlibipt %s (commit %s), mode %s, type %s, %zu shapes, "
        "%d timed runs each\n",
        session.description().c_str(), device_info(session.device(), CL_DRIVER_VERSION).c_str(),
        ipt_version_string(), IPT_BENCH_COMMIT, options.mode.c_str(), options.type.c_str(),
        shapes.size(), options.repetitions);
    std::printf("copy bandwidth: %s\n\n", ipt::support::describe(copy).c_str());
    std::printf("%8s %8s %-10s %-5s %10s %10s %8s\n", "rows", "cols", "variant", "seq", "median ms",
                "GB/s", "% copy");
    Bench bench(options, session, copy_gbs);
    bench.set_copy(copy_gbs);
    run_mode(bench, options, shapes);
    const int failed = bench.finish();
    if (failed > 0) std::printf("%d runs FAILED\n", failed);
    return failed == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipt-bench: %s\n", e.what());
    return 2;
  }
}
