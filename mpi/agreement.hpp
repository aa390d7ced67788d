// SPDX-License-Identifier: Apache-2.0
// What every rank of a distributed call agrees on: the same arguments, and one status (the
// first failing rank's, with its message) returned everywhere, so that no rank goes on
// into the exchange while another has stopped.
#pragma once

#include <mpi.h>

#include <initializer_list>
#include <string>

#include "ipt/ipt.h"

namespace ipt::mpi {

// The calling thread's last error message ("" after a success). Never throws: without
// memory for the text, the message says so.
void set_last_error(const char* message) noexcept;
const char* last_error() noexcept;

// Collective: IPT_SUCCESS when every rank passed IPT_SUCCESS; else, on every rank, the
// status of the lowest failing rank, whose `why` becomes every rank's last error message.
// Allocates nothing, throws nothing.
ipt_status agree(MPI_Comm comm, ipt_status mine, const char* why) noexcept;

// Collective, the arguments' agreement in one reduction when they agree: agree()'s status,
// and else IPT_INVALID_VALUE where the ranks passed different `values` (at most 16),
// `differ` said by the lowest rank whose values are not the least; on success *least
// holds the least of the ranks' `budget`. Allocates nothing, throws nothing.
ipt_status agree_on_arguments(MPI_Comm comm, ipt_status mine, const char* why,
                              std::initializer_list<unsigned long long> values, const char* differ,
                              unsigned long long budget, unsigned long long* least) noexcept;

}  // namespace ipt::mpi
