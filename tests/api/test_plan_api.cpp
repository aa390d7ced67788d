// SPDX-License-Identifier: Apache-2.0
// ipt_plan and ipt_transpose_with_options: introspection of the plan, caller-adjusted
// plans that run correctly, and options that cannot work refused with the buffer intact.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <utility>

#include "helpers/test_support.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::ScopedEnv;
using ipt::test::session;

namespace {

ipt_plan_options opts(int sequence, std::size_t m, std::size_t n) {
  ipt_plan_options options{};
  std::memcpy(&options.sequence, &sequence, sizeof sequence);  // any int, as from C
  options.m = m;
  options.n = n;
  return options;
}

}  // namespace

TEST_CASE("ipt_plan describes the plan a call runs", "[plan_api]") {
  // Plan as a 48 KiB GPU would, with the paper's kernels only (no on-chip kernel: see
  // test_onchip_stage.cpp for the plans it makes).
  ScopedEnv gpu("IPT_OVERRIDES", "local_mem=49152,onchip=off");
  ipt_plan_info info;
  REQUIRE(ipt_plan(session().device(), 1000, 1000, 4, nullptr, &info) == IPT_SUCCESS);
  CHECK(info.sequence == IPT_SEQUENCE_SQUARE);
  CHECK(info.num_stages == 1);
  CHECK(info.scratch_bytes == 0);

  REQUIRE(ipt_plan(session().device(), 7200, 1800, 4, nullptr, &info) == IPT_SUCCESS);
  CHECK((info.sequence == IPT_SEQUENCE_3_1 || info.sequence == IPT_SEQUENCE_3_2));
  CHECK(info.num_stages == 3);
  CHECK(7200 % info.m == 0);
  CHECK(1800 % info.n == 0);
  CHECK(info.padded_rows == 7200);
  CHECK(info.padded_cols == 1800);
  CHECK(info.scratch_bytes > 0);
  CHECK(info.scratch_bytes < 7200u * 1800u * 4u / 100u);  // under 1% of the matrix
  CHECK(std::string(info.description).find("7200 x 1800: sequence 3.") == 0);

  REQUIRE(ipt_plan(session().device(), 100000, 3, 4, nullptr, &info) == IPT_SUCCESS);
  CHECK(info.sequence == IPT_SEQUENCE_2_1);
  CHECK(info.num_stages == 2);

  // TPDS's 6203 x 6607 (both prime): with room, padded by a row and a column or so;
  // without (max_bytes = the matrix), the one-stage cycle following.
  REQUIRE(ipt_plan(session().device(), 6203, 6607, 4, nullptr, &info) == IPT_SUCCESS);
  CHECK(info.sequence != IPT_SEQUENCE_ONE_STAGE);
  CHECK(info.padded_rows >= 6203);
  CHECK(info.padded_cols >= 6607);
  CHECK(info.padded_rows * info.padded_cols > 6203u * 6607u);
  CHECK(info.padded_rows * info.padded_cols <= 6203u * 6607u + 6203u * 6607u / 200);
  CHECK(std::string(info.description).find("padded to") != std::string::npos);
  // What the padded matrix takes past the caller's is borrowed, and kept in scratch;
  // unless the room and its copy would pass the memory bound together (on a device
  // whose flags take more), when the padding stays in scratch and ipt_padded_size asks
  // for no room. Either way ipt_padded_size gives the matrix and what is borrowed.
  const std::size_t padding = (info.padded_rows * info.padded_cols - 6203u * 6607u) * 4;
  INFO("scratch " << info.scratch_bytes << ", borrowed " << info.borrowed_bytes);
  CHECK((info.borrowed_bytes == padding || info.borrowed_bytes == 0));
  CHECK(info.scratch_bytes >= padding);
  CHECK(static_cast<double>(info.scratch_bytes + info.borrowed_bytes) <=
        0.006 * 6203.0 * 6607.0 * 4.0);
  std::size_t bytes = 0;
  REQUIRE(ipt_padded_size(session().device(), 6203, 6607, 4, &bytes) == IPT_SUCCESS);
  CHECK(bytes == 6203u * 6607u * 4u + info.borrowed_bytes);
  // Without room (max_bytes = the matrix) it pads all the same, the extra elements in
  // scratch; with padding off, the one-stage cycle following.
  ipt_plan_options tight{};
  tight.max_bytes = 6203u * 6607u * 4u;
  REQUIRE(ipt_plan(session().device(), 6203, 6607, 4, &tight, &info) == IPT_SUCCESS);
  CHECK(info.sequence != IPT_SEQUENCE_ONE_STAGE);
  CHECK(info.padded_rows * info.padded_cols > 6203u * 6607u);
  CHECK(info.borrowed_bytes == 0);
  CHECK(info.scratch_bytes >= (info.padded_rows * info.padded_cols - 6203u * 6607u) * 4);
  tight.padding = IPT_PADDING_OFF;
  REQUIRE(ipt_plan(session().device(), 6203, 6607, 4, &tight, &info) == IPT_SUCCESS);
  CHECK(info.sequence == IPT_SEQUENCE_ONE_STAGE);
  CHECK(info.padded_rows == 6203);
  CHECK(info.borrowed_bytes == 0);
  // Flag bits and the start counter, in the call's scratch (128-byte-aligned regions).
  CHECK(info.scratch_bytes == (((6203u * 6607u + 31) / 32 + 1) * 4 + 127) / 128 * 128);
  ipt_plan_options off{};
  off.padding = IPT_PADDING_OFF;
  REQUIRE(ipt_plan(session().device(), 6203, 6607, 4, &off, &info) == IPT_SUCCESS);
  CHECK(info.sequence == IPT_SEQUENCE_ONE_STAGE);

  const ipt_plan_options options = opts(IPT_SEQUENCE_3_2, 60, 30);
  REQUIRE(ipt_plan(session().device(), 7200, 1800, 4, &options, &info) == IPT_SUCCESS);
  CHECK(info.sequence == IPT_SEQUENCE_3_2);
  CHECK(info.m == 60);
  CHECK(info.n == 30);
}

TEST_CASE("ipt_plan refuses what cannot work", "[plan_api][bad_input]") {
  ipt_plan_info info;
  const ipt_plan_options bad_factor = opts(IPT_SEQUENCE_3_1, 7, 4);
  CHECK(ipt_plan(session().device(), 360, 240, 4, &bad_factor, &info) == IPT_INVALID_VALUE);
  CHECK(std::string(ipt_last_error_message()).find("does not divide") != std::string::npos);
  const ipt_plan_options square = opts(IPT_SEQUENCE_SQUARE, 0, 0);
  CHECK(ipt_plan(session().device(), 360, 240, 4, &square, &info) == IPT_INVALID_VALUE);
  const ipt_plan_options unknown = opts(15, 0, 0);  // no such sequence
  CHECK(ipt_plan(session().device(), 360, 240, 4, &unknown, &info) == IPT_INVALID_VALUE);
  CHECK(ipt_plan(session().device(), 360, 240, 4, nullptr, nullptr) == IPT_INVALID_VALUE);
  CHECK(ipt_plan(nullptr, 360, 240, 4, nullptr, &info) == IPT_INVALID_DEVICE);
  CHECK(ipt_plan(session().device(), 360, 240, 3, nullptr, &info) == IPT_INVALID_ELEMENT_SIZE);
  CHECK(ipt_plan(session().device(), ~std::size_t{0}, 2, 4, nullptr, &info) == IPT_SIZE_OVERFLOW);
  // A padded shape beyond one allocation, refused before any factor search (2^64 - 1 x 1
  // once searched divisors for a minute). Found by tests/fuzz/fuzz_api.cpp.
  ipt_plan_options huge{};
  huge.padded_rows = ~std::size_t{0};
  CHECK(ipt_plan(session().device(), 1, 1, 1, &huge, &info) == IPT_MATRIX_TOO_LARGE);
  huge.max_bytes = ~std::size_t{0};
  CHECK(ipt_plan(session().device(), 3, 5, 4, &huge, &info) == IPT_MATRIX_TOO_LARGE);
}

TEST_CASE("ipt_plan of an empty matrix plans no kernel", "[plan_api]") {
  // As a call returns at once for it. ipt_plan once planned such a matrix: a division by
  // zero, and minutes of factor search for 2^64 - 1 x 0. Found by tests/fuzz/fuzz_api.cpp.
  const std::size_t kMax = ~std::size_t{0};
  const ipt_plan_options square = opts(IPT_SEQUENCE_SQUARE, 0, 0);
  const std::pair<std::size_t, std::size_t> shapes[] = {{0, 5},    {5, 0},    {0, 0},
                                                        {kMax, 0}, {0, kMax}, {100000, 0}};
  for (const auto& [rows, cols] : shapes)
    for (const ipt_plan_options* options :
         {static_cast<const ipt_plan_options*>(nullptr), &square}) {
      INFO(rows << " x " << cols << (options != nullptr ? ", square forced" : ""));
      ipt_plan_info info;
      REQUIRE(ipt_plan(session().device(), rows, cols, 4, options, &info) == IPT_SUCCESS);
      CHECK(info.num_stages == 0);
      CHECK(info.scratch_bytes == 0);
      CHECK(info.borrowed_bytes == 0);
      CHECK(info.padded_rows == rows);
      CHECK(info.padded_cols == cols);
      CHECK(info.sequence != IPT_SEQUENCE_AUTO);
      CHECK(std::string(info.description).find("empty") != std::string::npos);
    }
  const ipt_plan_options unknown = opts(15, 0, 0);  // options are still checked
  ipt_plan_info info;
  CHECK(ipt_plan(session().device(), 0, 5, 4, &unknown, &info) == IPT_INVALID_VALUE);
  CHECK(ipt_plan(session().device(), 0, 5, 3, nullptr, &info) == IPT_INVALID_ELEMENT_SIZE);
}

TEST_CASE("ipt_transpose_with_options runs each sequence", "[plan_api][sequences]") {
  const ipt_plan_options all[] = {opts(IPT_SEQUENCE_AUTO, 0, 0), opts(IPT_SEQUENCE_ONE_STAGE, 0, 0),
                                  opts(IPT_SEQUENCE_2_1, 0, 0),  opts(IPT_SEQUENCE_2_2, 12, 0),
                                  opts(IPT_SEQUENCE_2_2, 0, 12), opts(IPT_SEQUENCE_3_1, 6, 12),
                                  opts(IPT_SEQUENCE_3_2, 12, 6), opts(IPT_SEQUENCE_3_1, 0, 0),
                                  opts(IPT_SEQUENCE_4_1, 6, 12), opts(IPT_SEQUENCE_4_2, 12, 6),
                                  opts(IPT_SEQUENCE_4_1, 0, 0)};
  std::uint64_t seed = 900;
  for (const auto& options : all)
    for (std::size_t elem_size : {1, 8}) {
      GuardedMatrix m(120, 84, elem_size, 2, 9, ++seed);
      cl_event done = nullptr;
      const ipt_status status = ipt_transpose_with_options(
          session().queue(), m.buffer(), 2, 120, 84, elem_size, &options, 0, nullptr, &done);
      INFO("sequence " << options.sequence << " m " << options.m << " n " << options.n << ": "
                       << ipt_last_error_message());
      REQUIRE(status == IPT_SUCCESS);  // 2.2 ignores m; a zero factor is the planner's
      REQUIRE(clWaitForEvents(1, &done) == CL_SUCCESS);
      clReleaseEvent(done);
      CHECK(m.check_transposed() == "");
    }
  // A square matrix through a 3-stage sequence, and the square kernel forced.
  GuardedMatrix sq(96, 96, 4, 0, 4, 950);
  const ipt_plan_options three = opts(IPT_SEQUENCE_3_2, 8, 12);
  REQUIRE(ipt_transpose_with_options(session().queue(), sq.buffer(), 0, 96, 96, 4, &three, 0,
                                     nullptr, nullptr) == IPT_SUCCESS);
  CHECK(sq.check_transposed() == "");
}

TEST_CASE("ipt_transpose_with_options refuses options that cannot work, buffer intact",
          "[plan_api][bad_input]") {
  GuardedMatrix m(120, 84, 4, 0, 8, 960);
  const ipt_plan_options bad[] = {opts(IPT_SEQUENCE_3_1, 7, 4), opts(IPT_SEQUENCE_SQUARE, 0, 0),
                                  opts(IPT_SEQUENCE_2_1, 7, 0), opts(15, 0, 0)};
  for (const auto& options : bad) {
    cl_event event = nullptr;
    CHECK(ipt_transpose_with_options(session().queue(), m.buffer(), 0, 120, 84, 4, &options, 0,
                                     nullptr, &event) == IPT_INVALID_VALUE);
    CHECK(event == nullptr);
    CHECK(m.check_unchanged() == "");
  }
}

TEST_CASE("ipt_sequence_name names every sequence, and nothing else", "[plan_api]") {
  auto name_of = [](int value) {
    ipt_sequence sequence{};
    std::memcpy(&sequence, &value, sizeof value);  // any int, as from C
    const char* name = ipt_sequence_name(sequence);
    REQUIRE(name != nullptr);
    return std::string(name);
  };
  CHECK(name_of(IPT_SEQUENCE_AUTO) == "auto");
  CHECK(name_of(IPT_SEQUENCE_SQUARE) == "square");
  CHECK(name_of(IPT_SEQUENCE_ONE_STAGE) == "1");
  CHECK(name_of(IPT_SEQUENCE_2_1) == "2.1");
  CHECK(name_of(IPT_SEQUENCE_2_2) == "2.2");
  CHECK(name_of(IPT_SEQUENCE_3_1) == "3.1");
  CHECK(name_of(IPT_SEQUENCE_3_2) == "3.2");
  CHECK(name_of(IPT_SEQUENCE_4_1) == "4.1");
  CHECK(name_of(IPT_SEQUENCE_4_2) == "4.2");
  CHECK(name_of(IPT_SEQUENCE_ON_CHIP) == "on-chip");
  for (int value : {-1, 10, 15, 1000, -2147483647 - 1}) {
    CAPTURE(value);
    CHECK(name_of(value) == "unknown");
  }
  // The plan's description names its sequence the same way.
  ipt_plan_info info{};
  const ipt_plan_options three = opts(IPT_SEQUENCE_3_2, 60, 30);
  REQUIRE(ipt_plan(session().device(), 7200, 1800, 4, &three, &info) == IPT_SUCCESS);
  CHECK(std::string(info.description)
            .find(std::string("sequence ") + ipt_sequence_name(info.sequence)) !=
        std::string::npos);
}

TEST_CASE("a matrix past what the device holds is refused, the buffer untouched", "[plan_api]") {
  // 307 x 293 floats without padding against a device that allows allocations of 64 KiB:
  // the matrix (359,804 bytes) is past 4 allocations (a buffer cannot pass the device's
  // memory, which OpenCL keeps within 4), so the refusal is the matrix's, before any plan.
  ScopedEnv small("IPT_OVERRIDES", "local_mem=49152,onchip=off,padding=off,max_alloc=65536");
  ipt_plan_options off{};  // options replace IPT_OVERRIDES' plan keys: padding off here too
  off.padding = IPT_PADDING_OFF;
  ipt_plan_info info;
  CHECK(ipt_plan(session().device(), 307, 293, 4, &off, &info) == IPT_MATRIX_TOO_LARGE);
  CHECK(std::string(ipt_last_error_message()).find("65536") != std::string::npos);
  ipt::test::GuardedMatrix m(307, 293, 4, 0, 0, 77);
  CHECK(ipt_transpose_f32(session().queue(), m.buffer(), 0, 307, 293, 0, nullptr, nullptr) ==
        IPT_MATRIX_TOO_LARGE);
  CHECK(std::string(ipt_last_error_message()).find("65536") != std::string::npos);
  CHECK(m.check_unchanged() == "");
  // A plan within the limit runs.
  REQUIRE(ipt_plan(session().device(), 120, 70, 4, nullptr, &info) == IPT_SUCCESS);
  REQUIRE(info.scratch_bytes < 65536);
  ipt::test::GuardedMatrix fits(120, 70, 4, 0, 0, 78);
  CHECK(ipt_transpose_f32(session().queue(), fits.buffer(), 0, 120, 70, 0, nullptr, nullptr) ==
        IPT_SUCCESS);
  CHECK(fits.check_transposed() == "");
}
