// SPDX-License-Identifier: Apache-2.0
// When a kernel may move 1- and 2-byte elements in 4-byte words (the square and BS
// kernels' word tiles): one rule for both.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ipt::planner {

// Elements per 4-byte word: 4 / elem_size for 1- and 2-byte elements whose runs are
// multiples of the word (`run` elements: a square's side, a BS tile) and whose matrix
// starts on a 4-byte boundary (`offset` elements into its buffer) of one buffer (not
// split); else 1, one element at a time.
inline std::size_t narrow_word(std::size_t elem_size, std::uint64_t offset, bool split,
                               std::uint64_t run) {
  if (split || (elem_size != 1 && elem_size != 2)) return 1;
  const std::size_t word = 4 / elem_size;
  return run % word == 0 && (offset * elem_size) % 4 == 0 ? word : 1;
}

}  // namespace ipt::planner
