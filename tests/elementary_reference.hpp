// Host references of the elementary transpositions (generic permutations of a row-major
// array of elem_size-byte elements) and the bit-exact check of a guarded buffer against
// them, for the kernel tests of 010!, 100!, 0100! and 1000!.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace ipt::test {

using Bytes = std::vector<unsigned char>;

// 010!: (A, B, C) -> (A, C, B).
Bytes reference_010(const Bytes& in, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                    std::size_t elem_size);

// 0100!: (I, A, B, C) -> (I, B, A, C); 100! is I = 1, 1000! is C = C * D.
Bytes reference_0100(const Bytes& in, std::uint64_t I, std::uint64_t A, std::uint64_t B,
                     std::uint64_t C, std::size_t elem_size);

// CL_DEVICE_LOCAL_MEM_SIZE of the test device.
std::size_t device_local_mem();

// Empty when the matrix part of `m` now equals `expected` and every guard byte before
// and after it is unchanged; else the first mismatches.
std::string check_against(const GuardedMatrix& m, const Bytes& expected, std::size_t elem_size);

}  // namespace ipt::test
