// SPDX-License-Identifier: Apache-2.0
// The checks of a distributed transposition's arguments that need neither MPI nor a
// device: made by every libipt_mpi call and by ipt_mpi_plan before they plan, and by
// ipt-plan mpi, so that the tool never prints a plan the call would refuse.
#pragma once

#include <cstddef>
#include <string>

#include "distribution.hpp"
#include "exchange_plan.hpp"

namespace ipt::mpi {

// The staging budget's bounds. MPI counts are ints: no message, and no staging slot,
// passes 1 GiB.
constexpr std::size_t kMinStaging = 4096;
constexpr std::size_t kMaxStaging = std::size_t{1} << 30;
std::size_t clamp_staging(std::size_t bytes);

// ipt_mpi.h's flag bits (IPT_MPI_TRANSPOSED_IN | IPT_MPI_TRANSPOSED_OUT); call_arguments.cpp
// checks that the header agrees.
constexpr unsigned kKnownFlags = 3;

struct PlanRequest {
  std::size_t ranks = 0, rows = 0, cols = 0, elem_size = 0;
  unsigned flags = 0;
  std::size_t block_rows = 0, block_cols = 0;  // 0: FFTW's default blocks
  int scheme = 0;                              // an ipt_mpi_scheme (Scheme's values)
  std::size_t staging = 0;                     // bytes; clamped as every call clamps it
};

enum class Refusal { none, element_size, value, overflow };

struct PlanVerdict {
  Refusal refusal = Refusal::none;
  std::string why;  // "" when nothing is refused
  Distribution distribution;
  ExchangePlan plan;  // the plan, when nothing is refused
};

// The element size (1, 2, 4, 8 or 16 bytes), the flags, the scheme, the blocks (rows of
// the matrix or of its transpose left to no rank; a padded block past size_t, in elements
// or in bytes), then the plan (the all-to-all scheme asked for with a budget too small
// for its pieces).
PlanVerdict check_plan(const PlanRequest& request);

}  // namespace ipt::mpi
