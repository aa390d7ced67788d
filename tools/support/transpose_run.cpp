// SPDX-License-Identifier: Apache-2.0
#include "support/transpose_run.hpp"

#include <chrono>
#include <cstring>
#include <sstream>
#include <vector>

#include "support/host_reference.hpp"
#include "support/random_data.hpp"

namespace ipt::support {

namespace {

// Empty when `result` equals `expected`, the cols x rows transpose of a rows x cols matrix;
// else the first misplaced element (by its place in the original) and the count.
std::string transpose_mismatch(const std::vector<unsigned char>& expected,
                               const std::vector<unsigned char>& result, std::size_t rows,
                               std::size_t elem_size) {
  if (result == expected) return "";
  std::size_t wrong = 0;
  std::ostringstream first;
  for (std::size_t k = 0; k * elem_size < expected.size(); ++k)
    if (std::memcmp(&result[k * elem_size], &expected[k * elem_size], elem_size) != 0 &&
        wrong++ == 0)
      first << "element (" << k % rows << ", " << k / rows << ") misplaced";
  first << "; " << wrong << " elements wrong";
  return first.str();
}

}  // namespace

std::string failure_text(ipt_status status) {
  std::string text = ipt_status_string(status);
  const char* message = ipt_last_error_message();
  if (message != nullptr && *message != '\0') text += std::string("; ") + message;
  return text;
}

RunResult run_transpose(const Session& session, const RunOptions& options) {
  RunResult result;
  const std::size_t bytes = options.rows * options.cols * options.elem_size;
  const auto original = options.pattern != nullptr ? std::vector<unsigned char>{}
                                                   : random_matrix(options.rows, options.cols,
                                                                   options.elem_size, options.seed);
  std::size_t buffer_bytes = bytes;
  if (options.padding_room) {
    result.status = ipt_padded_size(session.device(), options.rows, options.cols, options.elem_size,
                                    &buffer_bytes);
    if (result.status != IPT_SUCCESS) {
      result.error = failure_text(result.status);
      return result;
    }
  }
  result.buffer_bytes = buffer_bytes;
  ipt_plan_options plan_options =
      options.options != nullptr ? *options.options : ipt_plan_options{};
  if (plan_options.max_bytes == 0) plan_options.max_bytes = buffer_bytes;
  // An automatic call in a buffer of ipt_padded_size bytes runs the plan ipt_plan gives
  // without options, the one that honours IPT_OVERRIDES (with options, ipt_plan plans
  // what they say and the label would ignore, say, onchip=off).
  const bool as_call = options.options == nullptr && options.padding_room;
  result.status = ipt_plan(session.device(), options.rows, options.cols, options.elem_size,
                           as_call ? nullptr : &plan_options, &result.plan);
  if (result.status != IPT_SUCCESS) {
    result.error = failure_text(result.status);
    return result;
  }
  cl_int code = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE,
                                 buffer_bytes == 0 ? 1 : buffer_bytes, nullptr, &code);
  check(code, "clCreateBuffer");
  if (options.pattern != nullptr)
    options.pattern->fill(buffer, 0, options.rows * options.cols, options.elem_size, options.seed);
  else if (bytes > 0)
    check(clEnqueueWriteBuffer(session.queue(), buffer, CL_TRUE, 0, bytes, original.data(), 0,
                               nullptr, nullptr),
          "clEnqueueWriteBuffer");

  // Transposes the matrix, or with `reverse` the cols x rows one the buffer holds after
  // an odd number of calls.
  auto call = [&](bool reverse, cl_event* out) {
    const std::size_t r = reverse ? options.cols : options.rows;
    const std::size_t c = reverse ? options.rows : options.cols;
    if (!reverse && options.options != nullptr)
      return ipt_transpose_with_options(session.queue(), buffer, 0, r, c, options.elem_size,
                                        options.options, 0, nullptr, out);
    return options.use_f64_entry
               ? ipt_transpose_f64(session.queue(), buffer, 0, r, c, 0, nullptr, out)
               : ipt_transpose(session.queue(), buffer, 0, r, c, 0, nullptr, out,
                               options.elem_size);
  };

  // Warm-up (compiles the kernels); its result is verified: one transposition.
  cl_event event = nullptr;
  result.status = call(false, &event);
  if (result.status == IPT_SUCCESS) {
    check(clWaitForEvents(1, &event), "clWaitForEvents");
    clReleaseEvent(event);
    if (options.verify && options.pattern != nullptr) {
      result.mismatch = options.pattern->check_transposed(buffer, 0, options.rows, options.cols,
                                                          options.elem_size, options.seed);
      result.verified = result.mismatch.empty();
    } else if (options.verify) {
      std::vector<unsigned char> back(bytes);
      if (bytes > 0)
        check(clEnqueueReadBuffer(session.queue(), buffer, CL_TRUE, 0, bytes, back.data(), 0,
                                  nullptr, nullptr),
              "clEnqueueReadBuffer");
      result.mismatch = transpose_mismatch(
          transpose_reference(original, options.rows, options.cols, options.elem_size), back,
          options.rows, options.elem_size);
      result.verified = result.mismatch.empty();
    }
    // Back to the original with the reverse shape, untimed (its plan may differ: 2.1 for
    // one way, 2.2 for the other).
    result.status = call(true, nullptr);
    check(clFinish(session.queue()), "clFinish");
    std::vector<double> kernel_seconds, wall_seconds;
    for (int i = 0; i < options.repetitions && result.status == IPT_SUCCESS; ++i) {
      // A marker just before the call: the time from its end to the end of the returned
      // event covers every kernel of a multi-stage plan (in-order queue).
      cl_event begin = nullptr;
      check(clEnqueueMarkerWithWaitList(session.queue(), 0, nullptr, &begin),
            "clEnqueueMarkerWithWaitList");
      const auto start = std::chrono::steady_clock::now();
      result.status = call(false, &event);
      if (result.status != IPT_SUCCESS) {
        clReleaseEvent(begin);
        break;
      }
      check(clWaitForEvents(1, &event), "clWaitForEvents");
      wall_seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      kernel_seconds.push_back(after_seconds(begin, event));
      clReleaseEvent(event);
      clReleaseEvent(begin);
      result.status = call(true, nullptr);  // back, untimed
      check(clFinish(session.queue()), "clFinish");
    }
    result.seconds = stats_of(kernel_seconds);
    result.wall_seconds = stats_of(wall_seconds).median;
    if (result.seconds.median > 0)
      result.throughput_gbs = 2.0 * static_cast<double>(bytes) / result.seconds.median * 1e-9;
  }
  if (result.status != IPT_SUCCESS) result.error = failure_text(result.status);
  clReleaseMemObject(buffer);
  return result;
}

}  // namespace ipt::support
