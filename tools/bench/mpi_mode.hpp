// SPDX-License-Identifier: Apache-2.0
// ipt-bench mpi: the distributed transposition of libipt_mpi (ipt/ipt_mpi.h) under mpirun,
// one OpenCL device per rank (the local rank's, modulo the devices of the selected
// platform, so that ranks of one node spread over its GPUs or share one). For each shape
// and exchange scheme: the plan, the slowest rank's time of the call (median over the
// timed runs, each after a barrier, the input rewritten before each outside the timing),
// the aggregate throughput 2 * rows * cols * elem_size / t and the largest block's
// 2 * local_rows * cols * elem_size / t, beside what the same run measured: the copy
// bandwidth of each device, and an MPI all-to-all of the bytes each rank exchanges in the
// call, between host buffers; with the extra memory per rank (the padding past the block
// in its buffer, and the host staging). Every result is checked on the device, element
// by element, against the value computed from its global index.
//
// It is a program of its own, ipt-bench-mpi, which `ipt-bench mpi` runs in its place:
// ipt-bench itself then needs neither MPI nor libipt_mpi, and calls no MPI_Init.
#pragma once

namespace ipt::bench {

// argv: the program, then the mpi mode's options. Initialises and finalises MPI. Returns
// 0 when every call succeeded and was verified, 1 on a failure, 2 on bad arguments.
int run_mpi(int argc, char** argv);

}  // namespace ipt::bench
