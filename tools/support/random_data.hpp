// SPDX-License-Identifier: Apache-2.0
// The random bytes every test and tool fills matrices with, so that a misplaced element is
// almost never hidden by an equal value and a kernel that writes nothing (or zeros) fails.
// Matrices take random_matrix (or separate_neighbours on bytes of their own): random
// 1-byte elements equal their neighbour once in 256, which would hide a kernel that swaps
// or drops neighbouring elements there; guard bytes and scratch take random_bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ipt::support {

// `count` bytes that depend only on `seed` (the same on every platform): 8 bytes per draw
// of a SplitMix64 sequence, fast enough for matrices of gigabytes. No 8-byte word is zero,
// nor the bytes after the last whole word, so the result is never all zero (count > 0).
std::vector<unsigned char> random_bytes(std::size_t count, std::uint64_t seed);

// Makes each of the `count` elements of `elem_size` bytes at `data`, rows of `row_length`
// elements, differ from the element before it and from the one above it (row_length
// before): the neighbours of an element in the matrix and in its transpose. An element
// equal to either has its first byte stepped through 1..255 until it differs from both;
// the byte never becomes zero, so no nonzero 8-byte word of random_bytes turns zero.
// Deterministic: the same data give the same result.
void separate_neighbours(unsigned char* data, std::size_t count, std::size_t elem_size,
                         std::size_t row_length);

// The data of a row-major rows x cols matrix of elem_size-byte elements:
// random_bytes(rows * cols * elem_size, seed) through separate_neighbours.
std::vector<unsigned char> random_matrix(std::size_t rows, std::size_t cols, std::size_t elem_size,
                                         std::uint64_t seed);

}  // namespace ipt::support
