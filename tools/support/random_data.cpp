// SPDX-License-Identifier: Apache-2.0
#include "support/random_data.hpp"

#include <cstring>

namespace ipt::support {

namespace {

// SplitMix64 (Steele, Lea and Flood, OOPSLA 2014): a Weyl sequence through a mixing
// function; every seed gives a full-period, well-mixed sequence of 64-bit words.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = state_ += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // The next word whose bits under `mask` are not all zero (draws again otherwise).
  std::uint64_t next_nonzero(std::uint64_t mask) {
    std::uint64_t word = next();
    while ((word & mask) == 0) word = next();
    return word;
  }

 private:
  std::uint64_t state_;
};

}  // namespace

std::vector<unsigned char> random_bytes(std::size_t count, std::uint64_t seed) {
  std::vector<unsigned char> bytes(count);
  SplitMix64 engine(seed);
  std::size_t i = 0;
  // Little-endian byte order by shifts, not memcpy: the same bytes on any host.
  for (; i + 8 <= count; i += 8) {
    const std::uint64_t word = engine.next_nonzero(~std::uint64_t{0});
    for (std::size_t k = 0; k < 8; ++k) bytes[i + k] = static_cast<unsigned char>(word >> (8 * k));
  }
  if (i < count) {
    const std::size_t tail = count - i;
    const std::uint64_t word = engine.next_nonzero((std::uint64_t{1} << (8 * tail)) - 1);
    for (std::size_t k = 0; k < tail; ++k)
      bytes[i + k] = static_cast<unsigned char>(word >> (8 * k));
  }
  return bytes;
}

void separate_neighbours(unsigned char* data, std::size_t count, std::size_t elem_size,
                         std::size_t row_length) {
  auto same = [&](std::size_t a, std::size_t b) {
    return std::memcmp(data + a * elem_size, data + b * elem_size, elem_size) == 0;
  };
  // Element i is fixed before i + 1 and i + row_length look at it.
  for (std::size_t i = 1; i < count; ++i) {
    const bool has_upper = row_length > 0 && i >= row_length;
    unsigned char& first = data[i * elem_size];
    // Two neighbours rule out at most two of the 255 values: three steps at most.
    while (same(i, i - 1) || (has_upper && same(i, i - row_length)))
      first = static_cast<unsigned char>(first % 255 + 1);
  }
}

std::vector<unsigned char> random_matrix(std::size_t rows, std::size_t cols, std::size_t elem_size,
                                         std::uint64_t seed) {
  std::vector<unsigned char> bytes = random_bytes(rows * cols * elem_size, seed);
  separate_neighbours(bytes.data(), rows * cols, elem_size, cols);
  return bytes;
}

}  // namespace ipt::support
