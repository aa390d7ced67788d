// SPDX-License-Identifier: Apache-2.0
#include "timed_runs.hpp"

#include <cstdio>

#include "support/measure.hpp"
#include "support/transpose_run.hpp"

namespace ipt::bench {

bool failed(ipt_status status) {
  if (status == IPT_SUCCESS) return false;
  std::fprintf(stderr, "ipt-bench: %s\n", support::failure_text(status).c_str());
  return true;
}

std::vector<double> time_runs(const support::Session& session, const Enqueue& enqueue,
                              int repetitions) {
  std::vector<double> seconds;
  for (int run = -2; run < 2 * repetitions; ++run) {
    cl_event marker = nullptr;
    support::check(clEnqueueMarkerWithWaitList(session.queue(), 0, nullptr, &marker),
                   "clEnqueueMarkerWithWaitList");
    cl_event done = enqueue(run % 2 == 0);
    if (done == nullptr) {
      clReleaseEvent(marker);
      return {};
    }
    support::check(clWaitForEvents(1, &done), "clWaitForEvents");
    if (run >= 0) seconds.push_back(support::after_seconds(marker, done));
    clReleaseEvent(marker);
    clReleaseEvent(done);
  }
  return seconds;
}

}  // namespace ipt::bench
