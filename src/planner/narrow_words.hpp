// SPDX-License-Identifier: Apache-2.0
// When a kernel may move elements in wider words: the square and BS kernels' 4-byte word
// tiles of 1- and 2-byte elements (narrow_word), and the runs of the SoA and restride
// kernels, of elements narrower than the device's widest word (word_factor).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "planner/device_profile.hpp"

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

// The most elements a word holds: 1-byte elements stay in 4-byte words, whose runs moved
// no faster as 16-byte ones, and a kernel has a build per word size (kernel_variants.hpp),
// so at most three per element size.
constexpr std::uint64_t kMaxWordElements = 4;

// Words of a matrix split between two buffers (a padded plan on a buffer of exactly the
// caller's matrix, kernels/common.cl) are at most 4 bytes wide. Such kernels are builds of
// their own, and wider words there would add about a third of the programs ipt_warmup
// builds for 4-byte elements, for plans that ran no faster in them.
constexpr std::size_t kSplitWordBytes = 4;

// The widest word in bytes that a kernel at a site may use (`split`: the site's matrix is
// split).
inline std::size_t site_word_bytes(std::size_t word_bytes, bool split) {
  return split ? std::min(word_bytes, kSplitWordBytes) : word_bytes;
}

// Elements of the widest word of at most word_bytes (and kMaxWordElements elements).
inline std::uint64_t widest_word_factor(std::size_t word_bytes, std::size_t elem_size) {
  return std::min<std::uint64_t>(kMaxWordElements, word_bytes / std::min(elem_size, word_bytes));
}

// Elements in wider words: how many elem_size-byte elements make the word in which a
// kernel moves a run of `run` contiguous elements that starts at element `offset` of a
// matrix split at element `split` (0: none): the widest word (widest_word_factor) that
// the run, the offset and the split all fill whole (of at most kSplitWordBytes where there
// is a split); 1 for elements of word_bytes or more.
inline std::uint64_t word_factor(std::size_t word_bytes, std::size_t elem_size, std::uint64_t run,
                                 std::uint64_t offset = 0, std::uint64_t split = 0) {
  const std::size_t widest = site_word_bytes(word_bytes, split != 0);
  for (std::uint64_t k = widest_word_factor(widest, elem_size); k > 1; k /= 2)
    if (run % k == 0 && offset % k == 0 && split % k == 0) return k;
  return 1;
}
inline std::uint64_t word_factor(const DeviceProfile& device, std::size_t elem_size,
                                 std::uint64_t run, std::uint64_t offset = 0,
                                 std::uint64_t split = 0) {
  return word_factor(device.word_bytes, elem_size, run, offset, split);
}

}  // namespace ipt::planner
