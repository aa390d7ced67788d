// SPDX-License-Identifier: Apache-2.0
#include "plan_check.hpp"

#include <algorithm>

namespace ipt::mpi {

std::size_t clamp_staging(std::size_t bytes) { return std::clamp(bytes, kMinStaging, kMaxStaging); }

PlanVerdict check_plan(const PlanRequest& r) {
  PlanVerdict v;
  const auto refuse = [&](Refusal why_not, std::string text) {
    v.refusal = why_not;
    v.why = std::move(text);
    return v;
  };
  const std::size_t e = r.elem_size;
  if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16)
    return refuse(Refusal::element_size,
                  "elem_size " + std::to_string(e) + " is not 1, 2, 4, 8 or 16");
  if ((r.flags & ~kKnownFlags) != 0)
    return refuse(Refusal::value, "flags " + std::to_string(r.flags) + " name unknown bits");
  if (r.scheme != static_cast<int>(Scheme::automatic) &&
      r.scheme != static_cast<int>(Scheme::pairwise) &&
      r.scheme != static_cast<int>(Scheme::alltoall))
    return refuse(Refusal::value,
                  "the scheme " + std::to_string(r.scheme) + " is not an ipt_mpi_scheme");
  bool overflow = false;
  if (std::string no = distribute(r.ranks, r.rows, r.cols, r.block_rows, r.block_cols,
                                  &v.distribution, &overflow);
      !no.empty())
    return refuse(overflow ? Refusal::overflow : Refusal::value, std::move(no));
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(v.distribution.alloc, e, &bytes))
    return refuse(Refusal::overflow, "the padded block's bytes overflow size_t");
  v.plan = plan_exchange(v.distribution, e, r.flags, clamp_staging(r.staging),
                         static_cast<Scheme>(r.scheme));
  if (!v.plan.feasible)
    return refuse(Refusal::value,
                  "the all-to-all scheme needs 4 (S - 1) bytes of staging per piece byte and "
                  "the staging budget is smaller");
  return v;
}

}  // namespace ipt::mpi
