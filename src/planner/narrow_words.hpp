// When a kernel may move 1- and 2-byte elements in 4-byte words (the square and BS
// kernels' word tiles, the restride's rows): one rule for all.
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

// The widest unit of 1- and 2-byte elements, up to a 4-byte word, that a kernel moving
// whole units may take (the restride): the most elements, a power of two, of which
// `run` is a multiple (every length and position the kernel addresses divides it); 1
// for wider elements.
inline std::size_t narrow_unit(std::size_t elem_size, std::uint64_t run) {
  if (elem_size != 1 && elem_size != 2) return 1;
  std::size_t unit = 4 / elem_size;
  while (unit > 1 && run % unit != 0) unit /= 2;
  return unit;
}

}  // namespace ipt::planner
