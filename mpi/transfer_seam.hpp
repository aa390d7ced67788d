// SPDX-License-Identifier: Apache-2.0
// The seam every device transfer of the exchange passes (exchange.cpp). The library's
// definition (transfer_seam.cpp) is weak and refuses nothing; the test of the exchange's
// failures (tests/mpi/test_mpi_exchange_faults.cpp), built from libipt_mpi's objects,
// links a strong one that refuses the transfers it is told to, as a driver would.
// libipt_mpi.so carries only the no-op.
#pragma once

#include <CL/cl.h>

namespace ipt::mpi::seam {

// Before each transfer between the block and the host staging (`reading`: from the
// device): CL_SUCCESS, or the error its enqueue is to fail with.
cl_int refused_transfer(bool reading);

}  // namespace ipt::mpi::seam
