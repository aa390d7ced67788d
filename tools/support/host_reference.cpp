// SPDX-License-Identifier: Apache-2.0
#include "support/host_reference.hpp"

#include <cstring>

namespace ipt::support {

std::vector<unsigned char> permute_0100(const std::vector<unsigned char>& in, std::uint64_t I,
                                        std::uint64_t A, std::uint64_t B, std::uint64_t C,
                                        std::size_t elem_size) {
  std::vector<unsigned char> out(in.size());
  const std::size_t super = static_cast<std::size_t>(C) * elem_size;
  for (std::uint64_t i = 0; i < I; ++i)
    for (std::uint64_t a = 0; a < A; ++a)
      for (std::uint64_t b = 0; b < B; ++b)
        std::memcpy(&out[((i * B + b) * A + a) * super], &in[((i * A + a) * B + b) * super], super);
  return out;
}

std::vector<unsigned char> permute_010(const std::vector<unsigned char>& in, std::uint64_t A,
                                       std::uint64_t B, std::uint64_t C, std::size_t elem_size) {
  return permute_0100(in, A, B, C, 1, elem_size);
}

std::vector<unsigned char> transpose_reference(const std::vector<unsigned char>& in,
                                               std::uint64_t rows, std::uint64_t cols,
                                               std::size_t elem_size) {
  return permute_0100(in, 1, rows, cols, 1, elem_size);
}

}  // namespace ipt::support
