// SPDX-License-Identifier: Apache-2.0
#include "own_comm.hpp"

#include <cstring>

namespace ipt::mpi {
namespace {

// The duplicate's handle is kept in the attribute's value itself (MPI_Comm is an int or
// a pointer), so that keeping it allocates nothing that one rank could fail to get.
static_assert(sizeof(MPI_Comm) <= sizeof(void*));

void* as_value(MPI_Comm comm) {
  void* value = nullptr;
  std::memcpy(&value, &comm, sizeof comm);
  return value;
}

MPI_Comm as_comm(void* value) {
  MPI_Comm comm = MPI_COMM_NULL;
  std::memcpy(&comm, &value, sizeof comm);
  return comm;
}

// Frees the duplicate when the caller frees their communicator (or MPI finalizes).
int free_own(MPI_Comm, int, void* value, void*) {
  MPI_Comm own = as_comm(value);
  return MPI_Comm_free(&own);
}

// The attribute's key, created once per process (after MPI_Init: at the first call).
int own_key() {
  static const int key = [] {
    int k = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_own, &k, nullptr) != MPI_SUCCESS)
      return MPI_KEYVAL_INVALID;
    return k;
  }();
  return key;
}

}  // namespace

MPI_Comm own_comm(MPI_Comm comm) noexcept {
  const int key = own_key();
  if (key == MPI_KEYVAL_INVALID) return MPI_COMM_NULL;
  void* value = nullptr;
  int found = 0;
  if (MPI_Comm_get_attr(comm, key, &value, &found) != MPI_SUCCESS) return MPI_COMM_NULL;
  if (found != 0) return as_comm(value);
  MPI_Comm own = MPI_COMM_NULL;
  if (MPI_Comm_dup(comm, &own) != MPI_SUCCESS) return MPI_COMM_NULL;
  if (MPI_Comm_set_attr(comm, key, as_value(own)) != MPI_SUCCESS) {
    MPI_Comm_free(&own);
    return MPI_COMM_NULL;
  }
  return own;
}

}  // namespace ipt::mpi
