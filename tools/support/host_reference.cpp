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

std::vector<unsigned char> permute_axes(const std::vector<unsigned char>& in,
                                        const std::vector<std::uint64_t>& dims,
                                        const std::vector<std::size_t>& perm,
                                        std::size_t elem_size) {
  const std::size_t rank = dims.size();
  std::vector<std::uint64_t> stride(rank, 1);  // of each input axis, in elements
  for (std::size_t a = rank; a-- > 1;) stride[a - 1] = stride[a] * dims[a];
  std::uint64_t elements = 1;
  for (const std::uint64_t d : dims) elements *= d;
  std::vector<unsigned char> out(in.size());
  std::vector<std::uint64_t> at(rank, 0);  // the output element's index on each output axis
  for (std::uint64_t o = 0; o < elements; ++o) {
    std::uint64_t from = 0;
    for (std::size_t i = 0; i < rank; ++i) from += at[i] * stride[perm[i]];
    std::memcpy(&out[o * elem_size], &in[from * elem_size], elem_size);
    for (std::size_t i = rank; i-- > 0;) {  // the next output element
      if (++at[i] < dims[perm[i]]) break;
      at[i] = 0;
    }
  }
  return out;
}

}  // namespace ipt::support
