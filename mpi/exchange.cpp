#include "exchange.hpp"

#include <algorithm>
#include <vector>

namespace ipt::mpi {
namespace {

using Events = std::vector<cl_event>;

bool wait_all(Events& events) {
  bool ok = true;
  if (!events.empty()) {
    ok = clWaitForEvents(static_cast<cl_uint>(events.size()), events.data()) == CL_SUCCESS;
    for (cl_event e : events) {
      cl_int state = CL_COMPLETE;
      clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, nullptr);
      ok = ok && state == CL_COMPLETE;
      clReleaseEvent(e);
    }
  }
  events.clear();
  return ok;
}

// A pipeline over `units` of work in `slots` host slots: unit u is read into slot u % slots
// (enqueued while unit u - 1 is in MPI), swapped by MPI, then written back (enqueued, and
// waited for only before its slot is read into again). read/write enqueue commands, append
// their events and return false when an enqueue fails; swap makes the MPI call.
template <typename Read, typename Swap, typename Write>
bool pipeline(cl_command_queue queue, std::size_t units, std::size_t slots, Read read, Swap swap,
              Write write) {
  bool ok = true;
  std::vector<Events> reads(slots), writes(slots);
  if (units > 0) ok = read(0, reads[0]) && ok;
  clFlush(queue);
  for (std::size_t u = 0; u < units; ++u) {
    const std::size_t slot = u % slots;
    if (u + 1 < units) {
      const std::size_t next = (u + 1) % slots;
      ok = wait_all(writes[next]) && ok;
      ok = read(u + 1, reads[next]) && ok;
      clFlush(queue);
    }
    const bool arrived = wait_all(reads[slot]);
    ok = arrived && ok;
    ok = swap(u) && ok;  // made whatever failed: the partner waits for it
    if (ok) ok = write(u, writes[slot]);
    clFlush(queue);
  }
  for (Events& events : writes) ok = wait_all(events) && ok;
  for (Events& events : reads) ok = wait_all(events) && ok;
  return ok;
}

// The event of a command just enqueued (code its enqueue's result), kept to wait for.
bool enqueued(cl_int code, cl_event event, Events& events) {
  if (code != CL_SUCCESS) return false;
  events.push_back(event);
  return true;
}

// P - 1 rounds: in round k, rank r swaps with (k - r) mod S, piece by piece. A slot holds
// the piece sent and, after it, the piece received: MPI_Sendrecv between distinct buffers
// saves the copy through a temporary that MPI_Sendrecv_replace makes.
bool exchange_pairwise(const ExchangeTarget& t, const ExchangePlan& plan, Staging& staging) {
  const std::size_t S = t.active, r = t.rank, p = plan.piece_bytes;
  struct Unit {
    std::size_t partner, at, bytes;
  };
  std::vector<Unit> units;
  if (r < S)
    for (std::size_t k = 0; k < S; ++k) {
      const std::size_t partner = (k + S - r) % S;
      if (partner == r) continue;
      for (std::size_t at = 0; at < t.chunk; at += p)
        units.push_back({partner, at, std::min(p, t.chunk - at)});
    }
  const auto where = [&](const Unit& u) { return t.base + u.partner * t.chunk + u.at; };
  const std::size_t slots = plan.slots;
  const auto sent = [&](std::size_t k) { return staging.slot(k % slots); };
  const auto received = [&](std::size_t k) { return staging.slot(k % slots) + p; };
  return pipeline(
      t.queue, units.size(), slots,
      [&](std::size_t k, Events& events) {
        const Unit& u = units[k];
        cl_event e = nullptr;
        const cl_int code = clEnqueueReadBuffer(t.queue, t.buffer, CL_FALSE, where(u), u.bytes,
                                                sent(k), 0, nullptr, &e);
        return enqueued(code, e, events);
      },
      [&](std::size_t k) {
        const Unit& u = units[k];
        const int n = static_cast<int>(u.bytes), partner = static_cast<int>(u.partner);
        return MPI_Sendrecv(sent(k), n, MPI_BYTE, partner, 0, received(k), n, MPI_BYTE, partner, 0,
                            t.comm, MPI_STATUS_IGNORE) == MPI_SUCCESS;
      },
      [&](std::size_t k, Events& events) {
        const Unit& u = units[k];
        cl_event e = nullptr;
        const cl_int code = clEnqueueWriteBuffer(t.queue, t.buffer, CL_FALSE, where(u), u.bytes,
                                                 received(k), 0, nullptr, &e);
        return enqueued(code, e, events);
      });
}

// Rounds of one MPI_Alltoallv: round j moves bytes [j p, (j + 1) p) of every chunk. A
// slot holds the S - 1 pieces sent, in rank order, then the S - 1 received; the rank's own
// chunk stays where it is. Each piece is its own transfer: one rectangle transfer over
// all of them would need a row pitch of a whole chunk, which some drivers get wrong past
// 2 GiB.
bool exchange_alltoall(const ExchangeTarget& t, const ExchangePlan& plan, Staging& staging) {
  int size = 0;
  MPI_Comm_size(t.comm, &size);
  const std::size_t S = t.active, r = t.rank, p = plan.piece_bytes;
  const bool active = r < S && S > 1;
  std::vector<int> counts(static_cast<std::size_t>(size), 0), displs(counts.size(), 0);
  unsigned char dummy[2] = {0, 0};
  const std::size_t slots = plan.slots;
  const auto sent = [&](std::size_t j) { return staging.slot(j % slots); };
  const auto received = [&](std::size_t j) { return staging.slot(j % slots) + (S - 1) * p; };
  const auto transfers = [&](std::size_t j, bool reading, Events& events) {
    const std::size_t at = j * p, n = std::min(p, t.chunk - at);
    bool ok = true;
    for (std::size_t q = 0; q < S; ++q) {
      if (q == r) continue;
      const std::size_t where = t.base + q * t.chunk + at, place = (q < r ? q : q - 1) * n;
      cl_event e = nullptr;
      const cl_int code = reading ? clEnqueueReadBuffer(t.queue, t.buffer, CL_FALSE, where, n,
                                                        sent(j) + place, 0, nullptr, &e)
                                  : clEnqueueWriteBuffer(t.queue, t.buffer, CL_FALSE, where, n,
                                                         received(j) + place, 0, nullptr, &e);
      ok = enqueued(code, e, events) && ok;  // after the call has set e
    }
    return ok;
  };
  return pipeline(
      t.queue, plan.rounds, slots,
      [&](std::size_t j, Events& events) { return !active || transfers(j, true, events); },
      [&](std::size_t j) {
        const std::size_t n = active ? std::min(p, t.chunk - j * p) : 0;
        for (std::size_t q = 0; q < counts.size(); ++q) {
          const bool partner = active && q < S && q != r;
          counts[q] = partner ? static_cast<int>(n) : 0;
          displs[q] = partner ? static_cast<int>((q < r ? q : q - 1) * n) : 0;
        }
        unsigned char* out = active ? sent(j) : &dummy[0];
        unsigned char* in = active ? received(j) : &dummy[1];
        return MPI_Alltoallv(out, counts.data(), displs.data(), MPI_BYTE, in, counts.data(),
                             displs.data(), MPI_BYTE, t.comm) == MPI_SUCCESS;
      },
      [&](std::size_t j, Events& events) { return !active || transfers(j, false, events); });
}

}  // namespace

Staging make_staging(const ExchangeTarget& t, const ExchangePlan& plan) {
  const bool active = t.rank < t.active && t.active > 1;
  return active ? Staging(t.queue, plan.slots, plan.slot_bytes) : Staging(t.queue, 0, 0);
}

bool exchange(const ExchangeTarget& t, const ExchangePlan& plan, Staging& staging) {
  return plan.scheme == Scheme::alltoall ? exchange_alltoall(t, plan, staging)
                                         : exchange_pairwise(t, plan, staging);
}

}  // namespace ipt::mpi
