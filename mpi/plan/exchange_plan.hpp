// SPDX-License-Identifier: Apache-2.0
// The exchange of a distributed transposition, planned per rank: which scheme moves the
// chunks (pairwise swaps or all-to-all rounds), in what pieces, and what the cost model
// expects each scheme to take. Pure arithmetic: no MPI, no OpenCL.
#pragma once

#include <cstddef>
#include <string>

#include "distribution.hpp"

namespace ipt::mpi {

enum class Scheme { automatic = 0, pairwise = 1, alltoall = 2 };

const char* scheme_name(Scheme s);

// What the cost model assumes of the machine: ranks on one node of GPUs, exchanging
// through shared-memory MPI, as measured with ipt-bench mpi on one node of 4 GPUs:
// 2-5 GB/s per rank, MiB pieces near that rate and pieces of a quarter MiB at half of it,
// all-to-all rounds 10-15% faster than pairwise swaps of pieces as large. A fabric
// between nodes changes the numbers, not the shape.
struct MachineModel {
  double message_latency_s = 5e-6;        // one MPI message's start-up
  double mpi_bytes_per_s = 3e9;           // one rank's send (and receive) rate
  double half_rate_bytes = 256.0 * 1024;  // a piece this large moves at half the rate
  double alltoall_concurrency = 1.15;     // a collective's rate over pairwise swaps'
  double link_bytes_per_s = 20e9;         // device <-> pinned host, each way
  double device_bytes_per_s = 1000e9;     // libipt's local transpositions (read + write)
};

struct ExchangePlan {
  Scheme scheme = Scheme::pairwise;
  bool feasible = true;            // false: the all-to-all scheme asked for with a staging
                                   // budget under 4 (S - 1) bytes (pieces of no byte)
  std::size_t chunk_bytes = 0;     // each pair's c x b chunk
  std::size_t piece_bytes = 0;     // the most one message moves
  std::size_t pieces = 0;          // pieces per chunk
  std::size_t rounds = 0;          // MPI calls of the exchange
  std::size_t slots = 0;           // host slots of the pipeline
  std::size_t slot_bytes = 0;      // each: the pieces it sends, then those it receives
  std::size_t staging_bytes = 0;   // slots * slot_bytes of pinned host memory
  std::size_t exchange_bytes = 0;  // bytes the rank sends (and receives)
  std::size_t local_passes = 0;    // libipt calls on the device, before and after
  double pairwise_s = 0, alltoall_s = 0, local_s = 0;
  double seconds = 0;  // the chosen scheme's, local steps included
};

// Pairwise swaps stage through three slots (one piece read ahead, one in MPI, one being
// written back), all-to-all rounds through two (one round's pieces in MPI while the next
// round's are read); each slot holds what it sends and, apart, what it receives, so that
// MPI copies no piece through a temporary: 6 pieces, or 4 (S - 1). `requested` other than
// automatic is taken as is.
ExchangePlan plan_exchange(const Distribution& d, std::size_t elem_size, unsigned flags,
                           std::size_t staging_budget, Scheme requested,
                           const MachineModel& model = {});

// The rank's plan in words: its blocks, local steps, exchange and modelled times.
std::string describe(const Distribution& d, std::size_t rank, std::size_t elem_size, unsigned flags,
                     const ExchangePlan& plan);

}  // namespace ipt::mpi
