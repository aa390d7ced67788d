// SPDX-License-Identifier: Apache-2.0
// Every kind of bad input returns its own documented status and leaves the whole buffer
// byte-for-byte unchanged (read back and compared after each call).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "helpers/test_skip.hpp"
#include "helpers/test_support.hpp"
#include "support/random_data.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::ScopedEnv;
using ipt::test::session;

namespace {

constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();

// Calls ipt_transpose on a fresh 32x32 f32 matrix (offset 4, 16 guard bytes) with the
// given arguments swapped in, and checks status, message and buffer.
struct Call {
  cl_command_queue queue;
  cl_mem buffer;
  std::size_t offset = 4, rows = 32, cols = 32, elem_size = 4;
  cl_uint num_events = 0;
  const cl_event* events = nullptr;
};

void expect_rejected(const GuardedMatrix& m, const Call& call, ipt_status expected) {
  cl_event event = nullptr;
  const ipt_status status =
      ipt_transpose(call.queue, call.buffer, call.offset, call.rows, call.cols, call.num_events,
                    call.events, &event, call.elem_size);
  INFO("status " << status << ": " << ipt_status_string(status) << " / "
                 << ipt_last_error_message());
  CHECK(status == expected);
  CHECK(event == nullptr);
  CHECK(std::strlen(ipt_last_error_message()) > 0);
  CHECK(clFinish(session().queue()) == CL_SUCCESS);
  CHECK(m.check_unchanged() == "");
}

Call good_call(const GuardedMatrix& m) {
  Call call;
  call.queue = session().queue();
  call.buffer = m.buffer();
  return call;
}

// Calls every entry point that takes a cl_mem on m's buffer (offset 4, 32 x 32 elements)
// and checks that each returns `expected` with no event, a message and the buffer
// byte-for-byte unchanged. The buffer is checked before any size, so the f64 and complex
// calls (larger elements, which the buffer is too small for) fail on the buffer too.
void expect_every_entry_point_rejects(const GuardedMatrix& m, ipt_status expected,
                                      const char* in_message) {
  const cl_command_queue q = session().queue();
  const cl_mem b = m.buffer();
  const float alpha = 1.0f;
  const ipt_complex_f32 c1{1.0f, 0.0f};
  const ipt_complex_f64 z1{1.0, 0.0};
  const ipt_plan_options options{};
  const std::pair<const char*, std::function<ipt_status(cl_event*)>> calls[] = {
      {"ipt_transpose",
       [&](cl_event* e) { return ipt_transpose(q, b, 4, 32, 32, 0, nullptr, e, 4); }},
      {"ipt_transpose_f32",
       [&](cl_event* e) { return ipt_transpose_f32(q, b, 4, 32, 32, 0, nullptr, e); }},
      {"ipt_transpose_f64",
       [&](cl_event* e) { return ipt_transpose_f64(q, b, 4, 32, 32, 0, nullptr, e); }},
      {"ipt_transpose_batched",
       [&](cl_event* e) { return ipt_transpose_batched(q, b, 4, 2, 16, 32, 0, nullptr, e, 4); }},
      {"ipt_transpose_batched_f32",
       [&](cl_event* e) { return ipt_transpose_batched_f32(q, b, 4, 2, 16, 32, 0, nullptr, e); }},
      {"ipt_transpose_batched_f64",
       [&](cl_event* e) { return ipt_transpose_batched_f64(q, b, 4, 2, 16, 32, 0, nullptr, e); }},
      {"ipt_transpose_with_options",
       [&](cl_event* e) {
         return ipt_transpose_with_options(q, b, 4, 32, 32, 4, &options, 0, nullptr, e);
       }},
      {"ipt_imatcopy",
       [&](cl_event* e) {
         return ipt_imatcopy(q, 'R', 'T', 32, 32, &alpha, b, 4, 32, 32, 0, nullptr, e, 4,
                             IPT_SCALAR_F32);
       }},
      {"ipt_simatcopy",
       [&](cl_event* e) {
         return ipt_simatcopy(q, 'R', 'T', 32, 32, 1.0f, b, 4, 32, 32, 0, nullptr, e);
       }},
      {"ipt_dimatcopy",
       [&](cl_event* e) {
         return ipt_dimatcopy(q, 'R', 'T', 32, 32, 1.0, b, 4, 32, 32, 0, nullptr, e);
       }},
      {"ipt_cimatcopy",
       [&](cl_event* e) {
         return ipt_cimatcopy(q, 'R', 'T', 32, 32, c1, b, 4, 32, 32, 0, nullptr, e);
       }},
      {"ipt_zimatcopy",
       [&](cl_event* e) {
         return ipt_zimatcopy(q, 'R', 'T', 32, 32, z1, b, 4, 32, 32, 0, nullptr, e);
       }},
  };
  for (const auto& [name, call] : calls) {
    INFO(name);
    cl_event event = nullptr;
    const ipt_status status = call(&event);
    INFO("status " << status << ": " << ipt_status_string(status) << " / "
                   << ipt_last_error_message());
    CHECK(status == expected);
    CHECK(event == nullptr);
    CHECK(std::string(ipt_last_error_message()).find(in_message) != std::string::npos);
    CHECK(clFinish(q) == CL_SUCCESS);
    CHECK(m.check_unchanged() == "");
  }
}

}  // namespace

TEST_CASE("NULL or invalid queue and buffer are rejected", "[bad_input]") {
  GuardedMatrix m(32, 32, 4, 4, 16, 1);
  Call call = good_call(m);
  call.queue = nullptr;
  expect_rejected(m, call, IPT_INVALID_COMMAND_QUEUE);
  call = good_call(m);
  call.buffer = nullptr;
  expect_rejected(m, call, IPT_INVALID_MEM_OBJECT);
  // Zero-sized shapes still validate their handles.
  call = good_call(m);
  call.rows = 0;
  call.queue = nullptr;
  expect_rejected(m, call, IPT_INVALID_COMMAND_QUEUE);
  call = good_call(m);
  call.cols = 0;
  call.buffer = nullptr;
  expect_rejected(m, call, IPT_INVALID_MEM_OBJECT);
}

TEST_CASE("a read-only buffer is rejected", "[bad_input]") {
  GuardedMatrix m(32, 32, 4, 4, 16, 2, CL_MEM_READ_ONLY);
  expect_rejected(m, good_call(m), IPT_INVALID_MEM_OBJECT);
}

TEST_CASE("a buffer that kernels may not both read and write is rejected by every entry point",
          "[bad_input]") {
  // Kernels read and write the buffer: OpenCL leaves writing a CL_MEM_READ_ONLY buffer and
  // reading a CL_MEM_WRITE_ONLY one undefined.
  GuardedMatrix read_only(32, 32, 4, 4, 16, 15, CL_MEM_READ_ONLY);
  expect_every_entry_point_rejects(read_only, IPT_INVALID_MEM_OBJECT, "CL_MEM_READ_ONLY");
  GuardedMatrix write_only(32, 32, 4, 4, 16, 16, CL_MEM_WRITE_ONLY);
  expect_every_entry_point_rejects(write_only, IPT_INVALID_MEM_OBJECT, "CL_MEM_WRITE_ONLY");
  // Also for the quick-return shapes, which check their handles all the same.
  Call call = good_call(write_only);
  call.rows = 0;
  expect_rejected(write_only, call, IPT_INVALID_MEM_OBJECT);
}

TEST_CASE("buffers whose host access is restricted are transposed: only device access counts",
          "[bad_input]") {
  // CL_MEM_HOST_* restrict clEnqueueReadBuffer, WriteBuffer and MapBuffer, which the
  // library never calls on the caller's buffer: its kernels read and write it. The
  // result is read through a copy, as the host may not read some of these buffers.
  for (const cl_mem_flags host :
       {CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_NO_ACCESS}) {
    CAPTURE(host);
    GuardedMatrix m(32, 24, 4, 4, 16, 17, CL_MEM_READ_WRITE | host);
    const std::size_t bytes = (4 + 32 * 24) * 4 + 16;
    cl_int code = CL_SUCCESS;
    cl_mem copy = clCreateBuffer(session().context(), CL_MEM_READ_WRITE, bytes, nullptr, &code);
    REQUIRE(code == CL_SUCCESS);
    CHECK(ipt_transpose_f32(session().queue(), m.buffer(), 4, 32, 24, 0, nullptr, nullptr) ==
          IPT_SUCCESS);
    std::vector<unsigned char> now(bytes);
    CHECK(clEnqueueCopyBuffer(session().queue(), m.buffer(), copy, 0, 0, bytes, 0, nullptr,
                              nullptr) == CL_SUCCESS);
    CHECK(clEnqueueReadBuffer(session().queue(), copy, CL_TRUE, 0, bytes, now.data(), 0, nullptr,
                              nullptr) == CL_SUCCESS);
    CHECK(m.check_transposed(now) == "");
    clReleaseMemObject(copy);
  }
}

TEST_CASE("a buffer of another context is rejected", "[bad_input]") {
  GuardedMatrix m(32, 32, 4, 4, 16, 3);
  ipt::support::Session other;
  Call call = good_call(m);
  call.queue = other.queue();
  expect_rejected(m, call, IPT_INVALID_CONTEXT);
  // The other way round: the session's queue, a buffer of the other context (whose bytes
  // must stay as they were too).
  const auto foreign_bytes = ipt::support::random_bytes(32 * 32 * 4 + 32, 33);
  cl_int code = CL_SUCCESS;
  cl_mem foreign =
      clCreateBuffer(other.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                     foreign_bytes.size(), const_cast<unsigned char*>(foreign_bytes.data()), &code);
  REQUIRE(code == CL_SUCCESS);
  call = good_call(m);
  call.buffer = foreign;
  expect_rejected(m, call, IPT_INVALID_CONTEXT);
  std::vector<unsigned char> now(foreign_bytes.size());
  REQUIRE(clEnqueueReadBuffer(other.queue(), foreign, CL_TRUE, 0, now.size(), now.data(), 0,
                              nullptr, nullptr) == CL_SUCCESS);
  CHECK(now == foreign_bytes);
  clReleaseMemObject(foreign);
}

TEST_CASE("an image is not a buffer", "[bad_input]") {
  GuardedMatrix m(32, 32, 4, 4, 16, 11);
  cl_bool images = CL_FALSE;
  REQUIRE(clGetDeviceInfo(session().device(), CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images,
                          nullptr) == CL_SUCCESS);
  if (images != CL_TRUE) IPT_SKIP("the device reports no image support");
  // 8 x 4 RGBA pixels of 4 bytes: 128 bytes, as many as the 4 x 8 matrix of 4-byte
  // elements asked for, so only the object's type can refuse it.
  const cl_image_format format{CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 8;
  desc.image_height = 4;
  const auto pixels = ipt::support::random_bytes(8 * 4 * 4, 12);
  cl_int code = CL_SUCCESS;
  cl_mem image = clCreateImage(session().context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               &format, &desc, const_cast<unsigned char*>(pixels.data()), &code);
  REQUIRE(code == CL_SUCCESS);
  Call call = good_call(m);
  call.buffer = image;
  call.offset = 0;
  call.rows = 4;
  call.cols = 8;
  expect_rejected(m, call, IPT_INVALID_MEM_OBJECT);
  CHECK(std::string(ipt_last_error_message()).find("not a buffer") != std::string::npos);
  std::vector<unsigned char> now(pixels.size());
  const std::size_t origin[3] = {0, 0, 0}, region[3] = {8, 4, 1};
  REQUIRE(clEnqueueReadImage(session().queue(), image, CL_TRUE, origin, region, 0, 0, now.data(), 0,
                             nullptr, nullptr) == CL_SUCCESS);
  CHECK(now == pixels);
  clReleaseMemObject(image);
}

TEST_CASE("sub-buffers are checked as the buffers they are", "[bad_input]") {
  // The matrix in a sub-buffer of a larger parent: the sub-buffer's own flags and size
  // count, not the parent's. The whole parent must stay as it was.
  cl_uint align_bits = 0;
  REQUIRE(clGetDeviceInfo(session().device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits,
                          &align_bits, nullptr) == CL_SUCCESS);
  const std::size_t origin = std::max<std::size_t>(align_bits / 8, 16);
  const std::size_t matrix = 32 * 32 * 4;
  GuardedMatrix parent(1, (origin + matrix + 256) / 4, 4, 0, 0, 13);
  auto sub_buffer = [&](cl_mem_flags flags, std::size_t bytes) {
    cl_buffer_region region{origin, bytes};
    cl_int code = CL_SUCCESS;
    cl_mem sub =
        clCreateSubBuffer(parent.buffer(), flags, CL_BUFFER_CREATE_TYPE_REGION, &region, &code);
    REQUIRE(code == CL_SUCCESS);
    return sub;
  };
  Call call = good_call(parent);
  call.offset = 0;
  // Read-only, of a writable parent: kernels may not write it.
  call.buffer = sub_buffer(CL_MEM_READ_ONLY, matrix);
  expect_rejected(parent, call, IPT_INVALID_MEM_OBJECT);
  clReleaseMemObject(call.buffer);
  // Write-only, of a writable parent: kernels may not read it.
  call.buffer = sub_buffer(CL_MEM_WRITE_ONLY, matrix);
  expect_rejected(parent, call, IPT_INVALID_MEM_OBJECT);
  clReleaseMemObject(call.buffer);
  // One element short of the matrix, though the parent has room after it.
  call.buffer = sub_buffer(CL_MEM_READ_WRITE, matrix - 4);
  expect_rejected(parent, call, IPT_BUFFER_TOO_SMALL);
  clReleaseMemObject(call.buffer);
}

// A handle of another kind where a cl_mem or a queue belongs. OpenCL defines these
// (CL_INVALID_MEM_OBJECT, CL_INVALID_COMMAND_QUEUE), but a runtime that keeps no object
// kind (PoCL 3.1 answers clGetMemObjectInfo on a command queue with CL_SUCCESS and a field
// of the queue) cannot tell, and then neither can the library, which asks the runtime
// (src/api/validate.cpp): passing such a handle on would have the library read the queue
// as a buffer. So the runtime is asked first; each probe is checked to tell a real handle
// of its kind from NULL, and a case the runtime cannot identify is skipped, counted, with
// the runtime named.
namespace {

bool runtime_takes_as_mem(void* handle) {
  cl_mem_object_type type = 0;
  return clGetMemObjectInfo(static_cast<cl_mem>(handle), CL_MEM_TYPE, sizeof type, &type,
                            nullptr) == CL_SUCCESS;
}

bool runtime_takes_as_queue(void* handle) {
  cl_context context = nullptr;
  return clGetCommandQueueInfo(static_cast<cl_command_queue>(handle), CL_QUEUE_CONTEXT,
                               sizeof context, &context, nullptr) == CL_SUCCESS;
}

std::string unidentified(const char* what, const char* where, const char* call) {
  return std::string("the OpenCL runtime (") + session().description() + ") does not identify " +
         what + " passed as " + where + " (" + call +
         " accepts it), so the library, which asks the runtime, cannot either";
}

// Checks that `handle`, of another kind, is rejected where a cl_mem belongs, unless the
// runtime cannot tell (then the test case skips).
#define IPT_CHECK_WRONG_MEM(handle, what)                                         \
  do {                                                                            \
    void* const wrong = (handle);                                                 \
    GuardedMatrix m(32, 32, 4, 4, 16, 14);                                        \
    /* The probe tells a real buffer from NULL: a skip is the runtime's doing. */ \
    REQUIRE(runtime_takes_as_mem(m.buffer()));                                    \
    REQUIRE_FALSE(runtime_takes_as_mem(nullptr));                                 \
    if (runtime_takes_as_mem(wrong))                                              \
      IPT_SKIP(unidentified(what, "a cl_mem", "clGetMemObjectInfo"));             \
    Call call = good_call(m);                                                     \
    call.buffer = static_cast<cl_mem>(wrong);                                     \
    expect_rejected(m, call, IPT_INVALID_MEM_OBJECT);                             \
  } while (false)

}  // namespace

TEST_CASE("a command queue where a cl_mem belongs is rejected", "[bad_input]") {
  IPT_CHECK_WRONG_MEM(session().queue(), "a command queue");
}

TEST_CASE("a context where a cl_mem belongs is rejected", "[bad_input]") {
  IPT_CHECK_WRONG_MEM(session().context(), "a context");
}

TEST_CASE("a cl_mem where a command queue belongs is rejected", "[bad_input]") {
  GuardedMatrix m(32, 32, 4, 4, 16, 14);
  REQUIRE(runtime_takes_as_queue(session().queue()));
  REQUIRE_FALSE(runtime_takes_as_queue(nullptr));
  if (runtime_takes_as_queue(m.buffer()))
    IPT_SKIP(unidentified("a cl_mem", "a command queue", "clGetCommandQueueInfo"));
  Call call = good_call(m);
  call.queue = reinterpret_cast<cl_command_queue>(m.buffer());
  expect_rejected(m, call, IPT_INVALID_COMMAND_QUEUE);
}

TEST_CASE("size overflow is rejected", "[bad_input]") {
  GuardedMatrix m(32, 32, 4, 4, 16, 4);
  Call call = good_call(m);
  call.rows = kMax / 2;
  call.cols = 3;
  expect_rejected(m, call, IPT_SIZE_OVERFLOW);
  call = good_call(m);
  call.rows = std::size_t{1} << 32;
  call.cols = std::size_t{1} << 32;
  expect_rejected(m, call, IPT_SIZE_OVERFLOW);
  call = good_call(m);
  call.rows = std::size_t{1} << 31;
  call.cols = std::size_t{1} << 31;  // the element count fits, the byte count does not
  expect_rejected(m, call, IPT_SIZE_OVERFLOW);
  call = good_call(m);
  call.offset = kMax / 2;
  expect_rejected(m, call, IPT_SIZE_OVERFLOW);
  call = good_call(m);
  call.offset = kMax / 4 - 100;  // offset bytes fit, offset + matrix does not
  expect_rejected(m, call, IPT_SIZE_OVERFLOW);
}

TEST_CASE("a matrix reaching past the buffer is rejected", "[bad_input]") {
  GuardedMatrix m(32, 32, 4, 4, 16, 5);  // 4 + 1024 + 4 elements
  Call call = good_call(m);
  call.offset = 9;  // ends one element past the end
  expect_rejected(m, call, IPT_BUFFER_TOO_SMALL);
  call = good_call(m);
  call.rows = call.cols = 33;
  expect_rejected(m, call, IPT_BUFFER_TOO_SMALL);
  call = good_call(m);
  call.rows = 0;
  call.offset = 2000;  // even a no-op may not start past the end
  expect_rejected(m, call, IPT_BUFFER_TOO_SMALL);
}

TEST_CASE("unsupported element sizes are rejected", "[bad_input]") {
  GuardedMatrix m(32, 32, 4, 4, 16, 6);
  for (std::size_t elem_size : {0, 3, 5, 6, 7, 12, 32}) {
    Call call = good_call(m);
    call.elem_size = elem_size;
    expect_rejected(m, call, IPT_INVALID_ELEMENT_SIZE);
  }
}

TEST_CASE("inconsistent event wait lists are rejected", "[bad_input]") {
  GuardedMatrix m(32, 32, 4, 4, 16, 7);
  cl_int code = CL_SUCCESS;
  cl_event user = clCreateUserEvent(session().context(), &code);
  REQUIRE(code == CL_SUCCESS);
  Call call = good_call(m);
  call.num_events = 1;
  expect_rejected(m, call, IPT_INVALID_EVENT_WAIT_LIST);
  call = good_call(m);
  call.events = &user;
  expect_rejected(m, call, IPT_INVALID_EVENT_WAIT_LIST);
  cl_event null_event = nullptr;
  call = good_call(m);
  call.num_events = 1;
  call.events = &null_event;
  expect_rejected(m, call, IPT_INVALID_EVENT_WAIT_LIST);
  // An event of another context.
  ipt::support::Session other;
  cl_event foreign = clCreateUserEvent(other.context(), &code);
  REQUIRE(code == CL_SUCCESS);
  call = good_call(m);
  call.num_events = 1;
  call.events = &foreign;
  expect_rejected(m, call, IPT_INVALID_CONTEXT);
  clSetUserEventStatus(foreign, CL_COMPLETE);
  clReleaseEvent(foreign);
  clSetUserEventStatus(user, CL_COMPLETE);
  clReleaseEvent(user);
}

TEST_CASE("an event of the wait list that has already failed is refused", "[bad_input]") {
  // A command that waits for a failed event never runs, and its own event would never
  // complete normally: the call refuses such a list before it enqueues anything. (A call
  // that accepted it would leave commands on the queue that never complete; REQUIRE ends
  // the test there rather than wait for them.)
  GuardedMatrix m(32, 32, 4, 4, 16, 18);
  cl_int code = CL_SUCCESS;
  cl_event failed = clCreateUserEvent(session().context(), &code);
  REQUIRE(code == CL_SUCCESS);
  cl_event complete = clCreateUserEvent(session().context(), &code);
  REQUIRE(code == CL_SUCCESS);
  REQUIRE(clSetUserEventStatus(failed, -42) == CL_SUCCESS);
  REQUIRE(clSetUserEventStatus(complete, CL_COMPLETE) == CL_SUCCESS);
  const cl_event second[] = {complete, failed};
  const auto refused = [&](const char* what, const std::function<ipt_status(cl_event*)>& call,
                           const char* in_message) {
    INFO(what);
    cl_event event = nullptr;
    const ipt_status status = call(&event);
    INFO("status " << status << ": " << ipt_last_error_message());
    REQUIRE(status == IPT_INVALID_EVENT_WAIT_LIST);
    CHECK(event == nullptr);
    CHECK(std::string(ipt_last_error_message()).find(in_message) != std::string::npos);
    CHECK(clFinish(session().queue()) == CL_SUCCESS);
    CHECK(m.check_unchanged() == "");
  };
  const cl_command_queue q = session().queue();
  const cl_mem b = m.buffer();
  refused(
      "alone", [&](cl_event* e) { return ipt_transpose(q, b, 4, 32, 32, 1, &failed, e, 4); },
      "event_wait_list[0] has already failed (execution status -42)");
  refused(
      "after a completed one",
      [&](cl_event* e) { return ipt_transpose(q, b, 4, 32, 32, 2, second, e, 4); },
      "event_wait_list[1] has already failed");
  // A quick return would give an event that fails too.
  refused(
      "a quick return", [&](cl_event* e) { return ipt_transpose(q, b, 4, 0, 32, 2, second, e, 4); },
      "event_wait_list[1] has already failed");
  refused(
      "imatcopy",
      [&](cl_event* e) {
        return ipt_simatcopy(q, 'R', 'T', 32, 32, 1.0f, b, 4, 32, 32, 2, second, e);
      },
      "event_wait_list[1] has already failed");
  // Completed events alone are fine.
  CHECK(ipt_transpose(q, b, 4, 32, 32, 1, &complete, nullptr, 4) == IPT_SUCCESS);
  CHECK(clFinish(q) == CL_SUCCESS);
  CHECK(m.check_transposed() == "");
  clReleaseEvent(failed);
  clReleaseEvent(complete);
}

TEST_CASE("f64 on a device without double support is rejected", "[bad_input]") {
  ScopedEnv no_fp64("IPT_OVERRIDES", "fp64=0");
  GuardedMatrix m(32, 32, 8, 4, 16, 8);
  cl_event event = nullptr;
  CHECK(ipt_transpose_f64(session().queue(), m.buffer(), 4, 32, 32, 0, nullptr, &event) ==
        IPT_FP64_NOT_SUPPORTED);
  CHECK(event == nullptr);
  CHECK(m.check_unchanged() == "");
  // Moving 8-byte elements needs no double arithmetic: the generic call still works.
  CHECK(ipt_transpose(session().queue(), m.buffer(), 4, 32, 32, 0, nullptr, nullptr, 8) ==
        IPT_SUCCESS);
  CHECK(m.check_transposed() == "");
}

TEST_CASE("a malformed IPT_OVERRIDES is reported, not ignored", "[bad_input]") {
  ScopedEnv bad("IPT_OVERRIDES", "local_memory=1");
  GuardedMatrix m(32, 32, 4, 4, 16, 9);
  CHECK(ipt_transpose_f64(session().queue(), m.buffer(), 4, 16, 16, 0, nullptr, nullptr) ==
        IPT_INVALID_VALUE);
  CHECK(std::string(ipt_last_error_message()).find("local_memory") != std::string::npos);
  CHECK(m.check_unchanged() == "");
}

TEST_CASE("rectangular shapes are validated like square ones", "[bad_input][rectangular]") {
  GuardedMatrix m(32, 32, 4, 4, 16, 10);  // 4 + 1024 + 4 elements
  Call call = good_call(m);
  call.rows = 31;
  call.cols = 34;  // 1054 elements from offset 4: past the end
  expect_rejected(m, call, IPT_BUFFER_TOO_SMALL);
  call = good_call(m);
  call.rows = 2;
  call.cols = 3;
  call.elem_size = 12;
  expect_rejected(m, call, IPT_INVALID_ELEMENT_SIZE);
  call = good_call(m);
  call.rows = 3;
  call.cols = 5;
  call.queue = nullptr;
  expect_rejected(m, call, IPT_INVALID_COMMAND_QUEUE);
}

TEST_CASE("ipt_padded_size validates its arguments", "[bad_input]") {
  std::size_t bytes = 0;
  CHECK(ipt_padded_size(session().device(), 100, 100, 4, &bytes) == IPT_SUCCESS);
  CHECK(bytes == 40000);
  CHECK(ipt_padded_size(session().device(), 0, 100, 8, &bytes) == IPT_SUCCESS);
  CHECK(bytes == 0);
  CHECK(ipt_padded_size(nullptr, 100, 100, 4, &bytes) == IPT_INVALID_DEVICE);
  CHECK(ipt_padded_size(session().device(), 100, 100, 4, nullptr) == IPT_INVALID_VALUE);
  CHECK(ipt_padded_size(session().device(), 100, 100, 3, &bytes) == IPT_INVALID_ELEMENT_SIZE);
  CHECK(ipt_padded_size(session().device(), kMax / 2, 4, 1, &bytes) == IPT_SIZE_OVERFLOW);
}

TEST_CASE("a matrix larger than one allocation of the device is refused, not planned",
          "[bad_input]") {
  cl_ulong max_alloc = 0;
  REQUIRE(clGetDeviceInfo(session().device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc,
                          &max_alloc, nullptr) == CL_SUCCESS);
  // A prime number of rows just past what one allocation holds: planning it would search
  // factors of a side of up to 2^60 elements.
  const std::size_t rows = static_cast<std::size_t>(max_alloc / 4 + 1);
  std::size_t bytes = 0;
  CHECK(ipt_padded_size(session().device(), rows, 4, 1, &bytes) == IPT_MATRIX_TOO_LARGE);
  // The message names the matrix's bytes and the device's largest allocation.
  const std::string message = ipt_last_error_message();
  CHECK(message.find("larger than one allocation") != std::string::npos);
  CHECK(message.find("(" + std::to_string(rows * 4) + " bytes") != std::string::npos);
  CHECK(message.find("(" + std::to_string(max_alloc) + " bytes") != std::string::npos);
  ipt_plan_info info{};
  CHECK(ipt_plan(session().device(), rows, 4, 1, nullptr, &info) == IPT_MATRIX_TOO_LARGE);
  // The largest square one allocation holds: its padded size never asks for more.
  auto side = static_cast<std::size_t>(std::sqrt(static_cast<double>(max_alloc / 4)));
  while (side * side * 4 > max_alloc) --side;
  while ((side + 1) * (side + 1) * 4 <= max_alloc) ++side;
  CHECK(ipt_padded_size(session().device(), side, side - 1, 4, &bytes) == IPT_SUCCESS);
  CHECK(bytes <= max_alloc);
  CHECK(bytes >= side * (side - 1) * 4);
}

TEST_CASE("status strings are distinct and the last error is per call", "[api]") {
  const ipt_status all[] = {IPT_SUCCESS,
                            IPT_OUT_OF_RESOURCES,
                            IPT_OUT_OF_HOST_MEMORY,
                            IPT_BUILD_PROGRAM_FAILURE,
                            IPT_INVALID_VALUE,
                            IPT_INVALID_DEVICE,
                            IPT_INVALID_CONTEXT,
                            IPT_INVALID_COMMAND_QUEUE,
                            IPT_INVALID_MEM_OBJECT,
                            IPT_INVALID_EVENT_WAIT_LIST,
                            IPT_INVALID_ELEMENT_SIZE,
                            IPT_SIZE_OVERFLOW,
                            IPT_BUFFER_TOO_SMALL,
                            IPT_FP64_NOT_SUPPORTED,
                            IPT_MATRIX_TOO_LARGE,
                            IPT_ROLLED_BACK,
                            IPT_BUFFER_UNDEFINED,
                            IPT_EXTERNAL_MEMORY_UNSUPPORTED,
                            IPT_INTERNAL_ERROR};
  std::set<std::string> names;
  for (ipt_status status : all) names.insert(ipt_status_string(status));
  CHECK(names.size() == std::size(all));
  CHECK(std::string(ipt_status_string(static_cast<ipt_status>(-1500))) == "unknown ipt_status");
  CHECK(std::string(ipt_status_string(static_cast<ipt_status>(-52))).find("OpenCL") == 0);

  CHECK(ipt_transpose_f32(nullptr, nullptr, 0, 1, 1, 0, nullptr, nullptr) ==
        IPT_INVALID_COMMAND_QUEUE);
  CHECK(std::string(ipt_last_error_message()).find("ipt_transpose_f32") == 0);
  std::size_t bytes = 0;
  CHECK(ipt_padded_size(session().device(), 2, 2, 4, &bytes) == IPT_SUCCESS);
  CHECK(std::string(ipt_last_error_message()).empty());
  CHECK(ipt_version() == IPT_VERSION);
  CHECK(std::string(ipt_version_string()) == "1.0.0");
}

TEST_CASE("a matrix past one allocation is transposed where its buffer holds it", "[bad_input]") {
  // Drivers such as NVIDIA's allocate buffers past the CL_DEVICE_MAX_MEM_ALLOC_SIZE they
  // report; a matrix in such a buffer is transposed, up to 4 allocations (the most device
  // memory OpenCL allows for), while a plan without a buffer is refused. IPT_OVERRIDES
  // lowers the limit to 256 KiB here, under a 614 KB matrix.
  {
    ScopedEnv small("IPT_OVERRIDES", "max_alloc=262144");
    ipt_plan_info info{};
    CHECK(ipt_plan(session().device(), 401, 383, 4, nullptr, &info) == IPT_MATRIX_TOO_LARGE);
    // ipt_plan told of a buffer that holds the matrix plans as the call does, whatever
    // the element size (SIZE_MAX bytes of 1-byte elements once read as no buffer).
    ipt_plan_options room{};
    for (const std::size_t max_bytes : {std::size_t{401} * 383 * 4, ~std::size_t{0}}) {
      room.max_bytes = max_bytes;
      CHECK(ipt_plan(session().device(), 401, 383, 4, &room, &info) == IPT_SUCCESS);
      CHECK(ipt_plan(session().device(), 401, 383 * 4, 1, &room, &info) == IPT_SUCCESS);
    }
    room.max_bytes = std::size_t{401} * 383 * 4 - 1;  // a buffer short of the matrix
    CHECK(ipt_plan(session().device(), 401, 383, 4, &room, &info) == IPT_MATRIX_TOO_LARGE);
    CHECK(ipt::test::transpose_through_api(401, 383, 4, 3, 64, 401) == "");
    CHECK(ipt::test::transpose_through_api(383, 401, 2, 0, 16, 402) == "");
  }
  // Past 4 allocations: refused, the buffer untouched.
  ScopedEnv smaller("IPT_OVERRIDES", "max_alloc=131072");
  const std::size_t rows = 1031, cols = 257, bytes = rows * cols * 4;  // 8 allocations
  const std::vector<unsigned char> data = ipt::support::random_bytes(bytes, 403);
  cl_int code = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(session().context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 bytes, const_cast<unsigned char*>(data.data()), &code);
  REQUIRE(code == CL_SUCCESS);
  CHECK(ipt_transpose_f32(session().queue(), buffer, 0, rows, cols, 0, nullptr, nullptr) ==
        IPT_MATRIX_TOO_LARGE);
  CHECK(std::string(ipt_last_error_message()).find("times 4 for a buffer that holds it") !=
        std::string::npos);
  std::vector<unsigned char> after(bytes);
  clEnqueueReadBuffer(session().queue(), buffer, CL_TRUE, 0, bytes, after.data(), 0, nullptr,
                      nullptr);
  CHECK(after == data);
  clReleaseMemObject(buffer);
}
