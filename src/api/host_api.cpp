// SPDX-License-Identifier: Apache-2.0
// The exported host-transposition entry points: validate, then hand over to the runtime.
#include <string>

#include "api/guard.hpp"
#include "api/validate.hpp"
#include "host/host_slicing.hpp"
#include "host/host_transpose.hpp"
#include "runtime/error.hpp"

static_assert(IPT_HOST_MAX_SLICES == ipt::host::kMaxHostSlices,
              "the API's limit on slices is the planner's");

namespace {

ipt_status transpose_host(const char* function, cl_command_queue queue, void* host, size_t rows,
                          size_t cols, size_t elem_size, const ipt_host_options* options) noexcept {
  return ipt::api::guarded(function, [&] {
    ipt::host::HostRequest request;
    request.queue = queue;
    request.host = host;
    request.rows = rows;
    request.cols = cols;
    request.elem_size = elem_size;
    if (options != nullptr) {
      const int scheme = ipt::api::raw_value(options->scheme),
                pinning = ipt::api::raw_value(options->pinning);
      if (scheme != IPT_HOST_AUTO && scheme != IPT_HOST_DEVICE && scheme != IPT_HOST_CPU)
        ipt::fail(IPT_INVALID_VALUE, "unknown ipt_host_scheme " + std::to_string(scheme));
      if (pinning != IPT_HOST_PIN_AUTO && pinning != IPT_HOST_PIN_OFF && pinning != IPT_HOST_PIN_ON)
        ipt::fail(IPT_INVALID_VALUE, "unknown ipt_host_pinning " + std::to_string(pinning));
      request.scheme = options->scheme;
      request.threads = options->threads;
      request.pinning = options->pinning;
      if (options->slices > IPT_HOST_MAX_SLICES)
        ipt::fail(IPT_INVALID_VALUE, "slices is " + std::to_string(options->slices) + "; at most " +
                                         std::to_string(IPT_HOST_MAX_SLICES));
      request.slices = options->slices;
    }
    if (request.scheme == IPT_HOST_DEVICE && queue == nullptr)
      ipt::fail(IPT_INVALID_COMMAND_QUEUE, "IPT_HOST_DEVICE needs a command queue");
    ipt::api::checked_matrix_bytes(rows, cols, elem_size, 1);
    if (rows == 0 || cols == 0) return;
    if (host == nullptr) ipt::fail(IPT_INVALID_VALUE, "host is NULL");
    ipt::host::execute_host_transpose(request);
  });
}

}  // namespace

extern "C" {

ipt_status ipt_transpose_host(cl_command_queue queue, void* host, size_t rows, size_t cols,
                              size_t elem_size, const ipt_host_options* options) {
  return transpose_host("ipt_transpose_host", queue, host, rows, cols, elem_size, options);
}

ipt_status ipt_transpose_host_f32(cl_command_queue queue, float* host, size_t rows, size_t cols,
                                  const ipt_host_options* options) {
  return transpose_host("ipt_transpose_host_f32", queue, host, rows, cols, sizeof(float), options);
}

ipt_status ipt_transpose_host_f64(cl_command_queue queue, double* host, size_t rows, size_t cols,
                                  const ipt_host_options* options) {
  return transpose_host("ipt_transpose_host_f64", queue, host, rows, cols, sizeof(double), options);
}

}  // extern "C"
