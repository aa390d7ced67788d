// SPDX-License-Identifier: Apache-2.0
// The asynchronous contract: the wait list gates the first kernel, the returned event
// completes after the last one, a NULL event pointer is accepted, and the call returns
// without waiting for the device.
#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <utility>

#include "helpers/test_skip.hpp"
#include "helpers/test_support.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::session;

namespace {

cl_int execution_status(cl_event event) {
  cl_int status = 0;
  REQUIRE(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
                         nullptr) == CL_SUCCESS);
  return status;
}

// Reads the buffer through a second queue, which the gated work does not block.
std::vector<unsigned char> read_on_side_queue(const GuardedMatrix& m) {
  cl_int code = CL_SUCCESS;
  cl_command_queue side = clCreateCommandQueue(session().context(), session().device(), 0, &code);
  REQUIRE(code == CL_SUCCESS);
  std::vector<unsigned char> bytes(m.initial().size());
  REQUIRE(clEnqueueReadBuffer(side, m.buffer(), CL_TRUE, 0, bytes.size(), bytes.data(), 0, nullptr,
                              nullptr) == CL_SUCCESS);
  clReleaseCommandQueue(side);
  return bytes;
}

}  // namespace

TEST_CASE("a call gated on an unsignalled user event returns at once and waits for it", "[async]") {
  for (std::size_t n : {1, 45, 300}) {
    GuardedMatrix m(n, n, 4, 3, 12, n);
    cl_int code = CL_SUCCESS;
    cl_event gate = clCreateUserEvent(session().context(), &code);
    REQUIRE(code == CL_SUCCESS);
    cl_event done = nullptr;
    REQUIRE(ipt_transpose_f32(session().queue(), m.buffer(), 3, n, n, 1, &gate, &done) ==
            IPT_SUCCESS);
    REQUIRE(done != nullptr);
    CHECK(execution_status(done) != CL_COMPLETE);
    CHECK(read_on_side_queue(m) == m.initial());  // nothing ran before the gate opened
    REQUIRE(clSetUserEventStatus(gate, CL_COMPLETE) == CL_SUCCESS);
    REQUIRE(clWaitForEvents(1, &done) == CL_SUCCESS);
    CHECK(execution_status(done) == CL_COMPLETE);
    CHECK(m.check_transposed() == "");
    clReleaseEvent(done);
    clReleaseEvent(gate);
  }
}

TEST_CASE("a call with scratch returns before its gate opens", "[async]") {
  // A plan with cycle-following flags, and a padded one (flags and the bytes padding
  // borrows): the scratch must outlive the call without the call waiting for the device.
  // NVIDIA's driver blocks in clReleaseMemObject until the buffer's commands complete,
  // so a call that released its scratch on return never returned while gated.
  ipt::test::ScopedEnv budget("IPT_OVERRIDES", "local_mem=49152");
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{300, 2000}, {301, 1999}}) {
    std::size_t padded = 0;
    REQUIRE(ipt_padded_size(session().device(), rows, cols, 4, &padded) == IPT_SUCCESS);
    GuardedMatrix m(rows, cols, 4, 5, padded - rows * cols * 4 + 64, rows + cols);
    cl_int code = CL_SUCCESS;
    cl_event gate = clCreateUserEvent(session().context(), &code);
    REQUIRE(code == CL_SUCCESS);
    cl_event done = nullptr;
    auto call = std::async(std::launch::async, [&] {
      return ipt_transpose_f32(session().queue(), m.buffer(), 5, rows, cols, 1, &gate, &done);
    });
    const bool returned = call.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
    if (!returned) clSetUserEventStatus(gate, CL_COMPLETE);  // let the call end, then fail
    REQUIRE(returned);
    REQUIRE(call.get() == IPT_SUCCESS);
    REQUIRE(done != nullptr);
    CHECK(execution_status(done) != CL_COMPLETE);
    REQUIRE(clSetUserEventStatus(gate, CL_COMPLETE) == CL_SUCCESS);
    REQUIRE(clWaitForEvents(1, &done) == CL_SUCCESS);
    CHECK(m.check_transposed() == "");
    clReleaseEvent(done);
    clReleaseEvent(gate);
  }
}

TEST_CASE("zero-sized shapes succeed and still return an event ordered after the wait list",
          "[async]") {
  GuardedMatrix m(8, 8, 4, 0, 8, 5);
  cl_int code = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(session().context(), &code);
  REQUIRE(code == CL_SUCCESS);
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{0, 0}, {0, 7}, {7, 0}}) {
    cl_event done = nullptr;
    REQUIRE(ipt_transpose_f32(session().queue(), m.buffer(), 0, rows, cols, 1, &gate, &done) ==
            IPT_SUCCESS);
    REQUIRE(done != nullptr);
    CHECK(execution_status(done) != CL_COMPLETE);
    clReleaseEvent(done);
  }
  REQUIRE(clSetUserEventStatus(gate, CL_COMPLETE) == CL_SUCCESS);
  cl_event done = nullptr;
  REQUIRE(ipt_transpose(session().queue(), m.buffer(), 0, 0, 5, 1, &gate, &done, 16) ==
          IPT_SUCCESS);
  REQUIRE(clWaitForEvents(1, &done) == CL_SUCCESS);
  clReleaseEvent(done);
  REQUIRE(ipt_transpose_f32(session().queue(), m.buffer(), 0, 0, 0, 0, nullptr, nullptr) ==
          IPT_SUCCESS);
  CHECK(m.check_unchanged() == "");
  clReleaseEvent(gate);
}

TEST_CASE("a NULL event pointer is accepted", "[async]") {
  GuardedMatrix m(64, 64, 8, 1, 8, 6);
  REQUIRE(ipt_transpose(session().queue(), m.buffer(), 1, 64, 64, 0, nullptr, nullptr, 8) ==
          IPT_SUCCESS);
  CHECK(m.check_transposed() == "");  // read_all is a blocking read on the same queue
}

TEST_CASE("calls chained by events on an out-of-order queue run in order", "[async]") {
  if (!ipt::test::out_of_order_queues()) IPT_SKIP("the device has no out-of-order queues");
  cl_int code = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue(session().context(), session().device(),
                                                CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &code);
  REQUIRE(code == CL_SUCCESS);
  GuardedMatrix m(200, 200, 4, 0, 4, 7);
  cl_event first = nullptr, second = nullptr, third = nullptr;
  REQUIRE(ipt_transpose_f32(queue, m.buffer(), 0, 200, 200, 0, nullptr, &first) == IPT_SUCCESS);
  REQUIRE(ipt_transpose_f32(queue, m.buffer(), 0, 200, 200, 1, &first, &second) == IPT_SUCCESS);
  REQUIRE(ipt_transpose_f32(queue, m.buffer(), 0, 200, 200, 1, &second, &third) == IPT_SUCCESS);
  REQUIRE(clWaitForEvents(1, &third) == CL_SUCCESS);
  CHECK(m.check_transposed() == "");  // three transposes = one
  for (cl_event e : {first, second, third}) clReleaseEvent(e);
  clReleaseCommandQueue(queue);
}

TEST_CASE("the returned event completes after every command of the call, whatever the plan",
          "[async]") {
  // A call gives an event only to its last command on an in-order queue (the others are
  // ordered by the queue): the event must still cover all of it. The result is read
  // through a side queue once the event alone has completed, so a command still running
  // after the event would show. Plans: three stages; padded columns (pad, stages, then
  // restoring the borrowed bytes); padded rows (unpad before the restore); square; a
  // near-square matrix padded to square; a two-stage plan with no padding.
  ipt::test::ScopedEnv budget("IPT_OVERRIDES", "local_mem=49152");
  std::vector<cl_command_queue_properties> kinds{0};
  if (ipt::test::out_of_order_queues()) kinds.push_back(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  for (const cl_command_queue_properties kind : kinds) {
    cl_int code = CL_SUCCESS;
    cl_command_queue queue =
        clCreateCommandQueue(session().context(), session().device(), kind, &code);
    REQUIRE(code == CL_SUCCESS);
    for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{300, 2000},
                                     {301, 1999},
                                     {1999, 301},
                                     {45, 45},
                                     {1001, 997},
                                     {2, 777}}) {
      CAPTURE(kind, rows, cols);
      std::size_t padded = 0;
      REQUIRE(ipt_padded_size(session().device(), rows, cols, 4, &padded) == IPT_SUCCESS);
      GuardedMatrix m(rows, cols, 4, 3, padded - rows * cols * 4 + 32, rows * 7 + cols);
      cl_event gate = clCreateUserEvent(session().context(), &code);
      REQUIRE(code == CL_SUCCESS);
      cl_event done = nullptr;
      REQUIRE(ipt_transpose_f32(queue, m.buffer(), 3, rows, cols, 1, &gate, &done) == IPT_SUCCESS);
      REQUIRE(done != nullptr);
      CHECK(execution_status(done) != CL_COMPLETE);
      CHECK(read_on_side_queue(m) == m.initial());
      REQUIRE(clSetUserEventStatus(gate, CL_COMPLETE) == CL_SUCCESS);
      REQUIRE(clWaitForEvents(1, &done) == CL_SUCCESS);
      CHECK(m.check_transposed(read_on_side_queue(m)) == "");
      clReleaseEvent(done);
      clReleaseEvent(gate);
    }
    REQUIRE(clFinish(queue) == CL_SUCCESS);
    clReleaseCommandQueue(queue);
  }
}

TEST_CASE("a wait-list event that fails after the call fails its event and leaves the matrix",
          "[async]") {
  // OpenCL leaves what happens to commands waiting for a failed event to the
  // implementation. NVIDIA's ends them and their successors with an error status; PoCL
  // aborts the process, so the case is checked where it is defined.
  if (session().description().find("NVIDIA") == std::string::npos)
    IPT_SKIP("checked on NVIDIA's OpenCL; others leave it undefined (PoCL aborts the process): "
             << session().description());
  struct Shape {
    std::size_t rows, cols;
  };
  // One kernel, a sequence of kernels with scratch, and padded (buffer fills between
  // kernels).
  for (const Shape s : {Shape{45, 45}, Shape{300, 211}, Shape{1009, 997}}) {
    INFO(s.rows << " x " << s.cols);
    GuardedMatrix m(s.rows, s.cols, 4, 3, 12, s.rows + s.cols);
    cl_int code = CL_SUCCESS;
    cl_event gate = clCreateUserEvent(session().context(), &code);
    REQUIRE(code == CL_SUCCESS);
    cl_event done = nullptr;
    REQUIRE(ipt_transpose_f32(session().queue(), m.buffer(), 3, s.rows, s.cols, 1, &gate, &done) ==
            IPT_SUCCESS);
    REQUIRE(done != nullptr);
    REQUIRE(clSetUserEventStatus(gate, -42) == CL_SUCCESS);
    CHECK(clWaitForEvents(1, &done) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    CHECK(execution_status(done) < 0);
    clFinish(session().queue());
    CHECK(m.check_unchanged() == "");  // no command of the call ran
    // The queue, the library's scratch and programs serve the next call.
    REQUIRE(ipt_transpose_f32(session().queue(), m.buffer(), 3, s.rows, s.cols, 0, nullptr,
                              nullptr) == IPT_SUCCESS);
    CHECK(m.check_transposed() == "");
    clReleaseEvent(done);
    clReleaseEvent(gate);
  }
}
