// SPDX-License-Identifier: Apache-2.0
// ipt-kernel-bench: throughput of the elementary transposition kernels on their own,
// next to the device's copy bandwidth measured in the same run. Each kernel is the
// planner's step (planner/launch_plan.hpp), prepared once per row and verified against
// the host reference of its move (support/step_run.hpp). kHelp below (and
// tools/man/ipt-kernel-bench.1) describes the modes, options and columns.
#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "plan_choice.hpp"
#include "planner/families/bs.hpp"
#include "planner/families/onchip.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/families/square.hpp"
#include "planner/launch_plan.hpp"
#include "planner/tile_layout.hpp"
#include "results.hpp"
#include "runtime/device_query.hpp"
#include "runtime/error.hpp"
#include "runtime/executor.hpp"
#include "stage_profile.hpp"
#include "support/cli_values.hpp"
#include "support/command_line.hpp"
#include "support/measure.hpp"
#include "support/random_data.hpp"
#include "support/step_run.hpp"

namespace {

using Bytes = std::vector<unsigned char>;

struct Options {
  std::string mode;
  std::size_t elem_size = 4;
  std::size_t mib = 128;
  int repetitions = 5;
  bool verify = true;
  std::string csv;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> shapes;  // stages mode
  bool exact_buffer = true;                                     // stages mode
  std::size_t others = 5;                                       // plans mode
  std::vector<std::array<std::uint64_t, 4>> soa_shapes;         // soa mode: I, A, B, C
  std::vector<std::array<std::uint64_t, 3>> instances;          // onchip mode: I, R, C
  std::vector<std::uint64_t> sizes;                             // square mode
  std::size_t tile = 0, wg_rows = 0;                            // square mode (0: planner's)
  std::vector<bool> vectors;                                    // square mode (empty: planner's)
  std::vector<bool> bands;                                      // square mode (empty: planner's)
  std::vector<std::uint64_t> band_widths;         // square mode, in bands (empty: square_band)
  std::vector<ipt::planner::TileLayout> layouts;  // --tiles (empty: the mode's default)
};

const char* const kHelp =
    "usage: ipt-kernel-bench MODE [options]\n"
    "\n"
    "Measures libipt's elementary transposition kernels one by one on the OpenCL device\n"
    "(IPT_DEVICE picks it by a part of its name; default: the first GPU, else the first\n"
    "OpenCL device), each prepared once, verified against a host reference of its move,\n"
    "then timed.\n"
    "\n"
    "Modes:\n"
    "  soa               100! (arrays of structures to structures of arrays) against\n"
    "                    the super-element size C, for each virtual SIMD width;\n"
    "                    --soa-shapes IxAxBxC,... runs 0100! on those shapes instead\n"
    "  bs-vs-pttwac      010! by barrier-synchronised tiles (BS) and by PTTWAC\n"
    "                    against the tile size\n"
    "  pttwac-spreading  PTTWAC with spreading 1..32, padding off and on\n"
    "  restride          padding and unpadding of rows\n"
    "  stages            --shapes RxC,... [--buffer exact|padded]  every step of the\n"
    "                    automatic plan of each shape: its time and throughput, and the\n"
    "                    whole call's time from a marker to its last event\n"
    "  plans             --shapes RxC,... [--others K] [--buffer exact|padded]  the\n"
    "                    plan of a call against up to K other two-stage plans of each\n"
    "                    shape (2.1 or 2.2 by another factor, no padding; those the cost\n"
    "                    model ranks cheapest), and with --buffer padded up to K plans of\n"
    "                    the padded shapes the planner weighs, each timed as a whole\n"
    "                    call; then how far the planner's choices were from the fastest\n"
    "  square            [--sizes N,...] [--tile T] [--wg-rows R]  the square kernel\n"
    "                    on N x N (default: the N of --mib), the planner's tile unless\n"
    "                    --tile and --wg-rows force one\n"
    "  onchip            --shapes RxC,...|IxRxC,...  the on-chip kernel on the whole\n"
    "                    matrix or on I instances of R x C (an on-chip 010! stage); the\n"
    "                    check column says whether it ran in one pass or fell back\n"
    "\n"
    "Options:\n"
    "  --type 1|2|4|8|16  element size in bytes (4)\n"
    "  --mib N           array size in MiB of the generated shapes (128)\n"
    "  --reps N          timed runs after one warm-up (5); the median counts\n"
    "  --no-verify       do not check results\n"
    "  --csv FILE        one line per row, in ipt-bench's CSV columns (not stages,\n"
    "                    plans)\n"
    "  --shapes LIST     RxC,... (stages, plans, onchip) or IxRxC,... (onchip)\n"
    "  --soa-shapes LIST IxAxBxC,... (soa)\n"
    "  --sizes N,...     square sides (square)\n"
    "  --tile T, --wg-rows R  force the square kernel's tile and work-group rows\n"
    "  --vectors on|off|both  square: rows of 4-byte elements in 16-byte vectors or\n"
    "                    element by element (default: the planner's)\n"
    "  --bands on|off|both  square: tile pairs in bands of tile columns (32 of 4- and\n"
    "                    8-byte elements, 8 of others) or down the tile columns (default:\n"
    "                    the planner's)\n"
    "  --band-widths W,...  square: a row in bands of each W tile columns (with\n"
    "                    --bands off or both: and one down the tile columns)\n"
    "  --others K        plans: other plans timed per shape (5)\n"
    "  --buffer exact|padded  stages, plans: a buffer of exactly the matrix (default)\n"
    "                    or with room for any padding\n"
    "  --tiles padded|swizzled|both  the local-memory tile layout of the square and\n"
    "                    on-chip kernels (both by default, padded first; stages: what\n"
    "                    IPT_OVERRIDES says unless given, each layout a run of all shapes)\n"
    "  -h, --help        this text\n"
    "Numbers are plain decimal digits: no sign, no 0x, no exponent, no separators;\n"
    "a bad one exits 2 with a message naming the option.\n"
    "\n"
    "Output: a header with the device and the copy bandwidth (clEnqueueCopyBuffer\n"
    "between two device buffers of the largest array's size, of the shapes run or\n"
    "--mib's, 1 MiB to 1 GiB, bytes read + written / median time of 10 copies after\n"
    "a warm-up, as ipt-bench and ipt-demo),\n"
    "then one line per kernel configuration:\n"
    "  kernel     the kernel (BS, PTTWAC, 100!, pad, unpad, square, onchip, ...)\n"
    "  variant    its configuration (work-group size, tile, spreading, ...)\n"
    "  shape      the array's dimensions\n"
    "  median_ms  median kernel time (OpenCL profiling; a few KB of flag fills are not\n"
    "             counted)\n"
    "  GB/s       2 * elements moved * elem_size / time (read once + written once)\n"
    "  copy       the copy bandwidth in GB/s; frac: GB/s / copy\n"
    "  check      ok, WRONG, or off (--no-verify); onchip: one-pass or FALLBACK\n"
    "Configurations the device or kernel cannot run are listed as skipped, with why.\n"
    "The stages mode prints, per shape, each step's time, GB/s and % of copy (of the\n"
    "elements the step moves: a stage in two kernels moves part of the matrix in each),\n"
    "and the time outside the step kernels; the plans mode, per shape, each plan's\n"
    "median call time, its ratio to the fastest, GB/s, % of copy, the cost model's\n"
    "estimate (in copies of the matrix) and its check, the call's own plan marked *.\n"
    "\n"
    "Exit status: 0 all results right, 1 a wrong result or a failure, 2 a bad command\n"
    "line.\n";

// --help: the whole text on stdout, exit 0; a bad command line: `problem` and the short
// usage on stderr, exit 2.
[[noreturn]] void usage(const std::string& problem) {
  if (problem.empty()) {
    std::printf("%s", kHelp);
    std::exit(0);
  }
  std::fprintf(stderr,
               "ipt-kernel-bench: %s\nusage: ipt-kernel-bench MODE [options]  "
               "(ipt-kernel-bench --help lists the modes and options)\n",
               problem.c_str());
  std::exit(2);
}

// --mib's largest value: arrays of up to 1 TiB, so that MiB to bytes cannot overflow.
constexpr std::uint64_t kMaxMib = std::uint64_t{1} << 20;

// An on|off|both option's settings to run: {true}, {false} or {false, true}.
std::vector<bool> on_off_both(const std::string& value, const char* option) {
  const std::string how = ipt::support::one_of(value, option, {"on", "off", "both"});
  if (how == "on") return {true};
  if (how == "off") return {false};
  return {false, true};
}

Options parse(int argc, char** argv) {
  namespace cli = ipt::support;
  Options options;
  if (argc < 2) usage("no mode given");
  if (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") usage("");
  options.mode = argv[1];
  cli::CommandLine line;
  line.value("--type",
             [&](const std::string& v) { options.elem_size = cli::parse_count(v, "--type"); })
      .value("--mib",
             [&](const std::string& v) { options.mib = cli::parse_count(v, "--mib", kMaxMib); })
      .value("--reps",
             [&](const std::string& v) {
               options.repetitions = static_cast<int>(
                   std::max<std::uint64_t>(1, cli::parse_count(v, "--reps", INT_MAX)));
             })
      .flag("--no-verify", [&] { options.verify = false; })
      .value("--csv", [&](const std::string& v) { options.csv = v; })
      .value("--others",
             [&](const std::string& v) { options.others = cli::parse_count(v, "--others"); })
      .value("--buffer",
             [&](const std::string& v) {
               options.exact_buffer = cli::one_of(v, "--buffer", {"exact", "padded"}) == "exact";
             })
      .value("--shapes",
             [&](const std::string& v) {
               // RxC, or IxRxC (onchip mode: I instances of R x C).
               for (const auto& item : cli::split_list(v, ',', "--shapes")) {
                 const bool instances = std::count(item.begin(), item.end(), 'x') == 2;
                 const auto d = cli::parse_dims(item, instances ? 3 : 2, "--shapes");
                 if (instances) {
                   options.instances.push_back({d[0], d[1], d[2]});
                 } else {
                   options.shapes.emplace_back(d[0], d[1]);
                   options.instances.push_back({1, d[0], d[1]});
                 }
               }
             })
      .value("--sizes",
             [&](const std::string& v) {
               for (const auto n : cli::parse_count_list(v, "--sizes")) options.sizes.push_back(n);
             })
      .value("--tile", [&](const std::string& v) { options.tile = cli::parse_count(v, "--tile"); })
      .value("--wg-rows",
             [&](const std::string& v) { options.wg_rows = cli::parse_count(v, "--wg-rows"); })
      .value("--vectors",
             [&](const std::string& v) { options.vectors = on_off_both(v, "--vectors"); })
      .value("--bands", [&](const std::string& v) { options.bands = on_off_both(v, "--bands"); })
      .value("--band-widths",
             [&](const std::string& v) {
               options.band_widths = cli::parse_count_list(v, "--band-widths");
               for (const auto w : options.band_widths)
                 if (w == 0) throw cli::CliError("--band-widths: a band is 1 tile column or more");
             })
      .value("--tiles",
             [&](const std::string& v) {
               using ipt::planner::TileLayout;
               const std::string tiles = cli::one_of(v, "--tiles", {"padded", "swizzled", "both"});
               if (tiles == "padded")
                 options.layouts = {TileLayout::kPadded};
               else if (tiles == "swizzled")
                 options.layouts = {TileLayout::kSwizzled};
               else
                 options.layouts = {TileLayout::kPadded, TileLayout::kSwizzled};
             })
      .value("--soa-shapes", [&](const std::string& v) {
        for (const auto& item : cli::split_list(v, ',', "--soa-shapes")) {
          const auto d = cli::parse_dims(item, 4, "--soa-shapes");
          options.soa_shapes.push_back({d[0], d[1], d[2], d[3]});
        }
      });
  cli::or_usage([&] { line.parse(argc, argv, 2); }, usage);
  const auto e = options.elem_size;
  if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16) usage("bad --type");
  if (options.mode != "soa" && options.mode != "bs-vs-pttwac" &&
      options.mode != "pttwac-spreading" && options.mode != "restride" &&
      options.mode != "stages" && options.mode != "plans" && options.mode != "square" &&
      options.mode != "onchip")
    usage("unknown mode '" + options.mode + "'");
  if (options.mode == "onchip" && options.instances.empty())
    usage("onchip needs --shapes RxC,... or IxRxC,...");
  const bool whole_calls = options.mode == "stages" || options.mode == "plans";
  if (whole_calls && (options.shapes.empty() || options.instances.size() != options.shapes.size()))
    usage(options.mode + " takes --shapes RxC,...");
  // Their rows are steps or plans of whole calls, which ipt-bench's CSV columns have no
  // place for; tools/device/stage_table.py reads the stages' text instead.
  if (whole_calls && !options.csv.empty()) usage(options.mode + " writes no --csv");
  if (options.mode == "plans" && !options.layouts.empty())
    usage("plans times calls in IPT_OVERRIDES' tile layout");
  if (options.layouts.empty() && (options.mode == "square" || options.mode == "onchip"))
    options.layouts = {ipt::planner::TileLayout::kPadded, ipt::planner::TileLayout::kSwizzled};
  return options;
}

using ipt::planner::Step;
using ipt::planner::StepSite;

bool same_move(const ipt::planner::Move& a, const ipt::planner::Move& b) {
  return a.kind == b.kind && a.I == b.I && a.A == b.A && a.B == b.B && a.C == b.C &&
         a.rows == b.rows && a.len == b.len && a.s_in == b.s_in && a.s_out == b.s_out &&
         a.from == b.from && a.to == b.to && a.from_at == b.from_at && a.to_at == b.to_at &&
         a.count == b.count;
}

// One benchmark row: describes the kernel by its step, prepares it once, runs it on
// random data, verifies the first run against the host reference of the step's move
// (when asked), then times `repetitions` more runs.
class Runner {
 public:
  Runner(const Options& options, const ipt::support::Session& session, double copy_gbs)
      : options_(options),
        session_(session),
        copy_gbs_(copy_gbs),
        queue_(session.queue(), true),
        context_(session.context(), true) {
    // The kernels size their tiles by the device's own local memory, not by what
    // IPT_OVERRIDES tells the planner (which picks the default configs from profile_).
    const cl::Device device(session.device(), true);
    site_.elem_size = options.elem_size;
    site_.local_mem_bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    if (!options.csv.empty()) {
      csv_.open(options.csv);
      csv_ << ipt::bench::kCsvHeader << '\n';
    }
    std::printf("%-8s %-34s %-22s %10s %9s %9s %6s %s\n", "kernel", "variant", "shape", "median_ms",
                "GB/s", "copy", "frac", "check");
  }

  // The kernel of a row, from where it runs (element size, offset 0, local memory).
  using Describe = std::function<Step(const StepSite&)>;

  void row(const std::string& kernel, const std::string& variant, const std::string& shape,
           std::uint64_t elements, const Describe& describe, std::uint64_t moved = 0) {
    // `elements` is the array's size; `moved` (default: all of them) the elements the
    // kernel reads and writes once, which the throughput counts.
    const std::size_t bytes = static_cast<std::size_t>(elements) * options_.elem_size;
    const std::size_t moved_bytes =
        static_cast<std::size_t>(moved == 0 ? elements : moved) * options_.elem_size;
    std::string check = "off";
    try {
      const Step step = describe(site_);
      const ipt::planner::Move move = step.move;
      // Built and checked here, once: the timed runs only enqueue.
      const ipt::runtime::PreparedPlan prepared = ipt::runtime::prepare_plan(
          queue_, ipt::planner::plan_of_steps({step}, options_.elem_size, 0));
      // Random bytes generated once and shared by every row (a prefix for smaller arrays).
      if (random_.size() < bytes) {
        random_ = ipt::support::random_bytes(bytes, 12345);
        expected_.clear();  // computed from the old data
      }
      const Bytes data(random_.begin(), random_.begin() + static_cast<std::ptrdiff_t>(bytes));
      cl::Buffer buffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                        const_cast<unsigned char*>(data.data()));
      // The on-chip kernel reports whether it went in one pass or fell back to cycle
      // following: a fallback's time is not the one-pass kernel's.
      const bool onchip = step.family == ipt::planner::Family::kOnChip;
      ipt::runtime::EnqueueOptions enqueue;
      cl::Buffer report;
      if (onchip) {
        report = cl::Buffer(context_, CL_MEM_READ_WRITE, sizeof(cl_uint));
        enqueue.report = &report;
      }
      ipt::runtime::enqueue_plan(queue_, buffer, prepared, {}, enqueue).wait();  // warm-up
      if (options_.verify) {
        Bytes result(bytes);
        queue_.enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, result.data());
        check = result == reference(data, move) ? "ok" : "WRONG";
      }
      std::vector<double> seconds;
      int fallbacks = 0;
      for (int i = 0; i < options_.repetitions; ++i) {
        // A one-step plan's event is its kernel's.
        cl::Event event = ipt::runtime::enqueue_plan(queue_, buffer, prepared, {}, enqueue);
        event.wait();
        seconds.push_back(ipt::support::event_seconds(event()));
        if (onchip) {
          cl_uint decision = 0;
          queue_.enqueueReadBuffer(report, CL_TRUE, 0, sizeof decision, &decision);
          fallbacks += decision != 1;
        }
      }
      if (onchip)
        check += fallbacks == 0 ? " one-pass"
                                : " FALLBACK " + std::to_string(fallbacks) + "/" +
                                      std::to_string(options_.repetitions);
      const double median = ipt::support::stats_of(seconds).median;
      const double gbs = 2.0 * static_cast<double>(moved_bytes) / median * 1e-9;
      std::printf("%-8s %-34s %-22s %10.4f %9.1f %9.1f %6.3f %s\n", kernel.c_str(), variant.c_str(),
                  shape.c_str(), median * 1e3, gbs, copy_gbs_, gbs / copy_gbs_, check.c_str());
      if (csv_.is_open()) write_csv(kernel, variant, shape, median, gbs, check, bytes);
      if (check.rfind("WRONG", 0) == 0) ++wrong_;
    } catch (const ipt::Error& e) {  // a launch the device refuses
      skipped(kernel, variant, shape, e.what());
    } catch (const ipt::planner::ResourceError& e) {  // a launch the kernel cannot take
      skipped(kernel, variant, shape, e.what());
    } catch (const std::invalid_argument& e) {  // a config the kernel does not support
      skipped(kernel, variant, shape, e.what());
    }
  }

  int wrong() const { return wrong_; }
  const ipt::planner::DeviceProfile& profile() const { return profile_; }

 private:
  const Options& options_;
  const ipt::support::Session& session_;
  double copy_gbs_;
  cl::CommandQueue queue_;
  cl::Context context_;
  StepSite site_;

  static void skipped(const std::string& kernel, const std::string& variant,
                      const std::string& shape, const char* why) {
    std::printf("%-8s %-34s %-22s skipped: %s\n", kernel.c_str(), variant.c_str(), shape.c_str(),
                why);
  }

  // The expected bytes after `move` on `data`. Rows of one shape (every width, BS and
  // PTTWAC) share the data and the move, so the last reference is kept for the next.
  const Bytes& reference(const Bytes& data, const ipt::planner::Move& move) {
    if (expected_.size() != data.size() || !same_move(expected_move_, move)) {
      expected_.clear();  // freed before the next one is computed
      expected_ = ipt::support::reference_of(data, move, options_.elem_size);
      expected_move_ = move;
    }
    return expected_;
  }

  // One row in ipt-bench's columns (mode "kernels"), so that tools/plots draws it:
  // variant "100! vw=32 local" (the unit width and tiling; param = C), the kernel name
  // with its spreading (param = tile elements B * C), the rows/cols columns hold A and
  // B * C; or "square padded", "onchip swizzled" (the tile layout).
  void write_csv(const std::string& kernel, const std::string& variant, const std::string& shape,
                 double seconds, double gbs, const std::string& check, std::size_t bytes) {
    std::vector<std::uint64_t> d;
    for (std::size_t start = 0; start <= shape.size();) {
      const std::size_t x = std::min(shape.find('x', start), shape.size());
      d.push_back(std::strtoull(shape.substr(start, x - start).c_str(), nullptr, 10));
      start = x + 1;
    }
    const std::uint64_t last = d.back(), before = d.size() > 1 ? d[d.size() - 2] : 1;
    std::string label = kernel, param;
    if (kernel == "100!") {
      label += " " + variant.substr(0, variant.find(' '));
      label += variant.find("regs") != std::string::npos ? " regs" : " local";
      if (variant.find("(default)") != std::string::npos) label = "100! default";
      param = std::to_string(last);
    } else if (kernel == "PTTWAC" || kernel == "BS") {
      const auto r = variant.find("R=");
      if (r != std::string::npos) label += " " + variant.substr(r, variant.find(' ', r) - r);
      if (variant.find("unpadded") != std::string::npos) label += " unpadded";
      param = std::to_string(before * last);
    } else if (kernel == "square" || kernel == "onchip") {
      label += variant.find("swizzled") != std::string::npos ? " swizzled" : " padded";
      param = std::to_string(d.size() > 1 ? before : last);
    } else {
      param = std::to_string(d.size() > 1 ? before : last);
    }
    csv_ << "kernels,"
         << "libipt," << label << ',' << param << ',' << options_.elem_size << ','
         << options_.elem_size << ',' << (d.size() > 2 ? d[d.size() - 3] : 1) << ','
         << before * last << ",,,,,," << seconds << ",," << gbs << ',' << copy_gbs_ << ','
         << gbs / copy_gbs_ << ',' << bytes << ',' << (check.rfind("ok", 0) == 0 ? 1 : 0) << '\n';
  }

  std::ofstream csv_;
  Bytes random_;
  Bytes expected_;
  ipt::planner::Move expected_move_;
  int wrong_ = 0;
  ipt::planner::DeviceProfile profile_ = ipt::runtime::query_device_profile(session_.device());
};

std::string dims(std::initializer_list<std::uint64_t> values) {
  std::string text;
  for (auto v : values) text += (text.empty() ? "" : "x") + std::to_string(v);
  return text;
}

// The matrices that run_restride pads and unpads: rows of len elements, from a stride of
// s_in elements to one of s_out.
struct RestrideShape {
  std::uint64_t rows, len, s_in, s_out;
};
constexpr RestrideShape kRestrideShapes[] = {
    {10000, 10000, 10000, 10001}, {10000, 10000, 10001, 10000},   {100000, 1000, 1000, 1001},
    {100000, 1000, 1001, 1000},   {1000, 100000, 100000, 100001}, {1000, 100000, 100001, 100000},
    {10000000, 10, 10, 11},       {10000000, 10, 11, 10}};

// Padding and unpadding (kernels/restride.cl) of 10^8-element matrices by one row or
// column of padding: the target is 40% of the copy bandwidth. Throughput counts
// the matrix read once and written once.
void run_restride(Runner& runner, const Options& options) {
  const std::size_t elem = options.elem_size;
  ipt::planner::DeviceProfile profile;  // only the local memory matters for the defaults
  const auto device = cl::Device(ipt::support::select_device().device, true);
  profile.local_mem_bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  profile.max_work_group_size = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  const auto config = ipt::planner::choose_restride(profile, elem);
  for (const RestrideShape& s : kRestrideShapes) {
    const std::uint64_t extent = s.rows * std::max(s.s_in, s.s_out);
    const std::string name = std::to_string(s.rows) + "x" + std::to_string(s.len) + " " +
                             std::to_string(s.s_in) + "->" + std::to_string(s.s_out);
    runner.row(
        s.s_out > s.s_in ? "pad" : "unpad",
        "wg=" + std::to_string(config.work_group) + " per_item=" + std::to_string(config.per_item),
        name, extent,
        [&](const StepSite& site) {
          return ipt::planner::restride_step(site, s.rows, s.len, s.s_in, s.s_out, config);
        },
        s.rows * s.len);
  }
}

// 0100! on (I, A, B, C) for each unit width with register tiling (chunks of at most 16
// registers per lane), the default's width with local-memory tiling, and the default.
void run_soa_shape(Runner& runner, const Options& options, std::uint64_t I, std::uint64_t A,
                   std::uint64_t B, std::uint64_t C) {
  const std::size_t group = std::min<std::size_t>(256, runner.profile().max_work_group_size);
  // The planner's unit for this matrix, whose index width decides the registers per lane.
  StepSite indices;
  indices.index64 = ipt::planner::needs_index64(0, I * A * B * C);
  const auto chosen = ipt::planner::choose_soa(runner.profile(), C, options.elem_size, indices);
  auto row = [&](const ipt::planner::SoaConfig& config, const std::string& tag) {
    const std::string variant =
        "vw=" + std::to_string(config.vw) + " units=" + std::to_string(config.units) +
        (config.regs > 0 ? " regs=" + std::to_string(config.regs) : " local") + tag;
    runner.row(
        "100!", variant, I == 1 ? dims({A, B, C}) : dims({I, A, B, C}), I * A * B * C,
        [&](const StepSite& site) { return ipt::planner::soa_step(site, I, A, B, C, config); });
  };
  for (std::size_t vw : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8},
                         std::size_t{16}, std::size_t{32}, group}) {
    auto config = chosen;
    config.vw = vw;
    config.units = std::max<std::size_t>(1, group / vw);
    config.regs = static_cast<std::size_t>(std::min<std::uint64_t>(16, (C + vw - 1) / vw));
    config.chunk = std::min<std::uint64_t>(C, config.regs * vw);
    row(config, "");
  }
  auto local = chosen;
  local.regs = 0;
  local.chunk = 0;
  local.words = false;  // words of narrow elements move in registers only
  row(local, "");
  // The default unit in smaller work-groups (fewer units share each barrier), with as
  // many more groups.
  for (std::size_t g : {std::size_t{64}, std::size_t{128}}) {
    if (g <= chosen.vw || g >= chosen.vw * chosen.units) continue;
    auto smaller = chosen;
    smaller.units = g / chosen.vw;
    smaller.max_groups = chosen.max_groups * chosen.units / smaller.units;
    row(smaller, " groups=" + std::to_string(smaller.max_groups));
  }
  // Where the default cuts a super-element into chunks (each an item of its own, its
  // edges at other times than its neighbours'), the default unit widened, past one SIMD
  // width if need be, until it holds the super-element in one chunk: on matrices of 40
  // million floats or more, the random protocol's 100! steps ran at 84-87% of copy with
  // super-elements just under 2 KiB, in one chunk, and at 64-74% just over it, in two.
  if (chosen.regs > 0 && chosen.chunk < C) {
    auto wide = chosen;
    while (wide.vw < group && (C + wide.vw - 1) / wide.vw > chosen.regs) wide.vw *= 2;
    if ((C + wide.vw - 1) / wide.vw <= chosen.regs) {
      wide.units = std::max<std::size_t>(1, chosen.vw * chosen.units / wide.vw);
      wide.chunk = C;
      wide.max_groups = std::max<std::uint64_t>(
          1, chosen.max_groups * chosen.vw * chosen.units / (wide.vw * wide.units));
      row(wide, " one chunk");
    }
  }
  row(chosen, " (default)");
}

// 100! on (A, B, C) with A * B * C about `elements`, A != B, against C (TPDS Fig. 4), or
// on the shapes given with --soa-shapes.
void run_soa(Runner& runner, const Options& options, std::uint64_t elements) {
  for (const auto& [I, A, B, C] : options.soa_shapes) run_soa_shape(runner, options, I, A, B, C);
  if (!options.soa_shapes.empty()) return;
  for (std::uint64_t C : {1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 100, 128, 256, 512, 1024, 2560}) {
    const auto side = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(elements / C)));
    run_soa_shape(runner, options, 1, std::max<std::uint64_t>(2, side),
                  std::max<std::uint64_t>(2, side - 1), C);
  }
}

void run_bs_vs_pttwac(Runner& runner, const Options& options, std::uint64_t elements) {
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> tiles = {
      {2, 2},   {2, 4},   {4, 4},   {4, 8},     {8, 8},     {16, 16},   {24, 40},   {32, 32},
      {40, 50}, {64, 64}, {72, 96}, {100, 100}, {128, 128}, {200, 200}, {500, 500}, {1000, 1000}};
  for (const auto& [B, C] : tiles) {
    const std::uint64_t A = std::max<std::uint64_t>(1, elements / (B * C));
    const auto& profile = runner.profile();
    if (ipt::planner::bs_fits(profile, B, C, options.elem_size)) {
      const auto config = ipt::planner::choose_bs(profile, A, B, C, options.elem_size);
      runner.row("BS",
                 "wg=" + std::to_string(config.work_group) +
                     " tiles/group=" + std::to_string(config.tiles_per_group),
                 dims({A, B, C}), A * B * C, [&](const StepSite& site) {
                   return ipt::planner::bs_step(site, A, B, C, config);
                 });
    }
    const auto config = ipt::planner::choose_pttwac(profile, B, C);
    runner.row(
        "PTTWAC",
        "wg=" + std::to_string(config.work_group) + " R=" + std::to_string(config.spreading) +
            (config.global_flags ? " global flags" : " padded"),
        dims({A, B, C}), A * B * C,
        [&](const StepSite& site) { return ipt::planner::pttwac_step(site, A, B, C, config); });
  }
}

void run_pttwac_spreading(Runner& runner, std::uint64_t elements) {
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> tiles = {
      {64, 64}, {100, 90}, {128, 256}, {300, 301}, {500, 500}};
  for (const auto& [B, C] : tiles) {
    const std::uint64_t A = std::max<std::uint64_t>(1, elements / (B * C));
    for (std::size_t spreading : {1, 2, 4, 8, 16, 32})
      for (bool padding : {false, true}) {
        auto config = ipt::planner::choose_pttwac(runner.profile(), B, C);
        config.spreading = spreading;
        config.padding = padding;
        config.global_flags = false;
        if (ipt::planner::pttwac_flag_words(B * C, spreading, padding) * 4 >
            runner.profile().local_mem_bytes)
          continue;  // the flags do not fit this device
        runner.row("PTTWAC",
                   "R=" + std::to_string(spreading) + (padding ? " padded" : " unpadded") +
                       " wg=" + std::to_string(config.work_group),
                   dims({A, B, C}), A * B * C, [&](const StepSite& site) {
                     return ipt::planner::pttwac_step(site, A, B, C, config);
                   });
      }
  }
}

// The square kernel on n x n (each --sizes entry, else the n of --mib) in each tile
// layout: the planner's tile for the device in that layout (or --tile / --wg-rows).
void run_square(Runner& runner, const Options& options, std::uint64_t elements) {
  std::vector<std::uint64_t> sizes = options.sizes;
  if (sizes.empty())
    sizes.push_back(static_cast<std::uint64_t>(std::sqrt(static_cast<double>(elements))));
  for (const std::uint64_t n : sizes)
    for (const auto layout : options.layouts) {
      ipt::planner::SquarePlan plan;
      try {
        plan = ipt::planner::plan_square(runner.profile(), n, options.elem_size, options.tile,
                                         options.wg_rows, layout);
      } catch (const std::invalid_argument& e) {
        std::printf("%-8s %-34s %-22s skipped: %s\n", "square",
                    ipt::planner::tile_layout_name(layout), dims({n, n}).c_str(), e.what());
        continue;
      }
      std::vector<bool> vectors = options.vectors, bands = options.bands;
      if (vectors.empty()) vectors.push_back(plan.vectors);
      if (bands.empty()) bands.push_back(plan.band != 0 || !options.band_widths.empty());
      // The band widths to run: 0 (down the tile columns) for bands off; for bands on, the
      // planner's width or each of --band-widths.
      std::vector<std::uint64_t> widths;
      for (const bool band : bands)
        if (!band)
          widths.push_back(0);
        else if (options.band_widths.empty())
          widths.push_back(ipt::planner::square_band(options.elem_size));
        else
          widths.insert(widths.end(), options.band_widths.begin(), options.band_widths.end());
      for (const std::uint64_t width : widths)
        for (const bool vector : vectors) {
          plan.vectors = vector;
          plan.band = width;
          const bool band = width != 0;
          const bool moved = ipt::planner::square_vectors(plan, options.elem_size, false);
          if (vector && !moved) {
            std::printf(
                "%-8s %-34s %-22s skipped: vector rows need 4-byte elements and a tile "
                "that is a multiple of 4 x wg_rows\n",
                "square", "vectors", dims({n, n}).c_str());
            continue;
          }
          runner.row("square",
                     "tile=" + std::to_string(plan.tile) + "x" + std::to_string(plan.wg_rows) +
                         (moved ? " vectors " : " ") +
                         (band ? "bands=" + std::to_string(width) + " " : "") +
                         ipt::planner::tile_layout_name(layout),
                     dims({n, n}), n * n, [&](const StepSite& site) {
                       return ipt::planner::square_step(site, n, plan);
                     });
        }
    }
}

// The value of build option -D<name>=value in `options`, or "" without it.
std::string option_value(const std::string& options, const std::string& name) {
  const std::string key = "-D" + name + "=";
  const std::size_t at = options.find(key);
  if (at == std::string::npos) return "";
  const std::size_t from = at + key.size();
  return options.substr(from, options.find(' ', from) - from);
}

// The on-chip kernel on each shape (I instances of R x C; I = 1: the whole matrix) in each
// tile layout, with the device's configuration (a work-group per compute unit).
void run_onchip(Runner& runner, const Options& options) {
  for (const auto& [I, R, C] : options.instances)
    for (const auto layout : options.layouts) {
      const auto config = ipt::planner::choose_onchip(runner.profile(), options.elem_size, layout);
      const std::string shape = I == 1 ? dims({R, C}) : dims({I, R, C});
      if (!ipt::planner::onchip_fits(config, R, C)) {
        std::printf("%-8s %-34s %-22s skipped: does not fit on chip\n", "onchip",
                    ipt::planner::tile_layout_name(layout), shape.c_str());
        continue;
      }
      // What the step builds (blocks, held tiles where its rounds are fewer for them), not
      // what the configuration allows.
      StepSite whole;
      whole.elem_size = options.elem_size;
      const std::string built = ipt::planner::onchip_step(whole, I, R, C, config).options;
      const auto tile = ipt::planner::onchip_tile(config, R, C);
      const std::string block = option_value(built, "IPT_BLOCK");
      runner.row(
          "onchip",
          "wg=" + std::to_string(config.work_group) + " " +
              (block.empty() ? std::to_string(tile.rows) + "x" + std::to_string(tile.cols)
                             : block + "x" + block + " blocks") +
              " stage=" + option_value(built, "STAGE") +
              " held=" + (option_value(built, "HELD").empty() ? "0" : option_value(built, "HELD")) +
              " " + ipt::planner::tile_layout_name(layout),
          shape, I * R * C,
          [&](const StepSite& site) { return ipt::planner::onchip_step(site, I, R, C, config); });
    }
}

// The stages mode in the given tile layout: the library plans a call by IPT_OVERRIDES,
// its one override path, so the layout is added to it (`tiles`, both families).
void use_tiles(const std::string& overrides, ipt::planner::TileLayout layout) {
  const std::string text = overrides + (overrides.empty() ? "" : ",") +
                           "tiles=" + ipt::planner::tile_layout_name(layout);
  setenv("IPT_OVERRIDES", text.c_str(), 1);
  std::printf("IPT_OVERRIDES=%s\n", text.c_str());
}

// The bytes of the run's largest array: of the shapes it runs (given, or restride's
// own), else --mib's. The copy bandwidth is measured on that many bytes (1 MiB to 1 GiB),
// as ipt-bench does: a copy runs slower the smaller it is (its launch a larger share of
// its time), so a kernel is compared with a copy of its own array's size.
std::uint64_t largest_array_bytes(const Options& options) {
  std::uint64_t largest = 0;
  const auto take = [&](std::initializer_list<std::uint64_t> dims) {
    std::uint64_t elements = 1;
    for (const std::uint64_t d : dims)
      elements = d != 0 && elements > UINT64_MAX / d ? UINT64_MAX : elements * d;
    largest = std::max(largest, elements);
  };
  if (options.mode == "stages" || options.mode == "plans")
    for (const auto& [rows, cols] : options.shapes) take({rows, cols});
  if (options.mode == "onchip")
    for (const auto& i : options.instances) take({i[0], i[1], i[2]});
  if (options.mode == "soa")
    for (const auto& s : options.soa_shapes) take({s[0], s[1], s[2], s[3]});
  if (options.mode == "square")
    for (const std::uint64_t n : options.sizes) take({n, n});
  if (options.mode == "restride")
    for (const RestrideShape& r : kRestrideShapes) take({r.rows, std::max(r.s_in, r.s_out)});
  if (largest == 0) return std::uint64_t{options.mib} << 20;
  return largest > UINT64_MAX / options.elem_size ? UINT64_MAX : largest * options.elem_size;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // rows appear as they are measured
  const Options options = parse(argc, argv);
  try {
    const ipt::support::Session session;
    const std::uint64_t elements = (std::uint64_t{options.mib} << 20) / options.elem_size;
    const std::uint64_t largest = largest_array_bytes(options);
    const auto copy = ipt::support::measure_copy_bandwidth(
        session, ipt::support::copy_bytes_for(static_cast<std::size_t>(largest)));
    const double copy_gbs = copy.gbs;
    std::printf(
        "device: %s\nmode %s, %zu-byte elements, arrays of up to %.2f MiB, %d timed runs\n"
        "copy bandwidth: %s\n",
        session.description().c_str(), options.mode.c_str(), options.elem_size,
        static_cast<double>(largest) / (1 << 20), options.repetitions,
        ipt::support::describe(copy).c_str());
    if (options.mode == "stages") {
      if (options.layouts.empty())
        return ipt::bench::run_stage_profile(session, options.shapes, options.elem_size,
                                             options.repetitions, copy_gbs, options.verify,
                                             options.exact_buffer);
      const char* given = std::getenv("IPT_OVERRIDES");
      const std::string overrides = given != nullptr ? given : "";
      int status = 0;
      for (const auto layout : options.layouts) {
        use_tiles(overrides, layout);
        status |= ipt::bench::run_stage_profile(session, options.shapes, options.elem_size,
                                                options.repetitions, copy_gbs, options.verify,
                                                options.exact_buffer);
      }
      return status;
    }
    if (options.mode == "plans")
      return ipt::bench::run_plan_choice(session, options.shapes, options.elem_size,
                                         options.repetitions, copy_gbs, options.verify,
                                         options.others, options.exact_buffer);
    Runner runner(options, session, copy_gbs);
    if (options.mode == "soa")
      run_soa(runner, options, elements);
    else if (options.mode == "bs-vs-pttwac")
      run_bs_vs_pttwac(runner, options, elements);
    else if (options.mode == "restride")
      run_restride(runner, options);
    else if (options.mode == "square")
      run_square(runner, options, elements);
    else if (options.mode == "onchip")
      run_onchip(runner, options);
    else
      run_pttwac_spreading(runner, elements);
    if (runner.wrong() > 0) {
      std::fprintf(stderr, "ipt-kernel-bench: %d configurations gave WRONG results\n",
                   runner.wrong());
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipt-kernel-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
