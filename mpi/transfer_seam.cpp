// SPDX-License-Identifier: Apache-2.0
// The library's side of the seam: nothing is refused. Weak, so that a test's strong
// definition, linked beside libipt_mpi's objects, replaces it.
#include "transfer_seam.hpp"

namespace ipt::mpi::seam {

__attribute__((weak)) cl_int refused_transfer(bool) { return CL_SUCCESS; }

}  // namespace ipt::mpi::seam
