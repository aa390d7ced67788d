// SPDX-License-Identifier: Apache-2.0
// Fuzzes the C API's argument checking on the OpenCL device IPT_DEVICE names (PoCL on a
// machine without GPU): ipt_transpose, _f32, _f64, _with_options, ipt_padded_size,
// ipt_plan and ipt_imatcopy (and its typed forms) with the arguments of api_call.hpp. Every call
// must return a status the header allows for its arguments (api_statuses.hpp); a transposition that
// fails leaves its whole buffer byte for byte as it was, one that succeeds leaves the transpose
// (tools/support/host_reference.hpp) and every byte around it unchanged.
#include <fuzzer/FuzzedDataProvider.h>
#include <signal.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "api_call.hpp"
#include "api_statuses.hpp"
#include "fuzz_report.hpp"
#include "ipt/ipt.h"
#include "support/device_select.hpp"
#include "support/host_reference.hpp"
#include "support/imatcopy_reference.hpp"
#include "support/random_data.hpp"

using namespace ipt::fuzz;

namespace {

// Matrices that run stay small: PoCL transposes them in a millisecond or two.
constexpr std::size_t kMaxElements = 4100, kMaxOffset = 16, kMaxElemSize = 32;
// The buffer of a call whose matrix is larger: any such call must fail.
constexpr std::size_t kSmallBuffer = 256;

// libFuzzer's handlers of the signals a failed check or a memory error raise. PoCL loads
// LLVM, whose own handlers replace them and end the process without libFuzzer's report
// or the saved input; PoCL's SIGFPE handler (kernels that divide by zero) stays.
class FuzzerSignals {
 public:
  FuzzerSignals() {
    for (std::size_t i = 0; i < kCount; ++i) sigaction(kSignals[i], nullptr, &saved_[i]);
  }
  void restore() const {
    for (std::size_t i = 0; i < kCount; ++i) sigaction(kSignals[i], &saved_[i], nullptr);
  }

 private:
  static constexpr std::size_t kCount = 4;
  static constexpr int kSignals[kCount] = {SIGABRT, SIGSEGV, SIGILL, SIGBUS};
  struct sigaction saved_[kCount] = {};
};

// The OpenCL objects every input shares: a session on the device, and a second context
// on the same device for the arguments that belong to another one.
struct Device {
  FuzzerSignals signals;  // first: saved before the sessions load the driver
  ipt::support::Session main, other;
  DeviceFacts facts;
  Device() {
    signals.restore();
    cl_device_fp_config fp64 = 0;
    ipt::support::check(
        clGetDeviceInfo(main.device(), CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, nullptr),
        "clGetDeviceInfo");
    cl_ulong max_alloc = 0;
    ipt::support::check(clGetDeviceInfo(main.device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                                        sizeof max_alloc, &max_alloc, nullptr),
                        "clGetDeviceInfo");
    facts.fp64 = fp64 != 0;
    facts.max_alloc = max_alloc;
  }
};

Device& device() {
  static Device instance;
  return instance;
}

cl_context context_of(Handle handle) {
  return handle == Handle::kOtherContext ? device().other.context() : device().main.context();
}

cl_command_queue queue_of(Handle handle) {
  if (handle == Handle::kNull) return nullptr;
  return handle == Handle::kOtherContext ? device().other.queue() : device().main.queue();
}

void check_cl(cl_int code, const char* what) {
  if (code != CL_SUCCESS) fail(std::string(what) + " failed with " + std::to_string(code));
}

std::string status_text(ipt_status status) {
  return std::to_string(status) + " (" + ipt_status_string(status) + ")";
}

// Fails unless `status` is one `allowed`; and the last error message is empty exactly
// after a success.
void check_status(ipt_status status, const std::vector<ipt_status>& allowed,
                  const std::string& call) {
  std::string names;
  for (ipt_status s : allowed) names += " " + std::to_string(s);
  if (std::find(allowed.begin(), allowed.end(), status) == allowed.end())
    fail("status " + status_text(status) + ", allowed:" + names + "\n  call: " + call +
         "\n  message: " + ipt_last_error_message());
  if ((status == IPT_SUCCESS) != (ipt_last_error_message()[0] == '\0'))
    fail("status " + status_text(status) + " with message '" + ipt_last_error_message() +
         "'\n  call: " + call);
}

// The buffer's size: from the matrix's end as the call asks, when the matrix is one
// that runs; else a small buffer that the call must find too small.
std::size_t buffer_bytes(const ApiCall& call) {
  if (!call.matrix_fits() || call.rows * call.cols > kMaxElements || call.offset > kMaxOffset ||
      call.elem_size > kMaxElemSize)
    return kSmallBuffer;
  const std::size_t end = call.end_bytes();
  switch (call.room) {
    case Room::kShort:
      return end > call.room_bytes ? end - call.room_bytes : std::max<std::size_t>(1, end);
    case Room::kExact:
      return std::max<std::size_t>(1, end);
    case Room::kMore:
      return end + call.room_bytes;
    case Room::kPadded: {
      std::size_t padded = 0;
      if (ipt_padded_size(device().main.device(), call.rows, call.cols, call.elem_size, &padded) !=
          IPT_SUCCESS)
        return std::max<std::size_t>(1, end);
      return std::max<std::size_t>(1, call.offset * call.elem_size + padded);
    }
  }
  return end;
}

// The wait list of a call, and the user events it holds (completed after the call, so
// that nothing waits on them for ever).
struct Events {
  std::vector<cl_event> list, owned;
  cl_uint count = 0;
  const cl_event* pointer = nullptr;

  explicit Events(WaitList wait) {
    const auto user = [this](cl_context context) {
      cl_int code = CL_SUCCESS;
      cl_event event = clCreateUserEvent(context, &code);
      check_cl(code, "clCreateUserEvent");
      owned.push_back(event);
      return event;
    };
    switch (wait) {
      case WaitList::kNone:
        break;
      case WaitList::kCountOnly:
        count = 2;
        break;
      case WaitList::kListOnly:
        list = {user(device().main.context())};
        break;
      case WaitList::kUserEvent:
        list = {user(device().main.context())};
        break;
      case WaitList::kUserAndNull:
        list = {user(device().main.context()), nullptr};
        break;
      case WaitList::kForeign:
        list = {user(device().other.context())};
        break;
      case WaitList::kComplete:
        list = {user(device().main.context())};
        check_cl(clSetUserEventStatus(list[0], CL_COMPLETE), "clSetUserEventStatus");
        break;
    }
    if (!list.empty()) pointer = list.data();
    if (wait != WaitList::kListOnly && wait != WaitList::kCountOnly)
      count = static_cast<cl_uint>(list.size());
  }
  ~Events() {
    for (cl_event event : owned) clReleaseEvent(event);
  }
  void complete() {
    for (cl_event event : owned) clSetUserEventStatus(event, CL_COMPLETE);  // once is enough
  }
};

ipt_status call_transposition(const ApiCall& call, cl_mem buffer, const Events& events,
                              cl_event* event) {
  const cl_command_queue queue = queue_of(call.queue);
  ipt_plan_options options = call.options;
  std::memcpy(&options.sequence, &call.sequence, sizeof call.sequence);
  std::memcpy(&options.padding, &call.padding, sizeof call.padding);
  switch (call.function) {
    case Function::kTranspose:
      return ipt_transpose(queue, buffer, call.offset, call.rows, call.cols, events.count,
                           events.pointer, event, call.elem_size);
    case Function::kTransposeF32:
      return ipt_transpose_f32(queue, buffer, call.offset, call.rows, call.cols, events.count,
                               events.pointer, event);
    case Function::kTransposeF64:
      return ipt_transpose_f64(queue, buffer, call.offset, call.rows, call.cols, events.count,
                               events.pointer, event);
    default:
      return ipt_transpose_with_options(queue, buffer, call.offset, call.rows, call.cols,
                                        call.elem_size, call.has_options ? &options : nullptr,
                                        events.count, events.pointer, event);
  }
}

// The first bytes where `now` differs from `expected`, in words.
std::string difference(const std::vector<unsigned char>& expected,
                       const std::vector<unsigned char>& now, std::size_t matrix_begin,
                       std::size_t matrix_end) {
  std::string out;
  int shown = 0;
  for (std::size_t i = 0; i < expected.size() && shown < 4; ++i) {
    if (expected[i] == now[i]) continue;
    ++shown;
    out += " byte " + std::to_string(i) +
           (i >= matrix_begin && i < matrix_end ? " (matrix)" : " (outside the matrix)");
  }
  return out;
}

// The call's buffer, filled with `initial`, as its handle choice asks: none, read-only,
// of the other context, or a plain one of the session's.
cl_mem make_buffer(const ApiCall& call, std::vector<unsigned char>& initial) {
  if (call.buffer == Handle::kNull) return nullptr;
  const cl_mem_flags access =
      call.buffer == Handle::kReadOnly ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE;
  cl_int code = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(context_of(call.buffer), access | CL_MEM_COPY_HOST_PTR,
                                 initial.size(), initial.data(), &code);
  check_cl(code, "clCreateBuffer");
  return buffer;
}

// After a call that enqueues on `buffer`: its status allowed, an event exactly when it
// enqueued (and was asked for), everything finished; returns the buffer's bytes now and
// releases it (nothing when there is no buffer).
std::vector<unsigned char> finish_call(const ApiCall& call, ipt_status status, cl_event event,
                                       cl_mem buffer, std::size_t bytes, const std::string& text) {
  trace("status " + status_text(status));
  check_status(status, allowed_statuses(call, bytes, device().facts), text);
  const bool enqueued = status == IPT_SUCCESS || status == IPT_ROLLED_BACK;
  if (enqueued && call.want_event && event == nullptr) fail("no event\n  call: " + text);
  if (!enqueued && event != nullptr) fail("an event from a failed call\n  call: " + text);
  if (event != nullptr) {
    check_cl(clWaitForEvents(1, &event), "clWaitForEvents");
    clReleaseEvent(event);
  }
  check_cl(clFinish(device().main.queue()), "clFinish");
  check_cl(clFinish(device().other.queue()), "clFinish");
  if (buffer == nullptr) return {};
  std::vector<unsigned char> now(bytes);
  const cl_command_queue reader =
      call.buffer == Handle::kOtherContext ? device().other.queue() : device().main.queue();
  check_cl(clEnqueueReadBuffer(reader, buffer, CL_TRUE, 0, bytes, now.data(), 0, nullptr, nullptr),
           "clEnqueueReadBuffer");
  clReleaseMemObject(buffer);
  return now;
}

void run_transposition(const ApiCall& call, std::uint64_t seed, const std::string& text) {
  const std::size_t bytes = buffer_bytes(call);
  std::vector<unsigned char> initial = ipt::support::random_bytes(bytes, seed);
  cl_mem buffer = make_buffer(call, initial);
  Events events(call.wait);
  cl_event event = nullptr;
  const ipt_status status =
      call_transposition(call, buffer, events, call.want_event ? &event : nullptr);
  events.complete();
  const std::vector<unsigned char> now = finish_call(call, status, event, buffer, bytes, text);
  if (now.empty()) return;  // no buffer
  std::vector<unsigned char> expected = initial;
  std::size_t begin = 0, end = 0;
  if (status == IPT_SUCCESS && call.rows != 0 && call.cols != 0) {
    begin = call.offset * call.elem_size;
    end = call.end_bytes();
    const std::vector<unsigned char> matrix(initial.begin() + begin, initial.begin() + end);
    const auto transposed =
        ipt::support::transpose_reference(matrix, call.rows, call.cols, call.elem_size);
    std::copy(transposed.begin(), transposed.end(), expected.begin() + begin);
  }
  if (now != expected)
    fail((status == IPT_SUCCESS ? "wrong bytes after success:" : "bytes changed by a failure:") +
         difference(expected, now, begin, end) + "\n  status " + status_text(status) +
         "\n  call: " + text);
}

// The imatcopy call of the support library (its reference and its runner) for `call`.
ipt::support::ImatcopyCall imatcopy_call(const ApiCall& call) {
  ipt::support::ImatcopyCall c;
  c.ordering = call.imatcopy.ordering;
  c.trans = call.imatcopy.trans;
  c.rows = call.rows;
  c.cols = call.cols;
  c.lda = call.imatcopy.lda;
  c.ldb = call.imatcopy.ldb;
  c.type = static_cast<ipt_scalar_type>(call.imatcopy.type);
  c.elem_size = call.elem_size;
  c.has_alpha = call.imatcopy.alpha;
  c.alpha_re = 0.915965594177219;  // full mantissas, so that the products round
  c.alpha_im = -0.5671432904097838;
  return c;
}

// Elements from the offset to the later end of A and B, when they are few enough to run
// (0: none, or too many).
std::size_t small_extent(const ApiCall& call) {
  const ImatcopyArgs& a = call.imatcopy;
  const bool columns = a.ordering == 'C' || a.ordering == 'c';
  const bool transposes = a.trans == 'T' || a.trans == 't' || a.trans == 'C' || a.trans == 'c';
  const std::size_t R = columns ? call.cols : call.rows, C = columns ? call.rows : call.cols;
  if (R == 0 || C == 0 || R > kMaxElements || C > kMaxElements || a.lda > kMaxElements ||
      a.ldb > kMaxElements)
    return 0;
  const std::size_t before = (R - 1) * a.lda + C;
  const std::size_t after = transposes ? (C - 1) * a.ldb + R : (R - 1) * a.ldb + C;
  const std::size_t extent = std::max(before, after);
  return extent <= 4 * kMaxElements ? extent : 0;
}

void run_imatcopy(const ApiCall& call, std::uint64_t seed, const std::string& text) {
  const std::size_t extent = small_extent(call);
  std::size_t bytes = kSmallBuffer;
  if (extent != 0 && call.offset <= kMaxOffset && call.elem_size <= kMaxElemSize) {
    const std::size_t end = std::max<std::size_t>(1, (call.offset + extent) * call.elem_size);
    bytes = call.room == Room::kShort
                ? std::max<std::size_t>(1, end > call.room_bytes ? end - call.room_bytes : end)
            : call.room == Room::kMore ? end + call.room_bytes
                                       : end;
  }
  const ipt::support::ImatcopyCall reference = imatcopy_call(call);
  std::vector<unsigned char> initial = ipt::support::random_bytes(bytes, seed);
  if (bytes != kSmallBuffer && call.imatcopy.type >= IPT_SCALAR_F32 &&
      call.imatcopy.type <= IPT_SCALAR_C64 &&
      (call.offset + reference.extent()) * call.elem_size <= bytes)
    ipt::support::fill_numeric(reference, call.offset, initial, seed + 1);
  cl_mem buffer = make_buffer(call, initial);
  Events events(call.wait);
  cl_event event = nullptr;
  const ipt_status status = ipt::support::run_imatcopy(
      reference, queue_of(call.queue), buffer, call.offset, call.imatcopy.typed,
      call.want_event ? &event : nullptr, events.count, events.pointer);
  events.complete();
  const std::vector<unsigned char> now = finish_call(call, status, event, buffer, bytes, text);
  if (now.empty()) return;  // no buffer
  std::vector<bool> specified(bytes, true);
  std::vector<unsigned char> expected = initial;
  if (status == IPT_SUCCESS && call.rows != 0 && call.cols != 0)
    expected = ipt::support::imatcopy_expected(reference, call.offset, initial, specified);
  for (std::size_t i = 0; i < bytes; ++i)
    if (specified[i] && now[i] != expected[i])
      fail((status == IPT_SUCCESS ? "wrong byte " : "byte changed by a failure: ") +
           std::to_string(i) + "\n  status " + status_text(status) + "\n  call: " + text);
}

void run_padded_size(const ApiCall& call, const std::string& text) {
  const cl_device_id id = call.queue == Handle::kNull ? nullptr : device().main.device();
  std::size_t bytes = 0;
  const ipt_status status = ipt_padded_size(id, call.rows, call.cols, call.elem_size,
                                            call.null_output ? nullptr : &bytes);
  check_status(status, allowed_statuses(call, 0, device().facts), text);
  if (status != IPT_SUCCESS) return;
  // At least the matrix, at most 0.5% more (padding_plan.hpp), within one allocation
  // unless the matrix itself is not.
  const std::size_t matrix = call.rows * call.cols * call.elem_size;
  if (bytes < matrix || static_cast<double>(bytes - matrix) > 0.005 * static_cast<double>(matrix) ||
      bytes % call.elem_size != 0 || (bytes > device().facts.max_alloc && bytes != matrix))
    fail("ipt_padded_size gave " + std::to_string(bytes) + " bytes\n  call: " + text);
}

void run_plan(const ApiCall& call, const std::string& text) {
  const cl_device_id id = call.queue == Handle::kNull ? nullptr : device().main.device();
  ipt_plan_options options = call.options;
  std::memcpy(&options.sequence, &call.sequence, sizeof call.sequence);
  std::memcpy(&options.padding, &call.padding, sizeof call.padding);
  ipt_plan_info info;
  std::memset(&info, 0xA5, sizeof info);  // what the call does not write stays visible
  const ipt_status status =
      ipt_plan(id, call.rows, call.cols, call.elem_size, call.has_options ? &options : nullptr,
               call.null_output ? nullptr : &info);
  check_status(status, allowed_statuses(call, 0, device().facts), text);
  if (status != IPT_SUCCESS) return;
  const std::uint64_t matrix = std::uint64_t{call.rows} * call.cols;
  const std::uint64_t padded = std::uint64_t{info.padded_rows} * info.padded_cols;
  const std::uint64_t max_bytes = call.has_options ? call.options.max_bytes : 0;
  const std::uint64_t lendable = max_bytes > matrix * call.elem_size
                                     ? max_bytes - matrix * call.elem_size
                                     : (max_bytes == 0 ? ~std::uint64_t{0} : 0);
  const char* problem = nullptr;
  if (info.sequence <= IPT_SEQUENCE_AUTO || info.sequence > IPT_SEQUENCE_ON_CHIP)
    problem = "no sequence";
  else if (info.padded_rows < call.rows || info.padded_cols < call.cols)
    problem = "a padded shape smaller than the matrix";
  else if (!call.forces_plan() &&
           static_cast<double>(padded - matrix) > 0.005 * static_cast<double>(matrix))
    problem = "more than 0.5% padding";
  else if (info.borrowed_bytes > (padded - matrix) * call.elem_size ||
           info.borrowed_bytes > lendable)
    problem = "more borrowed bytes than the padding or max_bytes allows";
  else if (std::memchr(info.description, '\0', sizeof info.description) == nullptr)
    problem = "a description without its NUL";
  if (problem != nullptr) fail(std::string("ipt_plan: ") + problem + "\n  call: " + text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const ApiCall call = decode_call(in);
  const std::string text = describe(call);
  trace(text);
  // The buffer's bytes depend on the input alone, so that a replay sees the same.
  const std::uint64_t seed =
      std::hash<std::string_view>{}({reinterpret_cast<const char*>(data), size});
  switch (call.function) {
    case Function::kPaddedSize:
      run_padded_size(call, text);
      break;
    case Function::kPlan:
      run_plan(call, text);
      break;
    case Function::kImatcopy:
      run_imatcopy(call, seed, text);
      break;
    default:
      run_transposition(call, seed, text);
  }
  return 0;
}
