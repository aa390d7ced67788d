#include "support/random_data.hpp"

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

}  // namespace ipt::support
