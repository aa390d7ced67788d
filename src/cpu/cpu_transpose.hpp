// SPDX-License-Identifier: Apache-2.0
// The native CPU path of host transposition (ipt_transpose_host): a row-major matrix in
// host memory becomes its transpose in the same memory, on several threads, without a
// device. Pure C++: no OpenCL.
//
// Square matrices swap tile pairs across the diagonal, each pair small enough for a core's
// L1 cache, so that every element is read once and written once in whole cache lines
// (the blocked swaps of the square-transposition report), taken by the threads from a
// shared counter in the order of a recursive split of the upper triangle (nearby tiles
// close in time, which keeps the L2 and L3 caches useful).
//
// Other shapes take two passes of TPDS 2015's elementary transpositions where a side has
// a factor f whose f x (other side) instance fits 1 MiB and whose runs of f elements
// take at least 256 bytes: the instances transposed through a buffer per thread (010!),
// and the grid of f-element super-elements transposed by following its cycles (100!),
// each cycle moved by the thread that owns its smallest position, with a bit per
// super-element (when that memory can be had) marking those already moved. A shape
// without such a factor takes Catanzaro et al.'s decomposition (PPoPP 2014): columns
// rotated, rows permuted, columns permuted, each on its own.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ipt::cpu {

// Threads the CPU path uses when the caller names none: the hardware's (at least 1).
unsigned default_threads();

// How a matrix is moved: kAuto picks tiles for a square, two passes where a side has a
// usable factor, else the decomposition; the others force one (tests, benchmarks).
enum class Path { kAuto, kTiles, kTwoPass, kDecomposed, kCycles };

// Transposes, in place, the rows x cols row-major matrix of elem_size-byte elements (1,
// 2, 4, 8 or 16; others throw std::invalid_argument) at `data`, on `threads` threads (0:
// default_threads()). Touches no byte outside the matrix. Throws std::bad_alloc (its
// workspace, all of it taken first) or std::invalid_argument (a forced path that cannot
// take the shape) before any element has moved, and nothing after: threads that cannot
// start leave their share to those that did.
void transpose(void* data, std::uint64_t rows, std::uint64_t cols, std::size_t elem_size,
               unsigned threads = 0, Path path = Path::kAuto);

// The rows x cols grid of `unit`-byte blocks at `data` becomes its cols x rows transpose
// (TPDS 2015's 100! over super-elements of any size), by cycle following on `threads`
// threads (0: default_threads()): the step of host transposition that spans a matrix too
// large for the device (host/host_streamed.hpp). Throws as transpose, before any block
// has moved.
void transpose_blocks(void* data, std::uint64_t rows, std::uint64_t cols, std::size_t unit,
                      unsigned threads = 0);

}  // namespace ipt::cpu
