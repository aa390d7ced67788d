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

ipt_status agree(MPI_Comm comm, ipt_status mine, const char* why) noexcept {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int failing = mine == IPT_SUCCESS ? INT_MAX : rank, first = INT_MAX;
  MPI_Allreduce(&failing, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) {
    set_last_error("");
    return IPT_SUCCESS;
  }
  // The first failing rank tells every rank its status and why.
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

bool same_everywhere(MPI_Comm comm, std::initializer_list<unsigned long long> values) noexcept {
  constexpr std::size_t kMost = 16;
  unsigned long long mine[kMost] = {}, low[kMost] = {}, high[kMost] = {};
  const std::size_t n = std::min(values.size(), kMost);
  std::copy_n(values.begin(), n, mine);
  MPI_Allreduce(mine, low, static_cast<int>(n), MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
  MPI_Allreduce(mine, high, static_cast<int>(n), MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  return std::equal(low, low + n, high);
}

unsigned long long least(MPI_Comm comm, unsigned long long value) noexcept {
  unsigned long long low = value;
  MPI_Allreduce(&value, &low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
  return low;
}

}  // namespace ipt::mpi
