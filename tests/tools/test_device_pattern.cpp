// SPDX-License-Identifier: Apache-2.0
// The benchmark's device-side verification (tools/support/device_pattern.hpp): the
// protocol runs of thousands of shapes trust it, so it must pass a true transpose and
// catch an untransposed matrix and a single wrong element, for every element size.
#include <catch2/catch.hpp>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "helpers/test_support.hpp"
#include "support/device_pattern.hpp"

using ipt::test::session;

TEST_CASE("the device pattern check passes a transpose and catches wrong elements", "[bench]") {
  ipt::support::DevicePattern pattern(session());
  const std::size_t rows = 37, cols = 53, seed = 11;
  for (std::size_t elem_size : {1, 2, 4, 8, 16}) {
    CAPTURE(elem_size);
    const std::size_t bytes = rows * cols * elem_size;
    cl_int code = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(session().context(), CL_MEM_READ_WRITE, bytes, nullptr, &code);
    REQUIRE(code == CL_SUCCESS);
    pattern.fill(buffer, 0, rows * cols, elem_size, seed);

    // Random-looking values: nearly all elements distinct (never a constant or zeros).
    std::vector<unsigned char> data(bytes);
    REQUIRE(clEnqueueReadBuffer(session().queue(), buffer, CL_TRUE, 0, bytes, data.data(), 0,
                                nullptr, nullptr) == CL_SUCCESS);
    std::set<std::string> distinct;
    for (std::size_t i = 0; i < rows * cols; ++i)
      distinct.insert(std::string(reinterpret_cast<const char*>(&data[i * elem_size]), elem_size));
    CHECK(distinct.size() > (elem_size == 1 ? 200u : rows * cols * 9 / 10));

    CHECK(pattern.check_transposed(buffer, 0, rows, cols, elem_size, seed) != "");  // not yet
    REQUIRE(ipt_transpose(session().queue(), buffer, 0, rows, cols, 0, nullptr, nullptr,
                          elem_size) == IPT_SUCCESS);
    REQUIRE(clFinish(session().queue()) == CL_SUCCESS);
    CHECK(pattern.check_transposed(buffer, 0, rows, cols, elem_size, seed) == "");
    CHECK(pattern.check_transposed(buffer, 0, rows, cols, elem_size, seed + 1) != "");

    // One element of the result (row 5, column 7) changed in one byte.
    const std::size_t at = (5 * rows + 7) * elem_size;
    unsigned char byte = 0;
    REQUIRE(clEnqueueReadBuffer(session().queue(), buffer, CL_TRUE, at, 1, &byte, 0, nullptr,
                                nullptr) == CL_SUCCESS);
    byte ^= 0x40;
    REQUIRE(clEnqueueWriteBuffer(session().queue(), buffer, CL_TRUE, at, 1, &byte, 0, nullptr,
                                 nullptr) == CL_SUCCESS);
    CHECK(pattern.check_transposed(buffer, 0, rows, cols, elem_size, seed) ==
          "1 elements wrong; the first at row 5, column 7 of the result");
    clReleaseMemObject(buffer);
  }
}
