// SPDX-License-Identifier: Apache-2.0
#include "imatcopy_mode.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "ipt/ipt.h"
#include "support/imatcopy_reference.hpp"
#include "support/measure.hpp"
#include "support/random_data.hpp"
#include "timed_runs.hpp"

namespace ipt::bench {
namespace {

using support::ImatcopyCall;

// A pitch as callers choose them: the row rounded up past a multiple of 128 elements.
std::size_t pitch(std::size_t len) { return (len / 128 + 1) * 128; }

// The call that undoes `call` (the timing alternates them): the result's shape and
// strides swapped back, alpha inverted (0.5 and 2 are exact), conjugation repeated.
ImatcopyCall inverse(ImatcopyCall call) {
  if (call.transposes()) std::swap(call.rows, call.cols);
  std::swap(call.lda, call.ldb);
  if (call.has_alpha) call.alpha_re = 1 / call.alpha_re;
  return call;
}

}  // namespace

int run_imatcopy(const support::Session& session, std::size_t rows, std::size_t cols,
                 const std::string& type_name, int repetitions) {
  ImatcopyCall base;
  base.rows = rows;
  base.cols = cols;
  if (type_name == "f32")
    base.type = IPT_SCALAR_F32, base.elem_size = 4;
  else if (type_name == "f64")
    base.type = IPT_SCALAR_F64, base.elem_size = 8;
  else if (type_name == "c32")
    base.type = IPT_SCALAR_C32, base.elem_size = 8;
  else if (type_name == "c64")
    base.type = IPT_SCALAR_C64, base.elem_size = 16;
  else
    throw std::invalid_argument("imatcopy takes --type f32, f64, c32 or c64");
  const bool complex = base.type == IPT_SCALAR_C32 || base.type == IPT_SCALAR_C64;
  const std::size_t e = base.elem_size, matrix_bytes = rows * cols * e;

  struct Variant {
    const char* name;
    ImatcopyCall call;
  };
  std::vector<Variant> variants;
  const auto add = [&](const char* name, char trans, bool alpha, std::size_t lda, std::size_t ldb) {
    ImatcopyCall call = base;
    call.trans = trans;
    call.has_alpha = alpha;
    call.alpha_re = 0.5;
    call.lda = lda;
    call.ldb = ldb;
    variants.push_back({name, call});
  };
  add("'T', alpha 1, dense (a transpose)", 'T', false, cols, rows);
  add("'T', alpha 0.5, dense", 'T', true, cols, rows);
  add(complex ? "'C', alpha 0.5, lda and ldb pitched" : "'T', alpha 0.5, lda and ldb pitched",
      complex ? 'C' : 'T', true, pitch(cols), pitch(rows));
  add("'N', alpha 0.5, lda = ldb", 'N', true, cols, cols);
  add("'N', alpha 1, lda pitched -> ldb dense", 'N', false, pitch(cols), cols);

  std::size_t largest = 0;
  for (const Variant& v : variants) largest = std::max(largest, v.call.extent() * e);
  const auto copy = support::measure_copy_bandwidth(session, support::copy_bytes_for(matrix_bytes));
  const double copy_gbs = copy.gbs;
  cl_int code = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE, largest, nullptr, &code);
  support::check(code, "clCreateBuffer");
  std::printf(
      "device: %s\nlibipt %s, mode imatcopy: %zu x %zu %s (row-major), pitches %zu / %zu\n"
      "copy bandwidth: %s\n"
      "GB/s: 2 * rows * cols * %zu bytes / median time\n\n",
      session.description().c_str(), ipt_version_string(), rows, cols, type_name.c_str(),
      pitch(cols), pitch(rows), support::describe(copy).c_str(), e);
  std::printf("%-42s %10s %10s %8s %9s\n", "variant", "median ms", "GB/s", "% copy", "verified");

  const cl_command_queue queue = session.queue();
  int failures = 0;
  for (const Variant& v : variants) {
    const ImatcopyCall forward = v.call, backward = inverse(v.call);
    const Enqueue enqueue = [&](bool ahead) -> cl_event {
      cl_event done = nullptr;
      return failed(
                 support::run_imatcopy(ahead ? forward : backward, queue, buffer, 0, true, &done))
                 ? nullptr
                 : done;
    };
    // Verified once on random values, against the host reference.
    std::vector<unsigned char> data = support::random_bytes(largest, 77);
    support::fill_numeric(forward, 0, data, 78);
    support::check(
        clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, largest, data.data(), 0, nullptr, nullptr),
        "clEnqueueWriteBuffer");
    bool ok = false;
    if (cl_event done = enqueue(true); done != nullptr) {
      clReleaseEvent(done);
      std::vector<unsigned char> now(largest);
      support::check(
          clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, largest, now.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
      std::vector<bool> specified;
      const auto expected = support::imatcopy_expected(forward, 0, data, specified);
      ok = true;
      for (std::size_t i = 0; i < largest && ok; ++i) ok = !specified[i] || now[i] == expected[i];
      // The timing starts from the result, so that its first call is `backward`.
      const auto seconds = time_runs(
          session, [&](bool ahead) { return enqueue(!ahead); }, repetitions);
      const double median = seconds.empty() ? 0 : support::stats_of(seconds).median;
      const double rate = median > 0 ? 2.0 * static_cast<double>(matrix_bytes) / median / 1e9 : 0;
      if (seconds.empty()) ok = false;
      std::printf("%-42s %10.3f %10.1f %7.1f%% %9s\n", v.name, median * 1e3, rate,
                  100 * rate / copy_gbs, ok ? "yes" : "FAILED");
    } else {
      std::printf("%-42s %10s %10s %8s %9s\n", v.name, "-", "-", "-", "FAILED");
    }
    failures += ok ? 0 : 1;
  }
  clReleaseMemObject(buffer);
  return failures == 0 ? 0 : 1;
}

}  // namespace ipt::bench
