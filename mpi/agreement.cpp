// SPDX-License-Identifier: Apache-2.0
#include "agreement.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>

namespace ipt::mpi {
namespace {

thread_local std::string last_error_message;
constexpr int kMessageBytes = 512;

}  // namespace

void set_last_error(const char* message) noexcept {
  try {
    last_error_message = message;
  } catch (...) {
    last_error_message = "out of memory";  // short enough to need no allocation
  }
}

const char* last_error() noexcept { return last_error_message.c_str(); }

namespace {

// Every rank learns the status and message of rank `first`, the lowest failing one.
ipt_status tell_first(MPI_Comm comm, int rank, int first, ipt_status mine,
                      const char* why) noexcept {
  struct {
    int status;
    char text[kMessageBytes];
  } report{};
  report.status = static_cast<int>(mine);
  std::snprintf(report.text, sizeof report.text, "rank %d: %s", rank, why);
  MPI_Bcast(&report, static_cast<int>(sizeof report), MPI_BYTE, first, comm);
  report.text[kMessageBytes - 1] = '\0';
  set_last_error(report.text);
  return static_cast<ipt_status>(report.status);
}

}  // namespace

ipt_status agree(MPI_Comm comm, ipt_status mine, const char* why) noexcept {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int failing = mine == IPT_SUCCESS ? INT_MAX : rank, first = INT_MAX;
  MPI_Allreduce(&failing, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) {
    set_last_error("");
    return IPT_SUCCESS;
  }
  return tell_first(comm, rank, first, mine, why);
}

ipt_status agree_on_arguments(MPI_Comm comm, ipt_status mine, const char* why,
                              std::initializer_list<unsigned long long> values, const char* differ,
                              unsigned long long budget, unsigned long long* least) noexcept {
  // One MPI_MIN over the values, their complements (whose least is the greatest value),
  // the failing rank and the budget.
  constexpr std::size_t kMost = 16;
  const std::size_t n = std::min(values.size(), kMost);
  unsigned long long mine_all[2 * kMost + 2] = {}, low[2 * kMost + 2] = {};
  std::copy_n(values.begin(), n, mine_all);
  for (std::size_t k = 0; k < n; ++k) mine_all[n + k] = ~mine_all[k];
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  mine_all[2 * n] = mine == IPT_SUCCESS ? ULLONG_MAX : static_cast<unsigned long long>(rank);
  mine_all[2 * n + 1] = budget;
  MPI_Allreduce(mine_all, low, static_cast<int>(2 * n + 2), MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
  if (low[2 * n] != ULLONG_MAX)
    return tell_first(comm, rank, static_cast<int>(low[2 * n]), mine, why);
  if (!std::equal(low, low + n, low + n, [](auto a, auto b) { return a == ~b; })) {
    // Named as every failure is: by the lowest rank whose values are not the least.
    int odd = std::equal(low, low + n, mine_all) ? INT_MAX : rank, first = INT_MAX;
    MPI_Allreduce(&odd, &first, 1, MPI_INT, MPI_MIN, comm);
    return tell_first(comm, rank, first, IPT_INVALID_VALUE, differ);
  }
  *least = low[2 * n + 1];
  set_last_error("");
  return IPT_SUCCESS;
}

}  // namespace ipt::mpi
