// SPDX-License-Identifier: Apache-2.0
// The random data and host references every other test and the benchmark tools check
// against (tools/support): a wrong reference or zero data would let wrong kernels pass.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "helpers/test_support.hpp"
#include "support/cli_values.hpp"
#include "support/command_line.hpp"
#include "support/device_select.hpp"
#include "support/host_reference.hpp"
#include "support/random_data.hpp"

using ipt::support::permute_010;
using ipt::support::permute_0100;
using ipt::support::random_bytes;
using ipt::support::random_matrix;
using ipt::support::transpose_reference;

namespace {

// How many elements of the row-major rows x cols matrix equal their left or upper
// neighbour.
std::size_t equal_neighbours(const unsigned char* data, std::size_t rows, std::size_t cols,
                             std::size_t elem_size) {
  auto same = [&](std::size_t a, std::size_t b) {
    return std::memcmp(data + a * elem_size, data + b * elem_size, elem_size) == 0;
  };
  std::size_t equal = 0;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const std::size_t i = r * cols + c;
      equal += (c > 0 && same(i, i - 1)) || (r > 0 && same(i, i - cols));
    }
  return equal;
}

}  // namespace

TEST_CASE("random_bytes: one sequence per seed, no zero word, no zero tail", "[support]") {
  CHECK(random_bytes(0, 1).empty());
  CHECK(random_bytes(1000, 5) == random_bytes(1000, 5));
  CHECK(random_bytes(1000, 5) != random_bytes(1000, 6));
  for (std::size_t count = 1; count <= 40; ++count)
    for (std::uint64_t seed = 0; seed < 64; ++seed) {
      const auto bytes = random_bytes(count, seed);
      REQUIRE(bytes.size() == count);
      CAPTURE(count, seed);
      for (std::size_t word = 0; word < count; word += 8) {
        const auto end = bytes.begin() + static_cast<std::ptrdiff_t>(std::min(count, word + 8));
        CHECK(std::any_of(bytes.begin() + static_cast<std::ptrdiff_t>(word), end,
                          [](unsigned char b) { return b != 0; }));
      }
    }
  // Every byte value, in near-equal numbers (1 MiB: 4096 expected per value).
  std::array<std::size_t, 256> seen{};
  for (unsigned char b : random_bytes(std::size_t{1} << 20, 2015)) ++seen[b];
  CHECK(*std::min_element(seen.begin(), seen.end()) > 3600);
  CHECK(*std::max_element(seen.begin(), seen.end()) < 4600);
}

TEST_CASE("random_matrix: no element equals a neighbour, in the matrix or its transpose",
          "[support]") {
  // A kernel that swaps or drops neighbouring elements goes unseen where they are equal:
  // once in 256 for random 1-byte elements. Sides of 1, around 256 (a row as long as the
  // byte's range) and odd ones; 2- and 4-byte elements too.
  const std::pair<std::size_t, std::size_t> shapes[] = {{1, 1},     {1, 5000},  {5000, 1}, {2, 2},
                                                        {256, 256}, {255, 257}, {97, 1031}};
  for (std::size_t elem_size : {1, 2, 4})
    for (const auto& [rows, cols] : shapes)
      for (std::uint64_t seed : {0, 1, 2015}) {
        CAPTURE(elem_size, rows, cols, seed);
        const auto data = random_matrix(rows, cols, elem_size, seed);
        REQUIRE(data.size() == rows * cols * elem_size);
        CHECK(data == random_matrix(rows, cols, elem_size, seed));
        CHECK(equal_neighbours(data.data(), rows, cols, elem_size) == 0);
        const auto transposed = transpose_reference(data, rows, cols, elem_size);
        CHECK(equal_neighbours(transposed.data(), cols, rows, elem_size) == 0);
      }
  // Still random_bytes but where a neighbour was equal (about 2 bytes in 256 of 1-byte
  // data), still every byte value, never a zero byte where random_bytes had none.
  const std::size_t rows = 1024, cols = 1024;
  const auto data = random_matrix(rows, cols, 1, 7);
  const auto plain = random_bytes(rows * cols, 7);
  CHECK(equal_neighbours(plain.data(), rows, cols, 1) > 0);  // what the fix is for
  std::size_t changed = 0;
  std::array<std::size_t, 256> seen{};
  for (std::size_t i = 0; i < data.size(); ++i) {
    changed += data[i] != plain[i];
    ++seen[data[i]];
    if (data[i] != plain[i]) CHECK(data[i] != 0);
  }
  CHECK(changed > 0);
  CHECK(changed < data.size() / 64);
  CHECK(*std::min_element(seen.begin(), seen.end()) > 3600);
  CHECK(*std::max_element(seen.begin(), seen.end()) < 4600);
  CHECK(random_matrix(rows, cols, 1, 8) != data);
}

TEST_CASE("GuardedMatrix: the matrix without equal neighbours, the guards random_bytes",
          "[support]") {
  // Every device test's data: 1-byte matrices must come through the same generator.
  for (std::size_t elem_size : {1, 2})
    for (const auto& [rows, cols] :
         {std::pair<std::size_t, std::size_t>{64, 256}, {300, 7}, {1, 999}}) {
      CAPTURE(elem_size, rows, cols);
      const std::size_t offset = 5, after = 11;
      const ipt::test::GuardedMatrix m(rows, cols, elem_size, offset, after, 42);
      const auto matrix = m.matrix_before();
      CHECK(equal_neighbours(matrix.data(), rows, cols, elem_size) == 0);
      // Guard bytes keep random_bytes' contract (and its bytes).
      const auto plain = random_bytes(m.initial().size(), 42);
      const std::size_t begin = offset * elem_size, end = begin + matrix.size();
      CHECK(std::equal(plain.begin(), plain.begin() + begin, m.initial().begin()));
      CHECK(std::equal(plain.begin() + end, plain.end(), m.initial().begin() + end));
      CHECK(m.read_all() == m.initial());
    }
}

TEST_CASE("GuardedMatrix's checks report any one byte changed, guards included", "[support]") {
  // Every device test's verdict: a check that missed a byte would pass wrong kernels.
  const std::size_t rows = 5, cols = 7, elem_size = 4, offset = 3, after = 9;
  const ipt::test::GuardedMatrix m(rows, cols, elem_size, offset, after, 7);
  const cl_command_queue queue = ipt::test::session().queue();
  const std::vector<unsigned char> initial = m.initial();
  REQUIRE(m.check_unchanged() == "");
  // Not transposed yet: the reference differs (a 5 x 7 matrix has no fixed layout).
  CHECK(m.check_transposed() != "");
  for (std::size_t i = 0; i < initial.size(); ++i) {
    CAPTURE(i);
    const unsigned char changed = static_cast<unsigned char>(initial[i] ^ 0x10);
    REQUIRE(clEnqueueWriteBuffer(queue, m.buffer(), CL_TRUE, i, 1, &changed, 0, nullptr, nullptr) ==
            CL_SUCCESS);
    const std::string report = m.check_unchanged();
    CHECK(report.find("byte " + std::to_string(i) + " ") != std::string::npos);
    CHECK(report.find("1 bytes differ") != std::string::npos);
    CHECK(m.check_guards() ==
          (i < offset * elem_size || i >= initial.size() - after ? report : std::string()));
    REQUIRE(clEnqueueWriteBuffer(queue, m.buffer(), CL_TRUE, i, 1, &initial[i], 0, nullptr,
                                 nullptr) == CL_SUCCESS);
  }
  CHECK(m.check_unchanged() == "");
}

TEST_CASE("IPT_TEST_SEED replaces a test's fixed seed, but only a decimal number does",
          "[support]") {
  {
    const ipt::test::ScopedEnv unset("IPT_TEST_SEED", "");  // empty: as if unset
    CHECK(ipt::test::seed(2015) == 2015);
  }
  {
    const ipt::test::ScopedEnv set("IPT_TEST_SEED", "18446744073709551615");
    CHECK(ipt::test::seed(2015) == 18446744073709551615ull);
  }
  // A seed that silently became another (a sign, a prefix, a wrap) would not replay.
  for (const char* bad : {"-1", "12x", " 5", "0x10", "18446744073709551616"}) {
    const ipt::test::ScopedEnv set("IPT_TEST_SEED", bad);
    CAPTURE(bad);
    CHECK_THROWS_AS(ipt::test::seed(2015), std::invalid_argument);
  }
}

TEST_CASE("host references move whole elements to their transposed places", "[support]") {
  // A 2 x 3 matrix of 2-byte elements (each element's bytes its row and column).
  const std::vector<unsigned char> m = {0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2};
  CHECK(transpose_reference(m, 2, 3, 2) ==
        std::vector<unsigned char>{0, 0, 1, 0, 0, 1, 1, 1, 0, 2, 1, 2});
  // 010! transposes each of A matrices; 0100! with C > 1 moves super-elements of C.
  const auto data = random_bytes(5 * 6 * 7 * 4, 3);
  std::vector<unsigned char> each;
  for (std::size_t a = 0; a < 5; ++a) {
    const auto first = data.begin() + static_cast<std::ptrdiff_t>(a * 6 * 7 * 4);
    const auto t = transpose_reference({first, first + 6 * 7 * 4}, 6, 7, 4);
    each.insert(each.end(), t.begin(), t.end());
  }
  CHECK(permute_010(data, 5, 6, 7, 4) == each);
  CHECK(permute_0100(data, 1, 5, 6, 7, 4) == transpose_reference(data, 5, 6, 7 * 4));
  CHECK(permute_0100(data, 5, 6, 7, 1, 4) == each);
  // Element (r, c) of the 30 x 28 matrix is element (c, r) of its transpose, and
  // transposing back restores the data.
  const auto transposed = transpose_reference(data, 30, 28, 1);
  std::size_t misplaced = 0;
  for (std::size_t r = 0; r < 30; ++r)
    for (std::size_t c = 0; c < 28; ++c) misplaced += transposed[c * 30 + r] != data[r * 28 + c];
  CHECK(misplaced == 0);
  CHECK(transpose_reference(transposed, 28, 30, 1) == data);
}

TEST_CASE("command-line counts: decimal digits only, within range, named when refused",
          "[support]") {
  using ipt::support::CliError;
  using ipt::support::parse_count;
  CHECK(parse_count("0", "N") == 0);
  CHECK(parse_count("007", "N") == 7);
  CHECK(parse_count("18446744073709551615", "N") == 18446744073709551615ull);
  CHECK(parse_count("255", "N", 255) == 255);
  // Each would otherwise become another number (a wrap, a prefix, an exponent, a part).
  for (const char* bad : {"", "x", "1e3", "-5", "+5", "0x10", "12abc", " 5", "5 ", "1,000", "1.5",
                          "18446744073709551616", "99999999999999999999"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_count(bad, "--count"), CliError);
    try {
      parse_count(bad, "--count");
    } catch (const CliError& e) {
      const std::string what = e.what();
      CHECK(what.rfind("--count: ", 0) == 0);
      if (*bad != '\0') CHECK(what.find(std::string("'") + bad + "'") != std::string::npos);
    }
  }
  CHECK_THROWS_AS(parse_count("256", "N", 255), CliError);
}

TEST_CASE("command-line lists and shapes: every item checked, none empty", "[support]") {
  using ipt::support::CliError;
  CHECK(ipt::support::parse_count_list("16384,8192", "--sizes") ==
        std::vector<std::uint64_t>{16384, 8192});
  CHECK(ipt::support::parse_dims("7200x1800", 2, "--shapes") ==
        std::vector<std::uint64_t>{7200, 1800});
  CHECK(ipt::support::parse_dims("3x4x5", 3, "--shapes") == std::vector<std::uint64_t>{3, 4, 5});
  for (const char* bad : {"", ",", "1,", ",1", "1,,2", "16384,8192x", "1,-2"})
    CHECK_THROWS_AS(ipt::support::parse_count_list(bad, "--sizes"), CliError);
  for (const char* bad : {"", "7200", "7200x", "x1800", "7200x1800x3", "7200xx1800", "1e3x5"})
    CHECK_THROWS_AS(ipt::support::parse_dims(bad, 2, "--shapes"), CliError);
}

TEST_CASE("the tools' command line: options, values, flags and positionals, in order",
          "[support]") {
  using ipt::support::CliError;
  using ipt::support::CommandLine;
  std::vector<std::string> seen;
  bool flag = false;
  CommandLine line;
  line.value("--count", [&](const std::string& v) { seen.push_back("count=" + v); })
      .flag("--large", [&] { flag = true; })
      .positional([&](const std::string& v) { seen.push_back("arg=" + v); });
  line.parse({"7", "--count", "-5", "--large", "x"});
  CHECK(seen == std::vector<std::string>{"arg=7", "count=-5", "arg=x"});  // a value is taken whole
  CHECK(flag);

  const auto refusal = [&line](const std::vector<std::string>& args) {
    try {
      line.parse(args);
    } catch (const CliError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refusal({"--count"}) == "--count needs a value");
  CHECK(refusal({"--counts", "1"}) == "unknown option --counts");
  CHECK(refusal({"--large=1"}) == "unknown option --large=1");

  CommandLine options_only;
  options_only.flag("-h", [] {});
  CHECK_NOTHROW(options_only.parse({"-h"}));
  CHECK_THROWS_WITH(options_only.parse({"7"}), "unexpected argument '7'");

  CHECK(ipt::support::one_of("skinny", "--protocol", {"random", "skinny"}) == "skinny");
  CHECK_THROWS_WITH(ipt::support::one_of("x", "--tiles", {"padded", "swizzled", "both"}),
                    "--tiles takes padded, swizzled or both, not 'x'");
  CHECK_THROWS_WITH(ipt::support::one_of("x", "--one", {"first", "warmup"}),
                    "--one takes first or warmup, not 'x'");
}

TEST_CASE("without IPT_DEVICE the tools take the first GPU, else the first device", "[support]") {
  using ipt::support::DeviceChoice;
  const DeviceChoice cpu{nullptr, nullptr, "Portable Computing Language | cpu", CL_DEVICE_TYPE_CPU};
  const DeviceChoice gpu{nullptr, nullptr, "NVIDIA CUDA | H200", CL_DEVICE_TYPE_GPU};
  const DeviceChoice gpu2{nullptr, nullptr, "AMD | gfx90a",
                          CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT};
  const DeviceChoice other{nullptr, nullptr, "Xilinx | fpga", CL_DEVICE_TYPE_ACCELERATOR};
  using Devices = std::vector<DeviceChoice>;
  CHECK(ipt::support::default_choice(Devices{cpu, gpu, gpu2}).description == gpu.description);
  CHECK(ipt::support::default_choice(Devices{gpu2, cpu, gpu}).description == gpu2.description);
  CHECK(ipt::support::default_choice(Devices{other, cpu}).description == other.description);
  CHECK(ipt::support::default_choice(Devices{cpu}).description == cpu.description);
}
