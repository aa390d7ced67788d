// SPDX-License-Identifier: Apache-2.0
// ipt-bench permute: ipt_permute on a protocol of common layouts (NCHW <-> NHWC of ResNet-
// and ViT-like activations, attention heads [B][S][H][D] -> [B][H][S][D], FFT pencils
// xyz -> zxy / yzx of cubes and bricks) and random rank-3 and rank-4 permutations; every
// result verified on the host, the copy bandwidth measured in the same run, the extra
// device memory of each plan. tools/compare/torch_permute.py times PyTorch's
// x.permute(perm).contiguous() on the cases of its --csv.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/device_select.hpp"

namespace ipt::bench {

// Prints the table and the summary; writes one line per case to `csv` when not empty.
// With `dims` given, the one tensor permuted by `perm` instead of the protocol. Returns 0
// when every call succeeded and every result was right.
int run_permute(const support::Session& session, std::size_t elem_size, std::size_t count,
                std::uint64_t seed, int repetitions, const std::string& csv,
                const std::vector<std::size_t>& dims, const std::vector<std::size_t>& perm);

}  // namespace ipt::bench
