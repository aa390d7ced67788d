// SPDX-License-Identifier: Apache-2.0
#include "support/device_pattern.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "support/program_build.hpp"

namespace ipt::support {
namespace {

// T is the element type, WORDS its 32-bit words (1, 2 or 4; 1- and 2-byte elements
// use the low bits of one word). A splitmix64 finaliser makes each word.
const char* kSource = R"CLC(
uint pattern_word(ulong seed, ulong index, uint w) {
  ulong x = seed * 0xD1B54A32D192ED03UL + index * 4 + w + 0x9E3779B97F4A7C15UL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
  x ^= x >> 31;
  return (uint)x;
}
// The top word's exponent bits set to 01xxxxx: a normal, finite float or double.
uint finite_top(uint word) { return (word & 0x80FFFFFFu) | ((0x20u | ((word >> 24) & 0x1Fu)) << 24); }

#if WORDS == 1
T pattern(ulong seed, ulong i) {
  const uint w = pattern_word(seed, i, 0);
  return (T)(sizeof(T) == 4 ? finite_top(w) : w);
}
#define SAME(a, b) ((a) == (b))
#elif WORDS == 2
T pattern(ulong seed, ulong i) {
  return (T)(pattern_word(seed, i, 0), finite_top(pattern_word(seed, i, 1)));
}
#define SAME(a, b) all((a) == (b))
#else
T pattern(ulong seed, ulong i) {
  return (T)(pattern_word(seed, i, 0), pattern_word(seed, i, 1), pattern_word(seed, i, 2),
             pattern_word(seed, i, 3));
}
#define SAME(a, b) all((a) == (b))
#endif

__kernel void pattern_fill(__global T *data, ulong offset, ulong count, ulong seed) {
  for (ulong i = get_global_id(0); i < count; i += get_global_size(0))
    data[offset + i] = pattern(seed, i);
}

// result[0]: wrong elements (saturating at 2^32 - 1 is fine: any is a failure);
// result[1]: the smallest wrong output index below 2^32 - 1 (else 2^32 - 1).
// Dimension 0 walks the result's columns (the original rows), so reads are coalesced;
// dimension 1 strides over the result's rows (NVIDIA caps its size at 65535 groups).
__kernel void pattern_check_transposed(__global const T *data, ulong offset, ulong rows,
                                       ulong cols, ulong seed, __global uint *result) {
  const ulong r = get_global_id(0);
  if (r >= rows) return;
  for (ulong c = get_global_id(1); c < cols; c += get_global_size(1)) {
    const ulong out = c * rows + r;
    if (!SAME(data[offset + out], pattern(seed, r * cols + c))) {
      atomic_inc(&result[0]);
      atomic_min(&result[1], (uint)min(out, (ulong)0xFFFFFFFEu));
    }
  }
}
)CLC";

int slot(std::size_t elem_size) {
  switch (elem_size) {
    case 1:
      return 0;
    case 2:
      return 1;
    case 4:
      return 2;
    case 8:
      return 3;
    case 16:
      return 4;
    default:
      throw std::invalid_argument("DevicePattern: element size " + std::to_string(elem_size));
  }
}

}  // namespace

DevicePattern::DevicePattern(const Session& session) : session_(session) {
  cl_int code = CL_SUCCESS;
  result_ =
      clCreateBuffer(session.context(), CL_MEM_READ_WRITE, 2 * sizeof(cl_uint), nullptr, &code);
  check(code, "clCreateBuffer(pattern result)");
}

DevicePattern::~DevicePattern() {
  for (cl_program p : programs_)
    if (p != nullptr) clReleaseProgram(p);
  if (result_ != nullptr) clReleaseMemObject(result_);
}

cl_kernel DevicePattern::kernel(const char* name, std::size_t elem_size) {
  cl_program& program = programs_[slot(elem_size)];
  if (program == nullptr) {
    static const char* types[] = {"uchar", "ushort", "uint", "uint2", "uint4"};
    static const char* words[] = {"1", "1", "1", "2", "4"};
    const int s = slot(elem_size);
    program = build_program(session_.context(), session_.device(), kSource,
                            std::string("-DT=") + types[s] + " -DWORDS=" + words[s], "pattern");
  }
  cl_int code = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program, name, &code);
  check(code, name);
  return k;
}

void DevicePattern::fill(cl_mem buffer, std::size_t offset, std::size_t elements,
                         std::size_t elem_size, std::uint64_t seed) {
  if (elements == 0) return;
  cl_kernel k = kernel("pattern_fill", elem_size);
  const cl_ulong o = offset, n = elements, s = seed;
  clSetKernelArg(k, 0, sizeof(cl_mem), &buffer);
  clSetKernelArg(k, 1, sizeof(cl_ulong), &o);
  clSetKernelArg(k, 2, sizeof(cl_ulong), &n);
  clSetKernelArg(k, 3, sizeof(cl_ulong), &s);
  const std::size_t local = 256;
  const std::size_t global = std::min<std::size_t>((elements + local - 1) / local, 65536) * local;
  const cl_int code =
      clEnqueueNDRangeKernel(session_.queue(), k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
  clReleaseKernel(k);
  check(code, "pattern_fill");
  check(clFinish(session_.queue()), "clFinish(pattern_fill)");
}

std::string DevicePattern::check_transposed(cl_mem buffer, std::size_t offset, std::size_t rows,
                                            std::size_t cols, std::size_t elem_size,
                                            std::uint64_t seed) {
  if (rows == 0 || cols == 0) return "";
  const cl_uint initial[2] = {0, 0xFFFFFFFFu};
  check(clEnqueueWriteBuffer(session_.queue(), result_, CL_TRUE, 0, sizeof(initial), initial, 0,
                             nullptr, nullptr),
        "clEnqueueWriteBuffer(pattern result)");
  cl_kernel k = kernel("pattern_check_transposed", elem_size);
  const cl_ulong o = offset, r = rows, c = cols, s = seed;
  clSetKernelArg(k, 0, sizeof(cl_mem), &buffer);
  clSetKernelArg(k, 1, sizeof(cl_ulong), &o);
  clSetKernelArg(k, 2, sizeof(cl_ulong), &r);
  clSetKernelArg(k, 3, sizeof(cl_ulong), &c);
  clSetKernelArg(k, 4, sizeof(cl_ulong), &s);
  clSetKernelArg(k, 5, sizeof(cl_mem), &result_);
  const std::size_t local[2] = {256, 1};
  const std::size_t global[2] = {(rows + 255) / 256 * 256, std::min<std::size_t>(cols, 4096)};
  const cl_int code =
      clEnqueueNDRangeKernel(session_.queue(), k, 2, nullptr, global, local, 0, nullptr, nullptr);
  clReleaseKernel(k);
  check(code, "pattern_check_transposed");
  cl_uint result[2] = {0, 0};
  check(clEnqueueReadBuffer(session_.queue(), result_, CL_TRUE, 0, sizeof(result), result, 0,
                            nullptr, nullptr),
        "clEnqueueReadBuffer(pattern result)");
  if (result[0] == 0) return "";
  std::string text = std::to_string(result[0]) + " elements wrong";
  if (result[1] != 0xFFFFFFFFu) {
    const std::size_t first = result[1];
    text += "; the first at row " + std::to_string(first / rows) + ", column " +
            std::to_string(first % rows) + " of the result";
  }
  return text;
}

}  // namespace ipt::support
