// What every rank of a distributed call agrees on: the same arguments, and one status (the
// first failing rank's, with its message) returned everywhere, so that no rank goes on
// into the exchange while another has stopped.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "ipt/ipt.h"

namespace ipt::mpi {

// The calling thread's last error message ("" after a success).
void set_last_error(std::string message);
const char* last_error();

// Collective: IPT_SUCCESS when every rank passed IPT_SUCCESS; else, on every rank, the
// status of the lowest failing rank, whose `why` becomes every rank's last error message.
ipt_status agree(MPI_Comm comm, ipt_status mine, const std::string& why);

// Collective: whether every rank passed the same values.
bool same_everywhere(MPI_Comm comm, const std::vector<unsigned long long>& values);

// Collective: the least of every rank's value.
unsigned long long least(MPI_Comm comm, unsigned long long value);

}  // namespace ipt::mpi
