// The random bytes every test and tool fills matrices with, so that a misplaced element is
// almost never hidden by an equal value and a kernel that writes nothing (or zeros) fails.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ipt::support {

// `count` bytes that depend only on `seed` (the same on every platform): 8 bytes per draw
// of a SplitMix64 sequence, fast enough for matrices of gigabytes. No 8-byte word is zero,
// nor the bytes after the last whole word, so the result is never all zero (count > 0).
std::vector<unsigned char> random_bytes(std::size_t count, std::uint64_t seed);

}  // namespace ipt::support
