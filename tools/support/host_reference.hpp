// Host references of the permutations libipt performs, on raw bytes, shared by the tests
// and the benchmark tools (bit-exact: elements are copied, never converted).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ipt::support {

// 0100!: (I, A, B, C) -> (I, B, A, C) over elem_size-byte elements. 100! is I = 1,
// 1000! takes C = C * D, 010! on (A, B, C) is (A, B, C, 1), and the plain transpose of a
// rows x cols matrix is (1, rows, cols, 1).
std::vector<unsigned char> permute_0100(const std::vector<unsigned char>& in, std::uint64_t I,
                                        std::uint64_t A, std::uint64_t B, std::uint64_t C,
                                        std::size_t elem_size);

}  // namespace ipt::support
