// SPDX-License-Identifier: Apache-2.0
#include "baselines.hpp"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "support/host_reference.hpp"
#include "support/measure.hpp"
#include "support/random_data.hpp"

#ifdef IPT_BENCH_HAVE_CLBLAST
#include <clblast_c.h>
#endif

namespace ipt::bench {
namespace {

// A 32 x 32 tile through local memory (one padding column against bank conflicts),
// 32 x 8 work-items each moving 4 elements: the textbook out-of-place transpose.
const char* kOopSource = R"CLC(
__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void oop_transpose(__global const T *in, __global T *out, ulong rows, ulong cols) {
  __local T tile[32][33];
  const ulong bx = get_group_id(0) * 32, by = get_group_id(1) * 32;
  const uint tx = get_local_id(0), ty = get_local_id(1);
  for (uint k = 0; k < 32; k += 8) {
    const ulong r = by + ty + k, c = bx + tx;
    if (r < rows && c < cols) tile[ty + k][tx] = in[r * cols + c];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 0; k < 32; k += 8) {
    const ulong r = bx + ty + k, c = by + tx;  // row r of the cols x rows result
    if (r < cols && c < rows) out[r * rows + c] = tile[tx][ty + k];
  }
}
)CLC";

const char* type_for(std::size_t elem_size) {
  switch (elem_size) {
    case 1:
      return "uchar";
    case 2:
      return "ushort";
    case 4:
      return "uint";
    case 8:
      return "ulong";
    default:
      return "ulong2";
  }
}

// Programs of the oop kernel, built once per (context, element size).
cl_kernel oop_kernel(const support::Session& session, std::size_t elem_size) {
  static std::mutex mutex;
  static std::map<std::pair<cl_context, std::size_t>, cl_kernel> kernels;
  std::lock_guard<std::mutex> lock(mutex);
  auto& kernel = kernels[{session.context(), elem_size}];
  if (kernel != nullptr) return kernel;
  cl_int code = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(session.context(), 1, &kOopSource, nullptr, &code);
  support::check(code, "clCreateProgramWithSource");
  const std::string options = std::string("-DT=") + type_for(elem_size);
  cl_device_id device = session.device();
  support::check(clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr),
                 "clBuildProgram(oop_transpose)");
  kernel = clCreateKernel(program, "oop_transpose", &code);
  support::check(code, "clCreateKernel");
  clReleaseProgram(program);
  return kernel;
}

using Launch = std::function<cl_int(cl_mem in, cl_mem out, cl_event* event)>;

BaselineResult measure(const support::Session& session, const std::string& name, std::size_t rows,
                       std::size_t cols, std::size_t elem_size, int repetitions, bool verify,
                       std::uint64_t seed, support::DevicePattern* pattern, const Launch& launch) {
  BaselineResult result;
  result.library = name;
  const std::size_t bytes = rows * cols * elem_size;
  result.memory_bytes = 2 * bytes;
  auto data =
      pattern != nullptr ? std::vector<unsigned char>{} : support::random_bytes(bytes, seed);
  // CLBlast scales by alpha = 1: NaNs could lose their payload and denormals be flushed,
  // so the data are normal, finite numbers (exponent bits 0b01...).
  if (pattern == nullptr && (elem_size == 4 || elem_size == 8)) {
    for (std::size_t i = 0; i < bytes; i += elem_size) {
      unsigned char& top = data[i + elem_size - 1];  // little-endian: sign and exponent
      top = static_cast<unsigned char>((top & 0x80u) | 0x20u | (top & 0x1Fu));
    }
  }
  // Neighbours differ (equal 1-byte ones would hide a misplaced element); only the first,
  // lowest byte changes, so finite numbers stay finite.
  if (pattern == nullptr) support::separate_neighbours(data.data(), rows * cols, elem_size, cols);
  cl_int code = CL_SUCCESS;
  cl_mem in = clCreateBuffer(session.context(),
                             CL_MEM_READ_WRITE | (pattern != nullptr ? 0 : CL_MEM_COPY_HOST_PTR),
                             bytes, pattern != nullptr ? nullptr : data.data(), &code);
  if (code != CL_SUCCESS) {
    result.why = "out of device memory";
    return result;
  }
  cl_mem out = clCreateBuffer(session.context(), CL_MEM_READ_WRITE, bytes, nullptr, &code);
  if (code != CL_SUCCESS) {
    clReleaseMemObject(in);
    result.why = "out of device memory";
    return result;
  }
  const std::unique_ptr<_cl_mem, decltype(&clReleaseMemObject)> hold_in(in, clReleaseMemObject),
      hold_out(out, clReleaseMemObject);
  if (pattern != nullptr) pattern->fill(in, 0, rows * cols, elem_size, seed);
  cl_event event = nullptr;
  code = launch(in, out, &event);
  if (code != CL_SUCCESS) {
    result.why = "launch failed with status " + std::to_string(code);
    return result;
  }
  support::check(clWaitForEvents(1, &event), "clWaitForEvents");
  clReleaseEvent(event);
  if (verify && pattern != nullptr) {
    result.verified = pattern->check_transposed(out, 0, rows, cols, elem_size, seed).empty();
  } else if (verify) {
    std::vector<unsigned char> back(bytes);
    support::check(clEnqueueReadBuffer(session.queue(), out, CL_TRUE, 0, bytes, back.data(), 0,
                                       nullptr, nullptr),
                   "clEnqueueReadBuffer");
    result.verified = back == support::transpose_reference(data, rows, cols, elem_size);
  }
  std::vector<double> kernel, wall;
  for (int i = 0; i < repetitions; ++i) {
    cl_event begin = nullptr;
    support::check(clEnqueueMarkerWithWaitList(session.queue(), 0, nullptr, &begin), "marker");
    const auto start = std::chrono::steady_clock::now();
    support::check(launch(in, out, &event), name.c_str());
    support::check(clWaitForEvents(1, &event), "clWaitForEvents");
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    kernel.push_back(support::after_seconds(begin, event));
    clReleaseEvent(event);
    clReleaseEvent(begin);
  }
  result.ran = true;
  result.seconds = support::stats_of(kernel).median;
  result.wall_seconds = support::stats_of(wall).median;
  return result;
}

}  // namespace

std::vector<std::string> available_baselines() {
#ifdef IPT_BENCH_HAVE_CLBLAST
  return {"oop-kernel", "clblast-omatcopy"};
#else
  return {"oop-kernel"};
#endif
}

BaselineResult run_baseline(const support::Session& session, const std::string& name,
                            std::size_t rows, std::size_t cols, std::size_t elem_size,
                            int repetitions, bool verify, std::uint64_t seed,
                            support::DevicePattern* pattern) {
  if (name == "oop-kernel") {
    cl_kernel kernel = oop_kernel(session, elem_size);
    const cl_ulong r = rows, c = cols;
    return measure(session, name, rows, cols, elem_size, repetitions, verify, seed, pattern,
                   [&](cl_mem in, cl_mem out, cl_event* event) {
                     clSetKernelArg(kernel, 0, sizeof(cl_mem), &in);
                     clSetKernelArg(kernel, 1, sizeof(cl_mem), &out);
                     clSetKernelArg(kernel, 2, sizeof(cl_ulong), &r);
                     clSetKernelArg(kernel, 3, sizeof(cl_ulong), &c);
                     const std::size_t global[2] = {(cols + 31) / 32 * 32, (rows + 31) / 32 * 8};
                     const std::size_t local[2] = {32, 8};
                     return clEnqueueNDRangeKernel(session.queue(), kernel, 2, nullptr, global,
                                                   local, 0, nullptr, event);
                   });
  }
#ifdef IPT_BENCH_HAVE_CLBLAST
  // CLBlast indexes with 32-bit ints: beyond them its kernels address out of bounds (the
  // driver reported -9999 and the context was lost for every later shape).
  if (name == "clblast-omatcopy" && rows * cols > static_cast<std::size_t>(INT32_MAX)) {
    BaselineResult skipped;
    skipped.library = name;
    skipped.why = "CLBlast indexes matrices of at most 2^31 - 1 elements";
    return skipped;
  }
  if (name == "clblast-omatcopy" && (elem_size == 4 || elem_size == 8)) {
    return measure(
        session, name, rows, cols, elem_size, repetitions, verify, seed, pattern,
        [&](cl_mem in, cl_mem out, cl_event* event) {
          cl_command_queue queue = session.queue();
          const CLBlastStatusCode status =
              elem_size == 4
                  ? CLBlastSomatcopy(CLBlastLayoutRowMajor, CLBlastTransposeYes, rows, cols, 1.0f,
                                     in, 0, cols, out, 0, rows, &queue, event)
                  : CLBlastDomatcopy(CLBlastLayoutRowMajor, CLBlastTransposeYes, rows, cols, 1.0,
                                     in, 0, cols, out, 0, rows, &queue, event);
          return static_cast<cl_int>(status);
        });
  }
#endif
  BaselineResult none;
  none.library = name;
  none.why = "not available for " + std::to_string(elem_size) + "-byte elements in this build";
  return none;
}

}  // namespace ipt::bench
