// SPDX-License-Identifier: Apache-2.0
// Benchmark driver for a peer comparison: times Catanzaro et al.'s CUDA in-place transposition
// library (github.com/bryancatanzaro/inplace, GPL-2) on the shapes our own ipt-bench used.
//
// This file is our own code.  It only calls the peer's public entry points declared in
// inplace/transpose.h; the peer's sources are never part of this project: run_catanzaro.sh
// copies them from a checkout the user names into a build directory and links them there.
//
//   catanzaro-driver --shapes FILE --type f32|f64 --mode NAME --csv OUT [--reps N]
//                    [--no-verify] [--seed S] [--variant auto|c2r|r2c] [--max-elements N]
//
// The CSV has the columns of our comparison tables, so that its rows can be concatenated with
// those of the other libraries; the columns that describe our own planner (sequence, m, n,
// padded_rows, padded_cols) and the parameter column stay empty.

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "transpose.h"  // the peer's public header, from the copy of its inplace/ directory

namespace {

constexpr char kUsage[] =
    "usage: catanzaro-driver --shapes FILE --type f32|f64 --mode NAME --csv OUT [--reps N]\n"
    "                        [--no-verify] [--seed S] [--variant auto|c2r|r2c]\n"
    "                        [--max-elements N]\n"
    "  FILE: one shape per line, \"ROWS COLS\"; lines starting with # are ignored.\n"
    "  Each shape is a row-major ROWS x COLS matrix transposed in place into COLS x ROWS.\n"
    "  --variant auto calls inplace::transpose (the library picks C2R, R2C or its skinny\n"
    "  path); c2r and r2c call inplace::c2r::transpose and inplace::r2c::transpose.\n"
    "  --max-elements (default 2^31-1) skips larger matrices: the library indexes with int.\n";

[[noreturn]] void Usage(const std::string& message) {
  std::fprintf(stderr, "catanzaro-driver: %s\n%s", message.c_str(), kUsage);
  std::exit(2);
}

// Strict decimal parsing: istream >> unsigned would silently wrap "-5" around.
bool ParseUnsigned(const std::string& text, std::uint64_t* value) {
  if (text.empty() || text.size() > 19) return false;
  std::uint64_t result = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    result = result * 10 + static_cast<std::uint64_t>(c - '0');
  }
  *value = result;
  return true;
}

struct Options {
  std::string shapes_path;
  std::string type;
  std::string mode;
  std::string csv_path;
  std::string variant = "auto";
  int reps = 3;
  bool verify = true;
  std::uint64_t seed = 1;
  std::uint64_t max_elements = INT_MAX;
};

Options ParseOptions(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(arg + " needs a value");
      return argv[++i];
    };
    auto number = [&]() -> std::uint64_t {
      const std::string text = value();
      std::uint64_t n = 0;
      if (!ParseUnsigned(text, &n)) Usage("bad number '" + text + "' for " + arg);
      return n;
    };
    if (arg == "--shapes") {
      options.shapes_path = value();
    } else if (arg == "--type") {
      options.type = value();
    } else if (arg == "--mode") {
      options.mode = value();
    } else if (arg == "--csv") {
      options.csv_path = value();
    } else if (arg == "--reps") {
      const std::uint64_t reps = number();
      if (reps < 1 || reps > 100000) Usage("--reps must be between 1 and 100000");
      options.reps = static_cast<int>(reps);
    } else if (arg == "--no-verify") {
      options.verify = false;
    } else if (arg == "--seed") {
      options.seed = number();
    } else if (arg == "--variant") {
      options.variant = value();
    } else if (arg == "--max-elements") {
      options.max_elements = number();
    } else if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else {
      Usage("unknown option " + arg);
    }
  }
  if (options.shapes_path.empty()) Usage("--shapes is required");
  if (options.type != "f32" && options.type != "f64") Usage("--type must be f32 or f64");
  if (options.mode.empty()) Usage("--mode is required");
  if (options.csv_path.empty()) Usage("--csv is required");
  if (options.variant != "auto" && options.variant != "c2r" && options.variant != "r2c")
    Usage("--variant must be auto, c2r or r2c");
  return options;
}

struct Shape {
  std::uint64_t rows;
  std::uint64_t cols;
};

std::vector<Shape> ReadShapes(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read shapes file " + path);
  std::vector<Shape> shapes;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream words(line);
    std::string rows, cols, extra;
    if (!(words >> rows) || rows[0] == '#') continue;  // blank line or comment
    Shape shape{};
    if (!(words >> cols) || (words >> extra) || !ParseUnsigned(rows, &shape.rows) ||
        !ParseUnsigned(cols, &shape.cols))
      throw std::runtime_error(path + ":" + std::to_string(number) +
                               ": expected \"ROWS COLS\", got \"" + line + "\"");
    shapes.push_back(shape);
  }
  return shapes;
}

// Same definition as our ipt-bench (linear interpolation between the closest ranks), so that
// the summaries of both tools can be compared directly.
double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const auto above = std::min(below + 1, values.size() - 1);
  const double weight = position - static_cast<double>(below);
  return values[below] * (1 - weight) + values[above] * weight;
}

// Fields are ours except the mode name, which the user chooses: quote it if it needs it.
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

std::string Number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void Check(cudaError_t code, const char* what) {
  if (code != cudaSuccess)
    throw CudaError(std::string(what) + ": " + cudaGetErrorName(code) + " (" +
                    cudaGetErrorString(code) + ")");
}

// RAII holders, so that every exit from a shape (skip, CUDA error, library exception) frees
// the device memory before the next shape asks for its own.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (pointer_ != nullptr) cudaFree(pointer_);
  }
  cudaError_t Allocate(std::size_t bytes) { return cudaMalloc(&pointer_, bytes); }
  void* get() const { return pointer_; }

 private:
  void* pointer_ = nullptr;
};

class EventPair {
 public:
  EventPair() {
    Check(cudaEventCreate(&start_), "cudaEventCreate");
    const cudaError_t code = cudaEventCreate(&stop_);
    if (code != cudaSuccess) cudaEventDestroy(start_);
    Check(code, "cudaEventCreate");
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  cudaEvent_t start() const { return start_; }
  cudaEvent_t stop() const { return stop_; }
  double Seconds() const {
    float ms = 0;
    Check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return 1e-3 * static_cast<double>(ms);
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// Filling and checking matrices of up to 2^31 elements on one core takes tens of seconds per
// shape; the host side would then dominate the run, so both are split over the host's cores.
template <typename Body>
void ParallelFor(std::uint64_t count, Body body) {
  const std::uint64_t workers = std::min<std::uint64_t>(
      std::max(1u, std::thread::hardware_concurrency()), std::max<std::uint64_t>(1, count));
  if (workers == 1 || count < 4096) {
    body(0, count);
    return;
  }
  std::vector<std::thread> threads;
  const std::uint64_t chunk = (count + workers - 1) / workers;
  for (std::uint64_t begin = 0; begin < count; begin += chunk)
    threads.emplace_back(body, begin, std::min(count, begin + chunk));
  for (auto& thread : threads) thread.join();
}

std::uint64_t SplitMix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform values in [-1, 1) with 24 (f32) or 53 (f64) random bits, so that a misplaced element
// is unlikely to land on an equal value.  A counter-based generator keeps the fill parallel
// and the data reproducible from (seed, shape index) alone.
template <typename T>
T RandomValue(std::uint64_t bits);
template <>
float RandomValue<float>(std::uint64_t bits) {
  return static_cast<float>(bits >> 40) * 0x1.0p-23f - 1.0f;
}
template <>
double RandomValue<double>(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0;
}

template <typename T>
void Fill(std::vector<T>* data, std::uint64_t key) {
  T* out = data->data();
  ParallelFor(data->size(), [out, key](std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t i = begin; i < end; ++i) out[i] = RandomValue<T>(SplitMix64(key ^ i));
  });
}

// Checks out == transpose(in) bit for bit (memcmp, so that -0.0 against 0.0 counts too).
// Work is split by blocks of output rows, and each block walks the input in tiles so that the
// strided reads stay in cache.  Returns the number of differing elements; *first gets the
// output index of the first one found.
template <typename T>
std::uint64_t CountMismatches(const std::vector<T>& in, const std::vector<T>& out,
                              std::uint64_t rows, std::uint64_t cols, std::uint64_t* first) {
  constexpr std::uint64_t kTile = 64;
  const std::uint64_t blocks = (cols + kTile - 1) / kTile;
  std::vector<std::uint64_t> counts(blocks, 0), firsts(blocks, UINT64_MAX);
  ParallelFor(blocks, [&](std::uint64_t block_begin, std::uint64_t block_end) {
    for (std::uint64_t block = block_begin; block < block_end; ++block) {
      const std::uint64_t c_end = std::min(cols, (block + 1) * kTile);
      for (std::uint64_t r0 = 0; r0 < rows; r0 += kTile) {
        const std::uint64_t r_end = std::min(rows, r0 + kTile);
        for (std::uint64_t c = block * kTile; c < c_end; ++c) {
          for (std::uint64_t r = r0; r < r_end; ++r) {
            const std::uint64_t at = c * rows + r;
            if (std::memcmp(&out[at], &in[r * cols + c], sizeof(T)) != 0) {
              if (counts[block]++ == 0) firsts[block] = at;
            }
          }
        }
      }
    }
  });
  std::uint64_t total = 0;
  *first = UINT64_MAX;
  for (std::uint64_t block = 0; block < blocks; ++block) {
    total += counts[block];
    *first = std::min(*first, firsts[block]);
  }
  return total;
}

// Read + write bandwidth of a device-to-device cudaMemcpy, the same yardstick as ipt-bench's
// clEnqueueCopyBuffer: one warm-up copy, then the median of `reps` copies.
double CopyBandwidthGbs(std::size_t bytes, int reps) {
  DeviceBuffer source, target;
  Check(source.Allocate(bytes), "cudaMalloc (copy source)");
  Check(target.Allocate(bytes), "cudaMalloc (copy target)");
  Check(cudaMemset(source.get(), 0x5a, bytes), "cudaMemset");
  EventPair events;
  std::vector<double> seconds;
  for (int i = 0; i <= reps; ++i) {
    Check(cudaEventRecord(events.start(), 0), "cudaEventRecord");
    Check(cudaMemcpy(target.get(), source.get(), bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
    Check(cudaEventRecord(events.stop(), 0), "cudaEventRecord");
    Check(cudaEventSynchronize(events.stop()), "cudaEventSynchronize");
    if (i > 0) seconds.push_back(events.Seconds());
  }
  return 2.0 * static_cast<double>(bytes) / Quantile(seconds, 0.5) * 1e-9;
}

enum class Outcome { kTimed, kSkipped, kFailed, kContextLost };

struct ShapeResult {
  Outcome outcome = Outcome::kFailed;
  std::string why;  // for kSkipped, kFailed and kContextLost
  double time_s = 0;
  double wall_s = 0;
  bool verified = false;
};

template <typename T>
void CallLibrary(const std::string& variant, T* data, int rows, int cols) {
  // row_major = true: `data` holds a row-major rows x cols matrix and afterwards the row-major
  // cols x rows transpose.  The library needs no initialisation call; it reads the properties
  // of the current device in a static initialiser, i.e. of device 0 of CUDA_VISIBLE_DEVICES.
  if (variant == "c2r") {
    inplace::c2r::transpose(true, data, rows, cols);
  } else if (variant == "r2c") {
    inplace::r2c::transpose(true, data, rows, cols);
  } else {
    inplace::transpose(true, data, rows, cols);
  }
}

template <typename T>
ShapeResult RunShape(const Options& options, const Shape& shape, std::uint64_t key) {
  ShapeResult result;
  const std::uint64_t rows = shape.rows, cols = shape.cols;
  auto skip = [&](const std::string& why) {
    result.outcome = Outcome::kSkipped;
    result.why = why;
    return result;
  };
  if (rows == 0 || cols == 0) return skip("empty matrix");
  if (rows > INT_MAX || cols > INT_MAX) return skip("a side exceeds INT_MAX (the API takes int)");
  if (rows > options.max_elements / cols)
    return skip("rows*cols exceeds --max-elements " + std::to_string(options.max_elements) +
                " (the library computes element indices in 32-bit int)");
  const std::uint64_t count = rows * cols;
  const std::size_t bytes = count * sizeof(T);

  std::vector<T> original, result_data;
  try {
    original.resize(count);
    if (options.verify) result_data.resize(count);
  } catch (const std::bad_alloc&) {
    return skip("host memory for " + std::to_string(bytes) + " bytes is not available");
  }
  Fill(&original, key);

  DeviceBuffer buffer;
  const cudaError_t allocated = buffer.Allocate(bytes);
  if (allocated != cudaSuccess) {
    cudaGetLastError();  // an out-of-memory error is not sticky; clear it for the next shape
    return skip("cudaMalloc of " + std::to_string(bytes) + " bytes failed (" +
                cudaGetErrorString(allocated) + ")");
  }
  T* data = static_cast<T*>(buffer.get());
  const int m = static_cast<int>(rows), n = static_cast<int>(cols);
  // Every call leaves the matrix transposed; uploading the original again before each call
  // (untimed) makes every timed call the same rows x cols transpose that the other libraries
  // are timed on, rather than alternating with the cols x rows one.
  auto upload = [&] {
    Check(cudaMemcpy(data, original.data(), bytes, cudaMemcpyHostToDevice), "upload");
    Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  };

  try {
    EventPair events;
    upload();
    CallLibrary(options.variant, data, m, n);  // warm-up: lazy module loading, first-use costs
    Check(cudaDeviceSynchronize(), "warm-up call");
    Check(cudaGetLastError(), "warm-up call");

    std::vector<double> seconds, wall;
    for (int rep = 0; rep < options.reps; ++rep) {
      upload();
      // The call allocates and frees its own scratch memory and runs host code between its
      // kernels, so it is timed as a whole, as its authors time it: events on the default
      // stream around the call, plus the host wall clock over the same span.
      const auto wall_start = std::chrono::steady_clock::now();
      Check(cudaEventRecord(events.start(), 0), "cudaEventRecord");
      CallLibrary(options.variant, data, m, n);
      Check(cudaEventRecord(events.stop(), 0), "cudaEventRecord");
      Check(cudaEventSynchronize(events.stop()), "transpose call");
      Check(cudaDeviceSynchronize(), "transpose call");
      const auto wall_end = std::chrono::steady_clock::now();
      Check(cudaGetLastError(), "transpose call");
      seconds.push_back(events.Seconds());
      wall.push_back(std::chrono::duration<double>(wall_end - wall_start).count());
    }
    result.time_s = Quantile(seconds, 0.5);
    result.wall_s = Quantile(wall, 0.5);

    if (options.verify) {
      Check(cudaMemcpy(result_data.data(), data, bytes, cudaMemcpyDeviceToHost), "download");
      std::uint64_t first = 0;
      const std::uint64_t bad = CountMismatches(original, result_data, rows, cols, &first);
      result.verified = bad == 0;
      if (bad != 0)
        std::fprintf(stderr,
                     "  %llux%llu VERIFICATION FAILED: %llu of %llu elements differ, first at "
                     "output (%llu, %llu)\n",
                     static_cast<unsigned long long>(rows), static_cast<unsigned long long>(cols),
                     static_cast<unsigned long long>(bad), static_cast<unsigned long long>(count),
                     static_cast<unsigned long long>(first / rows),
                     static_cast<unsigned long long>(first % rows));
    }
    result.outcome = Outcome::kTimed;
  } catch (const std::exception& e) {
    // CudaError from our checks, or the library's own exceptions (it throws
    // thrust::system_error after a failed launch and std::invalid_argument on bad input).
    result.why = e.what();
    cudaGetLastError();
    // Errors such as an illegal address are sticky: the context stays unusable and every later
    // shape would fail too, so say so rather than printing a failure per shape.
    result.outcome =
        cudaDeviceSynchronize() == cudaSuccess ? Outcome::kFailed : Outcome::kContextLost;
    cudaGetLastError();
  }
  return result;
}

template <typename T>
int Run(const Options& options) {
  const std::vector<Shape> shapes = ReadShapes(options.shapes_path);

  int device = 0;
  Check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp properties{};
  Check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");

  // The yardstick copies as many bytes as the largest matrix that will be tried, capped at
  // 1 GiB (past the size where the copy bandwidth stops growing), as ipt-bench does.
  std::size_t copy_bytes = 0;
  for (const Shape& shape : shapes) {
    if (shape.rows == 0 || shape.cols == 0 || shape.rows > INT_MAX || shape.cols > INT_MAX ||
        shape.rows > options.max_elements / shape.cols)
      continue;
    copy_bytes = std::max<std::size_t>(copy_bytes, shape.rows * shape.cols * sizeof(T));
  }
  copy_bytes = std::min<std::size_t>(copy_bytes, std::size_t{1} << 30);
  const double copy_gbs = copy_bytes > 0 ? CopyBandwidthGbs(copy_bytes, 10) : 0.0;
  std::fprintf(stderr,
               "device %d: %s (sm_%d%d); copy bandwidth (cudaMemcpy device to device of %zu "
               "bytes, read + write): %.1f GB/s\n",
               device, properties.name, properties.major, properties.minor, copy_bytes, copy_gbs);

  std::ofstream csv(options.csv_path);
  if (!csv) throw std::runtime_error("cannot write " + options.csv_path);
  csv << "mode,library,variant,param,type,elem_size,rows,cols,sequence,m,n,padded_rows,"
         "padded_cols,time_s,wall_s,throughput_gbs,copy_gbs,fraction_of_copy,memory_bytes,"
         "verified,extra_bytes\n";
  csv.flush();

  std::vector<double> throughputs, fractions;
  int skipped = 0, failed = 0, mismatched = 0;
  bool context_lost = false;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const Shape& shape = shapes[i];
    const std::uint64_t key = SplitMix64(options.seed) ^ SplitMix64(0x5eed0000ull + i);
    const ShapeResult r = RunShape<T>(options, shape, key);
    if (r.outcome == Outcome::kSkipped) {
      ++skipped;
      std::fprintf(stderr, "[%zu/%zu] %llux%llu skipped: %s\n", i + 1, shapes.size(),
                   static_cast<unsigned long long>(shape.rows),
                   static_cast<unsigned long long>(shape.cols), r.why.c_str());
      continue;
    }
    if (r.outcome != Outcome::kTimed) {
      ++failed;
      std::fprintf(stderr, "[%zu/%zu] %llux%llu FAILED: %s\n", i + 1, shapes.size(),
                   static_cast<unsigned long long>(shape.rows),
                   static_cast<unsigned long long>(shape.cols), r.why.c_str());
      if (r.outcome == Outcome::kContextLost) {
        std::fprintf(stderr,
                     "the CUDA context is unusable after this error; the remaining %zu shapes "
                     "are not run\n",
                     shapes.size() - i - 1);
        context_lost = true;
        break;
      }
      continue;
    }
    if (options.verify && !r.verified) ++mismatched;
    // memory_bytes counts only the matrix: the library allocates its scratch memory itself
    // (cudaMalloc/cudaFree inside each call), which a caller cannot observe.
    const std::uint64_t bytes = shape.rows * shape.cols * sizeof(T);
    const double gbs = r.time_s > 0 ? 2.0 * static_cast<double>(bytes) / r.time_s * 1e-9 : 0.0;
    const double fraction = copy_gbs > 0 ? gbs / copy_gbs : 0.0;
    throughputs.push_back(gbs);
    fractions.push_back(fraction);
    csv << CsvField(options.mode) << ",catanzaro," << options.variant << ",," << options.type << ','
        << sizeof(T) << ',' << shape.rows << ',' << shape.cols << ",,,,,," << Number(r.time_s)
        << ',' << Number(r.wall_s) << ',' << Number(gbs) << ',' << Number(copy_gbs) << ','
        << Number(fraction) << ',' << bytes << ',' << (r.verified ? 1 : 0)
        << ",\n";  // extra_bytes unknown: the library's own allocations
    csv.flush();  // keep what was measured if a later shape brings the process down
    std::fprintf(stderr, "[%zu/%zu] %llux%llu %s: %.3f ms, %.1f GB/s (%.1f%% of copy)%s\n", i + 1,
                 shapes.size(), static_cast<unsigned long long>(shape.rows),
                 static_cast<unsigned long long>(shape.cols), options.type.c_str(), r.time_s * 1e3,
                 gbs, 100.0 * fraction,
                 !options.verify ? "" : (r.verified ? " verified" : " MISMATCH"));
  }
  if (!csv) throw std::runtime_error("error writing " + options.csv_path);

  std::printf("catanzaro %s %s, mode %s: %zu shapes timed, %d skipped, %d failed",
              options.variant.c_str(), options.type.c_str(), options.mode.c_str(),
              throughputs.size(), skipped, failed);
  if (options.verify) std::printf(", %d wrong results", mismatched);
  std::printf("\n");
  if (!throughputs.empty()) {
    std::printf(
        "throughput GB/s: median %.1f, p10 %.1f, p90 %.1f, min %.1f, max %.1f; median %.1f%% of "
        "copy (%.1f GB/s)\n",
        Quantile(throughputs, 0.5), Quantile(throughputs, 0.1), Quantile(throughputs, 0.9),
        Quantile(throughputs, 0.0), Quantile(throughputs, 1.0), 100.0 * Quantile(fractions, 0.5),
        copy_gbs);
  }
  std::printf("CSV: %s\n", options.csv_path.c_str());
  return (failed == 0 && mismatched == 0 && !context_lost) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseOptions(argc, argv);
  try {
    return options.type == "f32" ? Run<float>(options) : Run<double>(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "catanzaro-driver: %s\n", e.what());
    return 1;
  }
}
