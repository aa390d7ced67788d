// The random data and host references every other test and the benchmark tools check
// against (tools/support): a wrong reference or zero data would let wrong kernels pass.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "support/host_reference.hpp"
#include "support/random_data.hpp"

using ipt::support::permute_010;
using ipt::support::permute_0100;
using ipt::support::random_bytes;
using ipt::support::transpose_reference;

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
  // Transposing back restores the data.
  CHECK(transpose_reference(transpose_reference(data, 30, 28, 1), 28, 30, 1) == data);
}
