// SPDX-License-Identifier: Apache-2.0
#include "mpi_block_pattern.hpp"

#include <algorithm>
#include <stdexcept>

#include "support/program_build.hpp"

namespace ipt::bench {
namespace {

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

}  // namespace

Layout input_layout(std::size_t N, const ipt_mpi_local& local, unsigned flags) {
  const std::size_t lr = local.local_rows, base = local.local_row_start * N;
  if ((flags & IPT_MPI_TRANSPOSED_IN) != 0)
    return {lr * N, std::max<std::size_t>(lr, 1), 1, N, base};
  return {lr * N, N, N, 1, base};
}

Layout output_layout(std::size_t M, std::size_t N, const ipt_mpi_local& local, unsigned flags) {
  const std::size_t lc = local.local_cols, base = local.local_col_start;
  if ((flags & IPT_MPI_TRANSPOSED_OUT) != 0)
    return {M * lc, std::max<std::size_t>(lc, 1), N, 1, base};
  return {lc * M, M, 1, N, base};
}

BlockPattern::BlockPattern(const support::Session& session) : session_(session) {
  cl_int code = CL_SUCCESS;
  result_ =
      clCreateBuffer(session.context(), CL_MEM_READ_WRITE, 2 * sizeof(cl_uint), nullptr, &code);
  support::check(code, "clCreateBuffer(check result)");
}

BlockPattern::~BlockPattern() {
  for (cl_program p : programs_)
    if (p != nullptr) clReleaseProgram(p);
  if (result_ != nullptr) clReleaseMemObject(result_);
}

void BlockPattern::fill(cl_mem buffer, const Layout& l, std::size_t e, std::uint64_t seed) {
  if (l.count == 0) return;
  run("block_fill", buffer, l, e, seed, false);
}

std::string BlockPattern::check(cl_mem buffer, const Layout& l, std::size_t e, std::uint64_t seed) {
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

void BlockPattern::run(const char* name, cl_mem buffer, const Layout& l, std::size_t e,
                       std::uint64_t seed, bool with_result) {
  cl_kernel k = kernel(name, e);
  const cl_ulong args[6] = {l.count, l.cols, l.a_step, l.b_step, l.base, seed};
  clSetKernelArg(k, 0, sizeof(cl_mem), &buffer);
  for (cl_uint i = 0; i < 6; ++i) clSetKernelArg(k, i + 1, sizeof(cl_ulong), &args[i]);
  if (with_result) clSetKernelArg(k, 7, sizeof(cl_mem), &result_);
  const std::size_t local = 256;
  const std::size_t global = std::min<std::size_t>((l.count + local - 1) / local, 65536) * local;
  const cl_int code =
      clEnqueueNDRangeKernel(session_.queue(), k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
  clReleaseKernel(k);
  support::check(code, name);
  support::check(clFinish(session_.queue()), name);
}

cl_kernel BlockPattern::kernel(const char* name, std::size_t e) {
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

}  // namespace ipt::bench
