// The random data every other test and the benchmark tools fill matrices with
// (tools/support): zero or repeating data would let wrong kernels pass.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "support/random_data.hpp"

using ipt::support::random_bytes;

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
