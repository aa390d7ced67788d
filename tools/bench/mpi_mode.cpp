// SPDX-License-Identifier: Apache-2.0
#include "mpi_mode.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ipt/ipt_mpi.h"
#include "support/cli_values.hpp"
#include "support/device_select.hpp"
#include "support/measure.hpp"
#include "support/program_build.hpp"
#include "support/rank_device.hpp"

#ifndef IPT_BENCH_COMMIT
#define IPT_BENCH_COMMIT "unknown"
#endif

namespace ipt::bench {
namespace {

using Shape = std::pair<std::size_t, std::size_t>;

const char* const kUsage =
    "usage: mpirun -np P ipt-bench mpi [--shapes RxC,... (8192x8192)] [--fill F,...]\n"
    "         [--beyond-max-alloc] [--weak]\n"
    "         [--type f32|f64|u8|f16|bf16|1|2|4|8|16] [--reps N (5)]\n"
    "         [--scheme auto|pairwise|alltoall,... (auto)] [--staging BYTES]\n"
    "         [--block-rows B] [--block-cols C] [--flags none|in|out|in,out]\n"
    "         [--csv FILE] [--json FILE]\n"
    "  ipt-bench --help (and man ipt-bench-mpi) describes them.\n";

// The all-to-all's host buffers (each direction): large enough that the bandwidth no
// longer grows, small enough for several ranks of one node; larger exchanges go in rounds.
constexpr std::size_t kAlltoallBuffer = std::size_t{256} << 20;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct HelpAsked {};

struct Options {
  std::vector<Shape> shapes;
  std::vector<double> fills;
  bool weak = false;
  // Buffers past CL_DEVICE_MAX_MEM_ALLOC_SIZE: some drivers (NVIDIA's) allocate them.
  bool beyond_max_alloc = false;
  std::string type = "f32";
  std::size_t elem_size = 4;
  int reps = 5;
  std::vector<ipt_mpi_scheme> schemes{IPT_MPI_SCHEME_AUTO};
  std::size_t staging = 0, block_rows = 0, block_cols = 0;
  unsigned flags = 0;
  std::string csv, json;
};

std::vector<std::string> split(const std::string& text, char separator, const std::string& what) {
  try {
    return support::split_list(text, separator, what);
  } catch (const support::CliError& e) {
    throw UsageError(e.what());
  }
}

std::uint64_t number(const std::string& text, const std::string& what,
                     std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  try {
    return support::parse_count(text, what, max);
  } catch (const support::CliError& e) {
    throw UsageError(e.what());
  }
}

// A failed libipt_mpi call: its status in words and ipt_mpi_last_error_message(), which
// says which rank found what.
std::string mpi_failure_text(ipt_status status) {
  std::string text = ipt_status_string(status);
  const char* message = ipt_mpi_last_error_message();
  if (message != nullptr && *message != '\0') text += std::string("; ") + message;
  return text;
}

// The names the other modes accept (elements move bit for bit: only the size matters).
std::size_t elem_size_of(const std::string& type) {
  if (type == "f32") return 4;
  if (type == "f64") return 8;
  if (type == "u8") return 1;
  if (type == "f16" || type == "bf16") return 2;
  const auto size = number(type, "--type");
  if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16)
    throw UsageError("bad --type " + type);
  return size;
}

const char* scheme_name(ipt_mpi_scheme scheme) {
  switch (scheme) {
    case IPT_MPI_SCHEME_PAIRWISE:
      return "pairwise";
    case IPT_MPI_SCHEME_ALLTOALL:
      return "alltoall";
    default:
      return "auto";
  }
}

std::string flags_name(unsigned flags) {
  if (flags == 0) return "none";
  if (flags == (IPT_MPI_TRANSPOSED_IN | IPT_MPI_TRANSPOSED_OUT)) return "in+out";
  return (flags & IPT_MPI_TRANSPOSED_IN) != 0 ? "in" : "out";
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      throw HelpAsked{};
    } else if (arg == "--shapes") {
      for (const auto& item : split(value(), ',', arg)) {
        try {
          const auto sides = support::parse_dims(item, 2, arg);
          options.shapes.emplace_back(sides[0], sides[1]);
        } catch (const support::CliError& e) {
          throw UsageError(e.what());
        }
      }
    } else if (arg == "--fill") {
      for (const auto& item : split(value(), ',', arg)) {
        // Plain decimal fractions only (0.5, .25), as strict as the counts.
        const bool plain = item.find_first_not_of("0123456789.") == std::string::npos &&
                           item.find('.') == item.rfind('.');
        char* end = nullptr;
        const double f = plain ? std::strtod(item.c_str(), &end) : 0.0;
        if (!plain || end == item.c_str() || *end != '\0' || !(f > 0 && f < 1))
          throw UsageError("--fill takes fractions in (0, 1), not '" + item + "'");
        options.fills.push_back(f);
      }
    } else if (arg == "--beyond-max-alloc") {
      options.beyond_max_alloc = true;
    } else if (arg == "--weak") {
      options.weak = true;
    } else if (arg == "--type") {
      options.type = value();
      options.elem_size = elem_size_of(options.type);
    } else if (arg == "--reps") {
      options.reps = static_cast<int>(std::clamp<std::size_t>(number(value(), arg), 1, 1000));
    } else if (arg == "--scheme") {
      options.schemes.clear();
      for (const auto& item : split(value(), ',', arg)) {
        if (item == "auto")
          options.schemes.push_back(IPT_MPI_SCHEME_AUTO);
        else if (item == "pairwise")
          options.schemes.push_back(IPT_MPI_SCHEME_PAIRWISE);
        else if (item == "alltoall")
          options.schemes.push_back(IPT_MPI_SCHEME_ALLTOALL);
        else
          throw UsageError("--scheme takes auto, pairwise or alltoall, not '" + item + "'");
      }
    } else if (arg == "--staging") {
      options.staging = number(value(), arg);
    } else if (arg == "--block-rows") {
      options.block_rows = number(value(), arg);
    } else if (arg == "--block-cols") {
      options.block_cols = number(value(), arg);
    } else if (arg == "--flags") {
      options.flags = 0;
      for (const auto& item : split(value(), ',', arg)) {
        if (item == "in")
          options.flags |= IPT_MPI_TRANSPOSED_IN;
        else if (item == "out")
          options.flags |= IPT_MPI_TRANSPOSED_OUT;
        else if (item != "none")
          throw UsageError("--flags takes none, in, out or in,out, not '" + item + "'");
      }
    } else if (arg == "--csv") {
      options.csv = value();
    } else if (arg == "--json") {
      options.json = value();
    } else {
      throw UsageError("unknown option " + arg);
    }
  }
  if (options.shapes.empty() && options.fills.empty()) options.shapes.emplace_back(8192, 8192);
  for (const auto& [rows, cols] : options.shapes)
    if (rows == 0 || cols == 0) throw UsageError("a shape needs rows and columns");
  return options;
}

// ---- The matrix on the device: element (i, j) of the global rows x cols matrix is a hash
// of its index i * cols + j, written and checked by kernels where each rank's block is.

// A block stored row-major as (count / cols) x cols: its element p = a * cols + b holds
// the matrix's element of global index base + a * a_step + b * b_step.
struct Layout {
  std::size_t count = 0, cols = 1, a_step = 0, b_step = 0, base = 0;
};

// Rows [r0, r0 + lr) of the M x N matrix: lr x N, or N x lr (TRANSPOSED_IN).
Layout input_layout(std::size_t N, const ipt_mpi_local& local, unsigned flags) {
  const std::size_t lr = local.local_rows, base = local.local_row_start * N;
  if ((flags & IPT_MPI_TRANSPOSED_IN) != 0)
    return {lr * N, std::max<std::size_t>(lr, 1), 1, N, base};
  return {lr * N, N, N, 1, base};
}

// Rows [c0, c0 + lc) of the N x M transpose, whose element (j, i) is the matrix's
// (i, c0 + j): lc x M, or M x lc (TRANSPOSED_OUT).
Layout output_layout(std::size_t M, std::size_t N, const ipt_mpi_local& local, unsigned flags) {
  const std::size_t lc = local.local_cols, base = local.local_col_start;
  if ((flags & IPT_MPI_TRANSPOSED_OUT) != 0)
    return {M * lc, std::max<std::size_t>(lc, 1), N, 1, base};
  return {lc * M, M, 1, N, base};
}

// T is the element type, WORDS its 32-bit words (1, 2 or 4; 1- and 2-byte elements take
// the low bits of one). Each work-item walks the block with the grid's stride, carrying
// (a, b) rather than dividing for every element.
const char* kSource = R"CLC(
uint pattern_word(ulong seed, ulong index, uint w) {
  ulong x = seed * 0xD1B54A32D192ED03UL + index * 4 + w + 0x9E3779B97F4A7C15UL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
  return (uint)(x ^ (x >> 31));
}
#if WORDS == 1
T pattern(ulong seed, ulong g) { return (T)pattern_word(seed, g, 0); }
#define SAME(x, y) ((x) == (y))
#elif WORDS == 2
T pattern(ulong seed, ulong g) { return (T)(pattern_word(seed, g, 0), pattern_word(seed, g, 1)); }
#define SAME(x, y) all((x) == (y))
#else
T pattern(ulong seed, ulong g) {
  return (T)(pattern_word(seed, g, 0), pattern_word(seed, g, 1), pattern_word(seed, g, 2),
             pattern_word(seed, g, 3));
}
#define SAME(x, y) all((x) == (y))
#endif

__kernel void block_fill(__global T *data, ulong count, ulong cols, ulong a_step, ulong b_step,
                         ulong base, ulong seed) {
  const ulong stride = get_global_size(0);
  ulong p = get_global_id(0);
  if (p >= count) return;
  ulong a = p / cols, b = p % cols;
  const ulong da = stride / cols, db = stride % cols;
  for (; p < count; p += stride) {
    data[p] = pattern(seed, base + a * a_step + b * b_step);
    a += da;
    b += db;
    if (b >= cols) { b -= cols; ++a; }
  }
}

// result[0]: wrong elements; result[1]: the first wrong position below 2^32 - 1.
__kernel void block_check(__global const T *data, ulong count, ulong cols, ulong a_step,
                          ulong b_step, ulong base, ulong seed, __global uint *result) {
  const ulong stride = get_global_size(0);
  ulong p = get_global_id(0);
  if (p >= count) return;
  ulong a = p / cols, b = p % cols;
  const ulong da = stride / cols, db = stride % cols;
  for (; p < count; p += stride) {
    if (!SAME(data[p], pattern(seed, base + a * a_step + b * b_step))) {
      atomic_inc(&result[0]);
      atomic_min(&result[1], (uint)min(p, (ulong)0xFFFFFFFEu));
    }
    a += da;
    b += db;
    if (b >= cols) { b -= cols; ++a; }
  }
}
)CLC";

class BlockPattern {
 public:
  explicit BlockPattern(const support::Session& session) : session_(session) {
    cl_int code = CL_SUCCESS;
    result_ =
        clCreateBuffer(session.context(), CL_MEM_READ_WRITE, 2 * sizeof(cl_uint), nullptr, &code);
    support::check(code, "clCreateBuffer(check result)");
  }
  ~BlockPattern() {
    for (cl_program p : programs_)
      if (p != nullptr) clReleaseProgram(p);
    if (result_ != nullptr) clReleaseMemObject(result_);
  }
  BlockPattern(const BlockPattern&) = delete;
  BlockPattern& operator=(const BlockPattern&) = delete;

  void fill(cl_mem buffer, const Layout& l, std::size_t e, std::uint64_t seed) {
    if (l.count == 0) return;
    run("block_fill", buffer, l, e, seed, false);
  }

  // Empty when the block holds what `l` says; else how many elements are wrong, and where.
  std::string check(cl_mem buffer, const Layout& l, std::size_t e, std::uint64_t seed) {
    if (l.count == 0) return "";
    const cl_uint initial[2] = {0, 0xFFFFFFFFu};
    support::check(clEnqueueWriteBuffer(session_.queue(), result_, CL_TRUE, 0, sizeof initial,
                                        initial, 0, nullptr, nullptr),
                   "clEnqueueWriteBuffer(check result)");
    run("block_check", buffer, l, e, seed, true);
    cl_uint result[2] = {0, 0};
    support::check(clEnqueueReadBuffer(session_.queue(), result_, CL_TRUE, 0, sizeof result, result,
                                       0, nullptr, nullptr),
                   "clEnqueueReadBuffer(check result)");
    if (result[0] == 0) return "";
    std::string text = std::to_string(result[0]) + " elements wrong";
    if (result[1] != 0xFFFFFFFFu)
      text += ", the first at row " + std::to_string(result[1] / l.cols) + ", column " +
              std::to_string(result[1] % l.cols) + " of the stored block";
    return text;
  }

 private:
  void run(const char* name, cl_mem buffer, const Layout& l, std::size_t e, std::uint64_t seed,
           bool with_result) {
    cl_kernel k = kernel(name, e);
    const cl_ulong args[6] = {l.count, l.cols, l.a_step, l.b_step, l.base, seed};
    clSetKernelArg(k, 0, sizeof(cl_mem), &buffer);
    for (cl_uint i = 0; i < 6; ++i) clSetKernelArg(k, i + 1, sizeof(cl_ulong), &args[i]);
    if (with_result) clSetKernelArg(k, 7, sizeof(cl_mem), &result_);
    const std::size_t local = 256;
    const std::size_t global = std::min<std::size_t>((l.count + local - 1) / local, 65536) * local;
    const cl_int code = clEnqueueNDRangeKernel(session_.queue(), k, 1, nullptr, &global, &local, 0,
                                               nullptr, nullptr);
    clReleaseKernel(k);
    support::check(code, name);
    support::check(clFinish(session_.queue()), name);
  }

  cl_kernel kernel(const char* name, std::size_t e) {
    static const std::size_t sizes[] = {1, 2, 4, 8, 16};
    static const char* types[] = {"uchar", "ushort", "uint", "uint2", "uint4"};
    static const char* words[] = {"1", "1", "1", "2", "4"};
    const auto s = static_cast<std::size_t>(std::find(sizes, sizes + 5, e) - sizes);
    if (s == 5) throw std::invalid_argument("element size " + std::to_string(e));
    cl_program& program = programs_[s];
    cl_int code = CL_SUCCESS;
    if (program == nullptr)
      program = support::build_program(session_.context(), session_.device(), kSource,
                                       std::string("-DT=") + types[s] + " -DWORDS=" + words[s],
                                       "block pattern");
    cl_kernel k = clCreateKernel(program, name, &code);
    support::check(code, name);
    return k;
  }

  const support::Session& session_;
  cl_program programs_[5] = {};
  cl_mem result_ = nullptr;
};

// Host memory for MPI: pinned (a mapped CL_MEM_ALLOC_HOST_PTR buffer) where the driver
// gives it, else pageable.
class HostBuffer {
 public:
  HostBuffer(const support::Session& session, std::size_t bytes) : session_(session) {
    cl_int code = CL_SUCCESS;
    buffer_ = clCreateBuffer(session.context(), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes,
                             nullptr, &code);
    if (code == CL_SUCCESS)
      data_ = static_cast<unsigned char*>(clEnqueueMapBuffer(session.queue(), buffer_, CL_TRUE,
                                                             CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                                             0, nullptr, nullptr, &code));
    if (code != CL_SUCCESS || data_ == nullptr) {
      release();
      pageable_.resize(bytes);
      data_ = pageable_.data();
    }
    std::memset(data_, 0x5a, bytes);
  }
  ~HostBuffer() { release(); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  unsigned char* data() const { return data_; }
  bool pinned() const { return buffer_ != nullptr; }

 private:
  void release() {
    if (buffer_ == nullptr) return;
    if (data_ != nullptr)
      clEnqueueUnmapMemObject(session_.queue(), buffer_, data_, 0, nullptr, nullptr);
    clFinish(session_.queue());
    clReleaseMemObject(buffer_);
    buffer_ = nullptr;
    data_ = nullptr;
  }

  const support::Session& session_;
  cl_mem buffer_ = nullptr;
  unsigned char* data_ = nullptr;
  std::vector<unsigned char> pageable_;
};

// ---- The ranks.

using ull = unsigned long long;

struct RankInfo {  // gathered on rank 0, as bytes
  char host[MPI_MAX_PROCESSOR_NAME];
  char device[256];
  char driver[64];
  int node_leader, local_rank;
  ull index, devices, sharing, global_mem, max_alloc;
  double copy_gbs;
};

struct Row {
  std::string scheme, planned, origin;
  std::size_t rows = 0, cols = 0;
  ipt_mpi_plan_info plan{};
  double time_s = 0, min_s = 0, max_s = 0, gbs = 0, rank_gbs = 0, exchange_gbs = 0;
  double alltoall_s = 0, alltoall_rank_gbs = 0, alltoall_gbs = 0;
  bool alltoall_pinned = false;
  std::size_t exchange_max = 0, alloc_bytes = 0, block_bytes = 0, padding_bytes = 0;
  double padding_fraction = 0, staging_fraction = 0;
  bool ok = false;
};

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

class MpiBench {
 public:
  MpiBench(const Options& options, const support::Session& session, int rank, int ranks,
           int node_leader, int local_rank, std::size_t index, std::size_t devices,
           std::size_t sharing)
      : options_(options),
        session_(session),
        pattern_(session),
        rank_(rank),
        ranks_(ranks),
        e_(options.elem_size) {
    std::memset(&info_, 0, sizeof info_);
    int length = 0;
    MPI_Get_processor_name(info_.host, &length);
    std::snprintf(info_.device, sizeof info_.device, "%s", session.description().c_str());
    char driver[64] = {};
    clGetDeviceInfo(session.device(), CL_DRIVER_VERSION, sizeof driver - 1, driver, nullptr);
    std::snprintf(info_.driver, sizeof info_.driver, "%s", driver);
    info_.node_leader = node_leader;
    info_.local_rank = local_rank;
    info_.index = index;
    info_.devices = devices;
    info_.sharing = sharing;
    cl_ulong memory = 0, max_alloc = 0;
    clGetDeviceInfo(session.device(), CL_DEVICE_GLOBAL_MEM_SIZE, sizeof memory, &memory, nullptr);
    clGetDeviceInfo(session.device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc,
                    nullptr);
    info_.global_mem = memory;
    info_.max_alloc = max_alloc;
  }

  int run() {
    std::vector<std::pair<Shape, std::string>> shapes;
    for (auto [rows, cols] : options_.shapes)
      shapes.push_back({{options_.weak ? rows * static_cast<std::size_t>(ranks_) : rows, cols},
                        options_.weak ? "weak" : "shapes"});
    std::vector<std::string> fill_notes;
    for (double f : options_.fills) {
      char origin[32];
      std::snprintf(origin, sizeof origin, "fill=%g", f);
      const std::size_t n = fill_side(f, fill_notes);
      if (n > 0) shapes.push_back({{n, n}, origin});
    }
    measure_copy(shapes);
    std::vector<RankInfo> all(rank_ == 0 ? ranks_ : 0);
    MPI_Gather(&info_, sizeof info_, MPI_BYTE, all.data(), sizeof info_, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    if (rank_ == 0) header(all, fill_notes);
    int failed = 0;
    for (std::size_t s = 0; s < shapes.size(); ++s)
      for (ipt_mpi_scheme scheme : options_.schemes) {
        Row row = measure(shapes[s].first.first, shapes[s].first.second, scheme, 2015 + s,
                          shapes[s].second);
        if (!row.ok) ++failed;
        if (rank_ == 0) record(row);
      }
    if (rank_ == 0) {
      finish_json(all);
      std::printf("\n%s\n", failed == 0 ? "all results verified"
                                        : (std::to_string(failed) + " runs FAILED").c_str());
    }
    return failed == 0 ? 0 : 1;
  }

 private:
  // ---- collectives
  static bool all_ok(bool mine) {
    int in = mine ? 1 : 0, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return out != 0;
  }
  static double max_of(double x) {
    double out = 0;
    MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return out;
  }
  static double min_of(double x) {
    double out = 0;
    MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    return out;
  }
  std::vector<std::size_t> gather_all(std::size_t x) const {
    const ull mine = x;
    std::vector<ull> all(static_cast<std::size_t>(ranks_));
    MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all.data(), 1, MPI_UNSIGNED_LONG_LONG,
                  MPI_COMM_WORLD);
    return {all.begin(), all.end()};
  }

  ipt_mpi_options mpi_options(ipt_mpi_scheme scheme) const {
    ipt_mpi_options o{};
    o.block_rows = options_.block_rows;
    o.block_cols = options_.block_cols;
    o.scheme = scheme;
    o.staging_bytes = options_.staging;
    return o;
  }

  // The side of the largest square whose buffer (alloc_elements) fits, on every rank, the
  // fraction f of its device's memory divided among the ranks on that device, and one
  // allocation of the device.
  std::size_t fill_side(double f, std::vector<std::string>& notes) {
    const double share =
        f * static_cast<double>(info_.global_mem) / static_cast<double>(info_.sharing);
    const bool capped = !options_.beyond_max_alloc && share > static_cast<double>(info_.max_alloc);
    const double budget = min_of(capped ? static_cast<double>(info_.max_alloc) : share);
    const ipt_mpi_options o = mpi_options(IPT_MPI_SCHEME_AUTO);
    auto fits = [&](std::size_t n) {
      ipt_mpi_local local{};
      const bool ok =
          ipt_mpi_local_size_with_options(MPI_COMM_WORLD, n, n, &o, &local) == IPT_SUCCESS &&
          static_cast<double>(local.alloc_elements) * static_cast<double>(e_) <= budget;
      return all_ok(ok);
    };
    std::size_t lo = 0;
    std::size_t hi = static_cast<std::size_t>(std::sqrt(budget / static_cast<double>(e_) *
                                                        static_cast<double>(ranks_))) +
                     static_cast<std::size_t>(ranks_) + 1;
    while (fits(hi)) lo = hi, hi *= 2;
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      (fits(mid) ? lo : hi) = mid;
    }
    const bool any_capped = !all_ok(!capped);
    char note[320];
    if (lo == 0) {
      std::snprintf(note, sizeof note, "--fill %g: no square fits %.3g bytes per rank: skipped", f,
                    budget);
    } else {
      ipt_mpi_local local{};
      ipt_mpi_local_size_with_options(MPI_COMM_WORLD, lo, lo, &o, &local);
      const double used = static_cast<double>(local.alloc_elements * e_);
      const double memory = static_cast<double>(info_.global_mem);
      std::snprintf(note, sizeof note,
                    "--fill %g: %zu x %zu; rank 0's buffer %.3g GB, %.3f of its share of its "
                    "device (%.3g GB / %llu ranks), %.3f of the device%s",
                    f, lo, lo, used * 1e-9, used / (memory / static_cast<double>(info_.sharing)),
                    memory * 1e-9, info_.sharing, used / memory,
                    any_capped ? " (capped by one allocation, CL_DEVICE_MAX_MEM_ALLOC_SIZE)" : "");
    }
    notes.push_back(note);
    return lo;
  }

  // Each device's copy bandwidth, rank after rank so that ranks sharing a device do not
  // disturb each other, on the largest block of the run (1 MiB to 1 GiB, as the other
  // modes).
  void measure_copy(const std::vector<std::pair<Shape, std::string>>& shapes) {
    std::size_t largest = 0;
    for (const auto& [shape, origin] : shapes) {
      ipt_mpi_local local{};
      const ipt_mpi_options o = mpi_options(IPT_MPI_SCHEME_AUTO);
      if (ipt_mpi_local_size_with_options(MPI_COMM_WORLD, shape.first, shape.second, &o, &local) ==
          IPT_SUCCESS)
        largest = std::max(largest, local.local_rows * shape.second * e_);
    }
    copy_bytes_ = static_cast<std::size_t>(max_of(static_cast<double>(largest)));
    copy_bytes_ = support::copy_bytes_for(copy_bytes_);
    copy_bytes_ = std::min<std::size_t>(copy_bytes_, info_.max_alloc);
    for (int r = 0; r < ranks_; ++r) {
      if (r == rank_) info_.copy_gbs = support::measure_copy_bandwidth(session_, copy_bytes_).gbs;
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }

  void header(const std::vector<RankInfo>& all, const std::vector<std::string>& fill_notes) {
    std::set<std::pair<int, ull>> devices;
    std::set<int> nodes;
    for (const RankInfo& r : all) {
      if (devices.insert({r.node_leader, r.index}).second) copy_sum_ += r.copy_gbs;
      nodes.insert(r.node_leader);
      max_sharing_ = std::max<std::size_t>(max_sharing_, r.sharing);
    }
    devices_ = devices.size();
    std::printf(
        "ipt-bench mpi: %d ranks on %zu node(s), %zu device(s); libipt %s (commit %s); type %s "
        "(%zu-byte elements), flags %s, %d timed runs each after a warm-up\n",
        ranks_, nodes.size(), devices_, ipt_version_string(), IPT_BENCH_COMMIT,
        options_.type.c_str(), e_, flags_name(options_.flags).c_str(), options_.reps);
    for (std::size_t r = 0; r < all.size(); ++r) {
      const RankInfo& i = all[r];
      std::printf(
          "rank %zu (%s, local rank %d): device %llu of %llu, shared by %llu rank(s): %s (driver "
          "%s); memory %.1f GB, one allocation %.1f GB; copy %.1f GB/s\n",
          r, i.host, i.local_rank, i.index, i.devices, i.sharing, i.device, i.driver,
          static_cast<double>(i.global_mem) * 1e-9, static_cast<double>(i.max_alloc) * 1e-9,
          i.copy_gbs);
    }
    for (const auto& note : fill_notes) std::printf("%s\n", note.c_str());
    std::printf(
        "copy: clEnqueueCopyBuffer of %zu bytes between two device buffers, bytes read + "
        "written / median time of %d copies after a warm-up, each rank alone; summed over the "
        "%zu device(s): %.1f GB/s\n"
        "time: the slowest rank's (MPI_Wtime around the call, after a barrier), median of the "
        "timed runs; agg = 2 * rows * cols * e / t; rank = the largest block's 2 * local_rows * "
        "cols * e / t; %% copy: agg against the summed copy bandwidth; xchg: the busiest rank's "
        "exchange bytes (ipt_mpi_plan) / t\n"
        "a2a: MPI_Alltoallv of the same bytes (each rank's exchange bytes in P - 1 equal parts) "
        "between host buffers of up to %zu MiB, pinned (mapped CL_MEM_ALLOC_HOST_PTR; * where "
        "the driver gave none: pageable); rank = the busiest rank's bytes / t, agg = all ranks' "
        "bytes / t\n"
        "pad: the buffer's room past the block (alloc_elements), stage: the host staging, the "
        "largest of the ranks as %% of their block; every result checked on the device\n\n",
        copy_bytes_, support::kCopyRepetitions, devices_, copy_sum_, kAlltoallBuffer >> 20);
    std::printf("%-15s %3s %-17s %5s %9s %9s %9s %9s %9s %7s %9s %9s %9s %7s %7s\n", "shape", "P",
                "scheme", "rnds", "piece MiB", "model ms", "median ms", "agg GB/s", "rank GB/s",
                "% copy", "xchg GB/s", "a2a GB/s", "a2a agg", "pad %", "stage %");
    if (!options_.csv.empty()) {
      csv_.open(options_.csv);
      csv_ << "mode,library,scheme,planned_scheme,type,elem_size,rows,cols,ranks,devices,"
              "ranks_per_device,flags,origin,block_rows,block_cols,rounds,chunk_bytes,piece_bytes,"
              "staging_bytes,exchange_bytes,modelled_s,time_s,min_s,max_s,throughput_gbs,rank_gbs,"
              "copy_gbs,fraction_of_copy,exchange_gbs,alltoall_s,alltoall_rank_gbs,alltoall_gbs,"
              "alltoall_pinned,alloc_bytes,block_bytes,padding_bytes,padding_fraction,"
              "staging_fraction,verified\n";
    }
  }

  // The MPI all-to-all of the bytes each rank exchanges in the call (`exchange`, by rank),
  // each in P - 1 equal parts, one to each other rank; in rounds past the buffers' size.
  // Cached: the schemes of one shape usually exchange the same bytes.
  void alltoall(const std::vector<std::size_t>& exchange, Row& row) {
    const std::size_t P = static_cast<std::size_t>(ranks_);
    if (P < 2) return;
    std::vector<std::size_t> parts(P);
    for (std::size_t q = 0; q < P; ++q) parts[q] = exchange[q] / (P - 1);
    const std::size_t most = *std::max_element(parts.begin(), parts.end());
    if (most == 0) return;
    std::size_t sum = 0, busiest = 0;
    for (std::size_t q = 0; q < P; ++q) {
      sum += parts[q] * (P - 1);
      busiest = std::max(busiest, parts[q] * (P - 1));
    }
    const auto cached = alltoall_cache_.find(exchange);
    double seconds = 0;
    bool pinned = false;
    if (cached != alltoall_cache_.end()) {
      std::tie(seconds, pinned) = cached->second;
    } else {
      const std::size_t chunk = std::min(most, kAlltoallBuffer / P);
      HostBuffer send(session_, chunk * P), receive(session_, chunk * P);
      pinned = all_ok(send.pinned() && receive.pinned());
      const std::size_t rounds = (most + chunk - 1) / chunk;
      std::vector<int> send_counts(P), receive_counts(P), displacements(P);
      for (std::size_t q = 0; q < P; ++q) displacements[q] = static_cast<int>(q * chunk);
      const auto piece = [&](std::size_t part, std::size_t round) {
        const std::size_t done = round * chunk;
        return static_cast<int>(part > done ? std::min(chunk, part - done) : 0);
      };
      const auto pass = [&] {
        for (std::size_t t = 0; t < rounds; ++t) {
          for (std::size_t q = 0; q < P; ++q) {
            const bool self = q == static_cast<std::size_t>(rank_);
            send_counts[q] = self ? 0 : piece(parts[static_cast<std::size_t>(rank_)], t);
            receive_counts[q] = self ? 0 : piece(parts[q], t);
          }
          MPI_Alltoallv(send.data(), send_counts.data(), displacements.data(), MPI_BYTE,
                        receive.data(), receive_counts.data(), displacements.data(), MPI_BYTE,
                        MPI_COMM_WORLD);
        }
      };
      pass();  // warm-up
      std::vector<double> times;
      for (int r = 0; r < options_.reps; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = MPI_Wtime();
        pass();
        times.push_back(max_of(MPI_Wtime() - start));
      }
      seconds = support::stats_of(times).median;
      alltoall_cache_[exchange] = {seconds, pinned};
    }
    row.alltoall_s = seconds;
    row.alltoall_pinned = pinned;
    row.alltoall_rank_gbs = static_cast<double>(busiest) / seconds * 1e-9;
    row.alltoall_gbs = static_cast<double>(sum) / seconds * 1e-9;
  }

  // One failure, agreed: every rank returns the same row. `why` is printed by the ranks
  // that found it, once when all did.
  Row failed(Row row, const std::string& why, bool mine) {
    int found = mine ? 1 : 0, finders = 0;
    MPI_Allreduce(&found, &finders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (mine && (finders < ranks_ || rank_ == 0)) {
      const std::string who = finders < ranks_ ? "rank " + std::to_string(rank_) : "every rank";
      std::fprintf(stderr, "ipt-bench mpi: %s: %zu x %zu, %s: FAILED: %s\n", who.c_str(), row.rows,
                   row.cols, row.scheme.c_str(), why.c_str());
    }
    row.ok = false;
    return row;
  }

  Row measure(std::size_t M, std::size_t N, ipt_mpi_scheme scheme, std::uint64_t seed,
              const std::string& origin) {
    Row row;
    row.rows = M;
    row.cols = N;
    row.scheme = scheme_name(scheme);
    row.origin = origin;
    const ipt_mpi_options o = mpi_options(scheme);
    ipt_mpi_local local{};
    ipt_status status = ipt_mpi_local_size_with_options(MPI_COMM_WORLD, M, N, &o, &local);
    if (status == IPT_SUCCESS)
      status = ipt_mpi_plan(MPI_COMM_WORLD, M, N, e_, options_.flags, &o, &row.plan);
    if (!all_ok(status == IPT_SUCCESS))
      return failed(row, "the plan: " + mpi_failure_text(status), status != IPT_SUCCESS);
    row.planned = scheme_name(row.plan.scheme);
    row.alloc_bytes = local.alloc_elements * e_;
    row.block_bytes = std::max(local.local_rows * N, local.local_cols * M) * e_;
    const std::size_t padding = row.alloc_bytes - std::min(row.alloc_bytes, row.block_bytes);
    const bool fits = options_.beyond_max_alloc || row.alloc_bytes <= info_.max_alloc;
    if (!all_ok(fits))
      return failed(row,
                    "a buffer of " + std::to_string(row.alloc_bytes) +
                        " bytes is more than one allocation of the device",
                    !fits);
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session_.context(), CL_MEM_READ_WRITE,
                                   std::max(row.alloc_bytes, e_), nullptr, &code);
    if (!all_ok(code == CL_SUCCESS))
      return failed(row, "clCreateBuffer of the block: OpenCL error " + std::to_string(code),
                    code != CL_SUCCESS);
    const Layout in = input_layout(N, local, options_.flags);
    const Layout out = output_layout(M, N, local, options_.flags);
    std::vector<double> times;
    std::string why;
    bool mine = false;  // this rank found the failure
    for (int call = 0; call <= options_.reps && why.empty(); ++call) {
      // The input, written again before each call, outside the timing.
      std::string error;
      try {
        pattern_.fill(buffer, in, e_, seed);
      } catch (const std::exception& x) {
        error = x.what();
      }
      if (!all_ok(error.empty())) {
        why = "writing the input: " + error;
        mine = !error.empty();
        break;
      }
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      status = ipt_mpi_transpose_with_options(MPI_COMM_WORLD, session_.queue(), buffer, 0, M, N, e_,
                                              local.local_rows, local.local_row_start,
                                              options_.flags, &o);
      const double t = max_of(MPI_Wtime() - start);
      if (!all_ok(status == IPT_SUCCESS)) {
        why = mpi_failure_text(status);
        mine = status != IPT_SUCCESS;
        break;
      }
      if (call > 0) times.push_back(t);
      try {
        error = pattern_.check(buffer, out, e_, seed);
      } catch (const std::exception& x) {
        error = std::string("checking: ") + x.what();
      }
      if (!all_ok(error.empty())) {
        why = "run " + std::to_string(call) + " (0: the warm-up): " + error;
        mine = !error.empty();
      }
    }
    clReleaseMemObject(buffer);
    if (!why.empty()) return failed(row, why, mine);

    const auto stats = support::stats_of(times);
    row.time_s = stats.median;
    row.min_s = stats.min;
    row.max_s = stats.max;
    const double t = row.time_s;
    row.gbs =
        2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(e_) / t * 1e-9;
    const double block = static_cast<double>(local.local_rows * N * e_);
    row.rank_gbs = max_of(2.0 * block / t * 1e-9);
    const auto exchange = gather_all(row.plan.exchange_bytes);
    row.exchange_max = *std::max_element(exchange.begin(), exchange.end());
    row.exchange_gbs = static_cast<double>(row.exchange_max) / t * 1e-9;
    row.padding_bytes = static_cast<std::size_t>(max_of(static_cast<double>(padding)));
    const double blocks = static_cast<double>(row.block_bytes);
    row.padding_fraction = max_of(blocks > 0 ? static_cast<double>(padding) / blocks : 0.0);
    row.staging_fraction =
        max_of(blocks > 0 ? static_cast<double>(row.plan.staging_bytes) / blocks : 0.0);
    row.alloc_bytes = static_cast<std::size_t>(max_of(static_cast<double>(row.alloc_bytes)));
    row.block_bytes = static_cast<std::size_t>(max_of(blocks));
    alltoall(exchange, row);
    row.ok = true;
    return row;
  }

  void record(const Row& r) {
    const std::string shape = std::to_string(r.rows) + "x" + std::to_string(r.cols);
    const std::string scheme =
        r.scheme == "auto" && !r.planned.empty() ? "auto:" + r.planned : r.scheme;
    if (!r.ok) {
      std::printf("%-15s %3d %-17s FAILED (see the ranks' messages)\n", shape.c_str(), ranks_,
                  scheme.c_str());
    } else {
      char a2a[32] = "-", a2a_agg[32] = "-";
      if (r.alltoall_s > 0) {
        const char* pageable = r.alltoall_pinned ? "" : "*";
        std::snprintf(a2a, sizeof a2a, "%.1f%s", r.alltoall_rank_gbs, pageable);
        std::snprintf(a2a_agg, sizeof a2a_agg, "%.1f%s", r.alltoall_gbs, pageable);
      }
      std::printf(
          "%-15s %3d %-17s %5zu %9.2f %9.3f %9.3f %9.1f %9.1f %6.1f%% %9.1f %9s %9s %7.3f %7.3f\n",
          shape.c_str(), ranks_, scheme.c_str(), r.plan.rounds,
          static_cast<double>(r.plan.piece_bytes) / (1 << 20), r.plan.modelled_seconds * 1e3,
          r.time_s * 1e3, r.gbs, r.rank_gbs, copy_sum_ > 0 ? 100 * r.gbs / copy_sum_ : 0.0,
          r.exchange_gbs, a2a, a2a_agg, 100 * r.padding_fraction, 100 * r.staging_fraction);
    }
    std::fflush(stdout);
    if (csv_) {
      csv_ << "mpi,libipt_mpi," << r.scheme << ',' << r.planned << ',' << options_.type << ',' << e_
           << ',' << r.rows << ',' << r.cols << ',' << ranks_ << ',' << devices_ << ','
           << max_sharing_ << ',' << flags_name(options_.flags) << ',' << r.origin << ','
           << r.plan.block_rows << ',' << r.plan.block_cols << ',' << r.plan.rounds << ','
           << r.plan.chunk_bytes << ',' << r.plan.piece_bytes << ',' << r.plan.staging_bytes << ','
           << r.exchange_max << ',' << r.plan.modelled_seconds << ',' << r.time_s << ',' << r.min_s
           << ',' << r.max_s << ',' << (r.ok ? r.gbs : 0.0) << ',' << (r.ok ? r.rank_gbs : 0.0)
           << ',' << copy_sum_ << ',' << (r.ok && copy_sum_ > 0 ? r.gbs / copy_sum_ : 0.0) << ','
           << r.exchange_gbs << ',' << r.alltoall_s << ',' << r.alltoall_rank_gbs << ','
           << r.alltoall_gbs << ',' << (r.alltoall_pinned ? 1 : 0) << ',' << r.alloc_bytes << ','
           << r.block_bytes << ',' << r.padding_bytes << ',' << r.padding_fraction << ','
           << r.staging_fraction << ',' << (r.ok ? 1 : 0) << '\n';
      csv_.flush();
    }
    std::ostringstream j;
    j << "    {\"rows\": " << r.rows << ", \"cols\": " << r.cols
      << ", \"scheme\": " << json_string(r.scheme)
      << ", \"planned_scheme\": " << json_string(r.planned)
      << ", \"origin\": " << json_string(r.origin)
      << ", \"verified\": " << (r.ok ? "true" : "false");
    if (r.ok)
      j << ", \"rounds\": " << r.plan.rounds << ", \"piece_bytes\": " << r.plan.piece_bytes
        << ", \"staging_bytes\": " << r.plan.staging_bytes
        << ", \"exchange_bytes\": " << r.exchange_max
        << ", \"modelled_s\": " << r.plan.modelled_seconds << ", \"time_s\": " << r.time_s
        << ", \"throughput_gbs\": " << r.gbs << ", \"rank_gbs\": " << r.rank_gbs
        << ", \"fraction_of_copy\": " << (copy_sum_ > 0 ? r.gbs / copy_sum_ : 0.0)
        << ", \"exchange_gbs\": " << r.exchange_gbs << ", \"alltoall_s\": " << r.alltoall_s
        << ", \"alltoall_rank_gbs\": " << r.alltoall_rank_gbs
        << ", \"alltoall_gbs\": " << r.alltoall_gbs
        << ", \"alltoall_pinned\": " << (r.alltoall_pinned ? "true" : "false")
        << ", \"alloc_bytes\": " << r.alloc_bytes
        << ", \"padding_fraction\": " << r.padding_fraction
        << ", \"staging_fraction\": " << r.staging_fraction
        << ", \"plan\": " << json_string(r.plan.description);
    j << "}";
    json_rows_.push_back(j.str());
  }

  void finish_json(const std::vector<RankInfo>& all) const {
    if (options_.json.empty()) return;
    std::ofstream json(options_.json);
    json << "{\n  \"tool\": \"ipt-bench\",\n  \"mode\": \"mpi\",\n  \"type\": "
         << json_string(options_.type) << ",\n  \"elem_size\": " << e_
         << ",\n  \"libipt\": " << json_string(ipt_version_string())
         << ",\n  \"commit\": " << json_string(IPT_BENCH_COMMIT) << ",\n  \"ranks\": " << ranks_
         << ",\n  \"devices\": " << devices_ << ",\n  \"ranks_per_device\": " << max_sharing_
         << ",\n  \"flags\": " << json_string(flags_name(options_.flags))
         << ",\n  \"repetitions\": " << options_.reps << ",\n  \"copy_bytes\": " << copy_bytes_
         << ",\n  \"copy_gbs\": " << copy_sum_ << ",\n  \"rank_devices\": [";
    for (std::size_t r = 0; r < all.size(); ++r)
      json << (r > 0 ? ",\n" : "\n") << "    {\"rank\": " << r
           << ", \"host\": " << json_string(all[r].host) << ", \"device_index\": " << all[r].index
           << ", \"device\": " << json_string(all[r].device)
           << ", \"driver\": " << json_string(all[r].driver)
           << ", \"ranks_on_device\": " << all[r].sharing
           << ", \"global_mem_bytes\": " << all[r].global_mem
           << ", \"max_alloc_bytes\": " << all[r].max_alloc << ", \"copy_gbs\": " << all[r].copy_gbs
           << "}";
    json << "\n  ],\n  \"results\": [";
    for (std::size_t i = 0; i < json_rows_.size(); ++i)
      json << (i > 0 ? ",\n" : "\n") << json_rows_[i];
    json << "\n  ]\n}\n";
  }

  const Options& options_;
  const support::Session& session_;
  BlockPattern pattern_;
  int rank_, ranks_;
  std::size_t e_;
  RankInfo info_;
  std::size_t copy_bytes_ = 0, devices_ = 1, max_sharing_ = 1;
  double copy_sum_ = 0;
  std::map<std::vector<std::size_t>, std::pair<double, bool>> alltoall_cache_;
  std::ofstream csv_;
  std::vector<std::string> json_rows_;
};

// The rank's device: the local rank's (its rank among the ranks of its node) modulo the
// devices of the selected platform (IPT_DEVICE).
int bench(const Options& options) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const support::RankDevice mine = support::rank_device(MPI_COMM_WORLD);
  const support::Session session(mine.device);
  MpiBench bench(options, session, rank, ranks, mine.leader, mine.local_rank, mine.index,
                 mine.devices, mine.sharing);
  return bench.run();
}

// The rank mpirun gives this process, before MPI_Init: usage errors are printed once.
bool first_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    const char* value = std::getenv(name);
    if (value != nullptr) return std::string(value) == "0";
  }
  return true;
}

}  // namespace

int run_mpi(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Options options;
  try {
    options = parse(argc, argv);
  } catch (const UsageError& e) {
    if (first_rank()) std::fprintf(stderr, "ipt-bench mpi: %s\n%s", e.what(), kUsage);
    return 2;
  } catch (const HelpAsked&) {
    if (first_rank()) std::printf("%s", kUsage);
    return 0;
  }
  MPI_Init(&argc, &argv);
  int result = 0;
  try {
    result = bench(options);
  } catch (const std::exception& e) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "ipt-bench mpi: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return result;
}

}  // namespace ipt::bench

int main(int argc, char** argv) { return ipt::bench::run_mpi(argc, argv); }
