#include "agreement.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

namespace ipt::mpi {
namespace {

thread_local std::string last_error_message;
constexpr int kMessageBytes = 512;

}  // namespace

void set_last_error(std::string message) { last_error_message = std::move(message); }

const char* last_error() { return last_error_message.c_str(); }

ipt_status agree(MPI_Comm comm, ipt_status mine, const std::string& why) {
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
  const std::string text = "rank " + std::to_string(rank) + ": " + why;
  std::memcpy(report.text, text.data(), std::min<std::size_t>(text.size(), kMessageBytes - 1));
  MPI_Bcast(&report, static_cast<int>(sizeof report), MPI_BYTE, first, comm);
  report.text[kMessageBytes - 1] = '\0';
  set_last_error(report.text);
  return static_cast<ipt_status>(report.status);
}

bool same_everywhere(MPI_Comm comm, const std::vector<unsigned long long>& values) {
  std::vector<unsigned long long> low(values.size()), high(values.size());
  const int n = static_cast<int>(values.size());
  MPI_Allreduce(values.data(), low.data(), n, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
  MPI_Allreduce(values.data(), high.data(), n, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  return low == high;
}

unsigned long long least(MPI_Comm comm, unsigned long long value) {
  unsigned long long low = value;
  MPI_Allreduce(&value, &low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
  return low;
}

}  // namespace ipt::mpi
