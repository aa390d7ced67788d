// SPDX-License-Identifier: Apache-2.0
// The header-only C++ layer (ipt/ipt.hpp) with the Khronos C++ bindings' types.
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <catch2/catch.hpp>
#include <complex>
#include <cstdint>
#include <future>
#include <ipt/ipt.hpp>
#include <vector>

#include "helpers/test_support.hpp"
#include "support/host_reference.hpp"
#include "support/imatcopy_reference.hpp"
#include "support/random_data.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::session;

namespace {
cl::CommandQueue queue() { return cl::CommandQueue(session().queue(), true); }
}  // namespace

TEST_CASE("ipt::transpose<T> for the usual element types", "[cpp]") {
  auto run = [](auto tag, std::size_t n) {
    using T = decltype(tag);
    GuardedMatrix m(n, n, sizeof(T), 3, 8, n * sizeof(T));
    const cl::Buffer buffer(m.buffer(), true);
    cl::Event done = ipt::transpose<T>(queue(), buffer, n, n, 3);
    done.wait();
    INFO("sizeof(T) = " << sizeof(T) << ", n = " << n);
    CHECK(m.check_transposed() == "");
  };
  for (std::size_t n : {1, 17, 130}) {
    run(std::uint8_t{}, n);
    run(std::int16_t{}, n);
    run(float{}, n);
    run(double{}, n);
    run(std::complex<float>{}, n);
    run(std::complex<double>{}, n);
  }
}

TEST_CASE("ipt::transpose waits for its event list and returns its event", "[cpp][async]") {
  GuardedMatrix m(64, 64, 4, 0, 4, 5);
  const cl::Buffer buffer(m.buffer(), true);
  cl::UserEvent gate(cl::Context(session().context(), true));
  cl::Event done = ipt::transpose<float>(queue(), buffer, 64, 64, 0, {gate});
  CHECK(done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE);
  gate.setStatus(CL_COMPLETE);
  done.wait();
  CHECK(m.check_transposed() == "");
}

TEST_CASE("ipt::error carries the status and the message", "[cpp][bad_input]") {
  GuardedMatrix m(16, 16, 4, 0, 4, 6);
  const cl::Buffer buffer(m.buffer(), true);
  try {
    ipt::transpose<float>(queue(), buffer, 16, 17);
    FAIL("no exception");
  } catch (const ipt::error& e) {
    CHECK(e.status() == IPT_BUFFER_TOO_SMALL);
    CHECK(std::string(e.what()).find("IPT_BUFFER_TOO_SMALL") == 0);
    CHECK(std::string(e.what()).find("buffer holds") != std::string::npos);
  }
  CHECK(m.check_unchanged() == "");
  const cl::Device device(session().device(), true);
  CHECK(ipt::padded_size<double>(device, 10, 20) == 1600);
  ipt::warmup<float>(cl::Context(session().context(), true), device);
  ipt::clear_cache();
  CHECK_THROWS_AS(ipt::padded_size<float>(cl::Device(), 1, 1), ipt::error);
}

TEST_CASE("the C++ binding warms up on a thread of its own while calls go on",
          "[api][cpp][warmup]") {
  using element = std::complex<double>;
  ipt::test::ScopedEnv no_disk_cache("IPT_CACHE_DISABLE", "1");  // the builds happen here
  ipt::clear_cache();
  const cl::Context context(session().context(), true);
  const cl::Device device(session().device(), true);
  std::future<void> warming = ipt::warmup_async<element>(context, device);
  GuardedMatrix m(300, 70, sizeof(element), 0, 9, 31);
  const cl::CommandQueue queue(session().queue(), true);
  ipt::transpose<element>(queue, cl::Buffer(m.buffer(), true), 300, 70).wait();
  CHECK(m.check_transposed() == "");
  warming.get();  // rethrows what the warm-up threw
  try {
    ipt::warmup_async<element>(cl::Context(), device).get();
    FAIL("no exception");
  } catch (const ipt::error& e) {
    CHECK(e.status() == IPT_INVALID_CONTEXT);
  }
  ipt::clear_cache();
}

TEST_CASE("the C++ binding transposes a batch", "[batched][api][cpp]") {
  GuardedMatrix m(6 * 30, 50, 4, 0, 12, 79);
  const cl::CommandQueue queue(session().queue(), /*retainObject=*/true);
  const cl::Buffer buffer(m.buffer(), /*retainObject=*/true);
  ipt::transpose_batched<float>(queue, buffer, 6, 30, 50).wait();
  const auto expected = ipt::support::permute_010(m.matrix_before(), 6, 30, 50, 4);
  CHECK(m.check_holds(expected) == "");
  CHECK_THROWS_AS(ipt::transpose_batched<float>(queue, buffer, 7, 30, 50), ipt::error);
  CHECK(m.check_holds(expected) == "");  // the failed call changed nothing
}

TEST_CASE("the C++ binding permutes a tensor", "[permute][api][cpp]") {
  GuardedMatrix m(4 * 5 * 6 * 7, 1, 8, 3, 12, 83);
  const cl::CommandQueue queue(session().queue(), /*retainObject=*/true);
  const cl::Buffer buffer(m.buffer(), /*retainObject=*/true);
  ipt::permute<double>(queue, buffer, {4, 5, 6, 7}, {2, 0, 3, 1}, 3).wait();
  const auto expected =
      ipt::support::permute_axes(m.matrix_before(), {4, 5, 6, 7}, {2, 0, 3, 1}, 8);
  CHECK(m.check_holds(expected) == "");
  CHECK_THROWS_AS(ipt::permute<double>(queue, buffer, {4, 5, 6, 7}, {2, 0, 3}, 3), ipt::error);
  CHECK_THROWS_AS(ipt::permute<double>(queue, buffer, {4, 5, 6, 8}, {2, 0, 3, 1}, 3), ipt::error);
  CHECK(m.check_holds(expected) == "");  // the failed calls changed nothing
}

TEST_CASE("the C++ binding runs imatcopy on complex elements", "[imatcopy][api][cpp]") {
  ipt::support::ImatcopyCall call;
  call.ordering = 'C';
  call.trans = 'C';
  call.rows = 19;
  call.cols = 11;
  call.lda = 21;  // column-major: at least rows
  call.ldb = 12;  // conj(A^T) is 11 x 19, columns of at least 11
  call.type = IPT_SCALAR_C64;
  call.elem_size = 16;
  call.has_alpha = true;
  call.alpha_re = 1.4142135623730951;   // sqrt(2) and -1/pi: full mantissas, so that
  call.alpha_im = -0.3183098861837907;  // the products round
  const std::size_t bytes = (call.extent() + 2) * 16;
  std::vector<unsigned char> before = ipt::support::random_bytes(bytes, 80);
  ipt::support::fill_numeric(call, 0, before, 81);
  const cl::Context context(session().context(), /*retainObject=*/true);
  const cl::CommandQueue queue(session().queue(), /*retainObject=*/true);
  cl::Buffer buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, before.data());
  ipt::imatcopy(queue, 'C', 'C', 19, 11, std::complex<double>(call.alpha_re, call.alpha_im), buffer,
                21, 12)
      .wait();
  std::vector<unsigned char> now(bytes);
  queue.enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, now.data());
  std::vector<bool> specified;
  const auto expected = ipt::support::imatcopy_expected(call, 0, before, specified);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < bytes; ++i) wrong += specified[i] && now[i] != expected[i];
  CHECK(wrong == 0);
  CHECK_THROWS_AS(ipt::imatcopy(queue, 'C', 'X', 19, 11, 2.0f, buffer, 21, 12), ipt::error);
}

TEST_CASE("the C++ binding transposes host matrices", "[host][api][cpp]") {
  std::vector<std::int32_t> m(37 * 53), expected(37 * 53);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<std::int32_t>(i * 2654435761u);
  for (std::size_t r = 0; r < 37; ++r)
    for (std::size_t c = 0; c < 53; ++c) expected[c * 37 + r] = m[r * 53 + c];
  const std::vector<std::int32_t> original = m;
  ipt::transpose_host(m.data(), 37, 53, 2);  // on the CPU
  CHECK(m == expected);
  const ipt_host_options device{IPT_HOST_DEVICE, 0, IPT_HOST_PIN_AUTO, 0};
  ipt::transpose_host(queue(), m.data(), 53, 37, &device);  // back, through the device
  CHECK(m == original);
  try {
    ipt::transpose_host(cl::CommandQueue(), m.data(), 53, 37, &device);
    FAIL("no queue for IPT_HOST_DEVICE was accepted");
  } catch (const ipt::error& e) {
    CHECK(e.status() == IPT_INVALID_COMMAND_QUEUE);
  }
  CHECK(m == original);
}
