// SPDX-License-Identifier: Apache-2.0
// Host references of the permutations libipt performs, on raw bytes, shared by the tests
// and the benchmark tools (bit-exact: elements are copied, never converted). Every one is
// permute_0100; the named forms only fix its unit factors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ipt::support {

// 0100!: (I, A, B, C) -> (I, B, A, C) over elem_size-byte elements. 100! is I = 1 and
// 1000! takes C = C * D.
std::vector<unsigned char> permute_0100(const std::vector<unsigned char>& in, std::uint64_t I,
                                        std::uint64_t A, std::uint64_t B, std::uint64_t C,
                                        std::size_t elem_size);

// 010!: (A, B, C) -> (A, C, B), A transposes of B x C matrices: (A, B, C, 1) of 0100!.
std::vector<unsigned char> permute_010(const std::vector<unsigned char>& in, std::uint64_t A,
                                       std::uint64_t B, std::uint64_t C, std::size_t elem_size);

// The row-major cols x rows transpose of a row-major rows x cols matrix: (1, rows, cols, 1)
// of 0100!.
std::vector<unsigned char> transpose_reference(const std::vector<unsigned char>& in,
                                               std::uint64_t rows, std::uint64_t cols,
                                               std::size_t elem_size);

// numpy.transpose(x, perm) of the row-major tensor x of `dims` (last axis fastest): output
// axis i is input axis perm[i]. Computed element by element from the axes' strides, not
// from block swaps (what the library does).
std::vector<unsigned char> permute_axes(const std::vector<unsigned char>& in,
                                        const std::vector<std::uint64_t>& dims,
                                        const std::vector<std::size_t>& perm,
                                        std::size_t elem_size);

}  // namespace ipt::support
