// SPDX-License-Identifier: Apache-2.0
#include "exchange.hpp"

#include <algorithm>

#include "transfer_seam.hpp"

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

// Enqueues a transfer of `bytes` between the block's buffer at `at` and `host` (`reading`:
// from the device), its event in *e; returns the enqueue's result.
cl_int transfer(const ExchangeTarget& t, bool reading, std::size_t at, std::size_t bytes,
                unsigned char* host, cl_event* e) {
  if (const cl_int refused = seam::refused_transfer(reading); refused != CL_SUCCESS) return refused;
  return reading
             ? clEnqueueReadBuffer(t.queue, t.buffer, CL_FALSE, at, bytes, host, 0, nullptr, e)
             : clEnqueueWriteBuffer(t.queue, t.buffer, CL_FALSE, at, bytes, host, 0, nullptr, e);
}

// The event of a command just enqueued (code its enqueue's result), kept to wait for: in
// capacity reserved beforehand, so this never allocates.
bool enqueued(cl_int code, cl_event event, Events& events) {
  if (code != CL_SUCCESS) return false;
  events.push_back(event);
  return true;
}

// A pipeline over `units` of work in the resources' slots: unit u is read into slot
// u % slots (enqueued while unit u - 1 is in MPI), swapped by MPI, then written back
// (enqueued, and waited for only before its slot is read into again). read/write enqueue
// commands, append their events and return false when an enqueue fails; swap makes the
// MPI call, made whatever failed before, since the partners wait for it.
template <typename Read, typename Swap, typename Write>
bool pipeline(cl_command_queue queue, std::size_t units, ExchangeResources& r, Read read, Swap swap,
              Write write) {
  const std::size_t slots = r.reads.size();
  const auto flush = [&] {
    if (queue != nullptr) clFlush(queue);
  };
  bool ok = true;
  if (units > 0) ok = read(0, r.reads[0]) && ok;
  flush();
  for (std::size_t u = 0; u < units; ++u) {
    const std::size_t slot = u % slots;
    if (u + 1 < units) {
      const std::size_t next = (u + 1) % slots;
      ok = wait_all(r.writes[next]) && ok;
      ok = read(u + 1, r.reads[next]) && ok;
      flush();
    }
    ok = wait_all(r.reads[slot]) && ok;
    ok = swap(u) && ok;
    if (ok) ok = write(u, r.writes[slot]);
    flush();
  }
  for (Events& events : r.writes) ok = wait_all(events) && ok;
  for (Events& events : r.reads) ok = wait_all(events) && ok;
  return ok;
}

// S - 1 rounds: in round k, rank r swaps with (k - r) mod S, piece by piece; unit u is
// piece u % pieces of the chunk of the (u / pieces)-th partner, the round in which r meets
// itself left out. A slot holds the piece sent and, after it, the piece received:
// MPI_Sendrecv between distinct buffers saves the copy through a temporary that
// MPI_Sendrecv_replace makes.
bool exchange_pairwise(const ExchangeTarget& t, const ExchangePlan& plan, ExchangeResources& r) {
  const std::size_t S = t.active, me = t.rank, p = plan.piece_bytes, pieces = plan.pieces;
  const std::size_t units = me < S && S > 1 ? (S - 1) * pieces : 0;
  const std::size_t own_round = (2 * me) % (S > 0 ? S : 1);
  struct Unit {
    std::size_t partner, at, bytes;
  };
  const auto unit = [&](std::size_t u) {
    const std::size_t k = u / pieces < own_round ? u / pieces : u / pieces + 1;
    const std::size_t at = (u % pieces) * p;
    return Unit{(k + S - me) % S, at, std::min(p, t.chunk - at)};
  };
  const auto where = [&](const Unit& u) { return t.base + u.partner * t.chunk + u.at; };
  const std::size_t slots = plan.slots;
  const auto sent = [&](std::size_t k) { return r.staging.slot(k % slots); };
  const auto received = [&](std::size_t k) { return r.staging.slot(k % slots) + p; };
  return pipeline(
      t.queue, units, r,
      [&](std::size_t k, Events& events) {
        const Unit u = unit(k);
        cl_event e = nullptr;
        const cl_int code = transfer(t, true, where(u), u.bytes, sent(k), &e);
        return enqueued(code, e, events);
      },
      [&](std::size_t k) {
        const Unit u = unit(k);
        const int n = static_cast<int>(u.bytes), partner = static_cast<int>(u.partner);
        return MPI_Sendrecv(sent(k), n, MPI_BYTE, partner, 0, received(k), n, MPI_BYTE, partner, 0,
                            t.comm, MPI_STATUS_IGNORE) == MPI_SUCCESS;
      },
      [&](std::size_t k, Events& events) {
        const Unit u = unit(k);
        cl_event e = nullptr;
        const cl_int code = transfer(t, false, where(u), u.bytes, received(k), &e);
        return enqueued(code, e, events);
      });
}

// Rounds of one MPI_Alltoallv: round j moves bytes [j p, (j + 1) p) of every chunk. A
// slot holds the S - 1 pieces sent, in rank order, then the S - 1 received; the rank's own
// chunk stays where it is. Each piece is its own transfer: one rectangle transfer over
// all of them would need a row pitch of a whole chunk, which some drivers get wrong past
// 2 GiB.
bool exchange_alltoall(const ExchangeTarget& t, const ExchangePlan& plan, ExchangeResources& r) {
  const std::size_t S = t.active, me = t.rank, p = plan.piece_bytes;
  const bool active = me < S && S > 1;
  unsigned char dummy[2] = {0, 0};
  const std::size_t slots = plan.slots;
  const auto sent = [&](std::size_t j) { return r.staging.slot(j % slots); };
  const auto received = [&](std::size_t j) { return r.staging.slot(j % slots) + (S - 1) * p; };
  const auto transfers = [&](std::size_t j, bool reading, Events& events) {
    const std::size_t at = j * p, n = std::min(p, t.chunk - at);
    bool ok = true;
    for (std::size_t q = 0; q < S; ++q) {
      if (q == me) continue;
      const std::size_t where = t.base + q * t.chunk + at, place = (q < me ? q : q - 1) * n;
      cl_event e = nullptr;
      const cl_int code =
          transfer(t, reading, where, n, (reading ? sent(j) : received(j)) + place, &e);
      ok = enqueued(code, e, events) && ok;  // after the call has set e
    }
    return ok;
  };
  return pipeline(
      t.queue, plan.rounds, r,
      [&](std::size_t j, Events& events) { return !active || transfers(j, true, events); },
      [&](std::size_t j) {
        const std::size_t n = active ? std::min(p, t.chunk - j * p) : 0;
        for (std::size_t q = 0; q < r.counts.size(); ++q) {
          const bool partner = active && q < S && q != me;
          r.counts[q] = partner ? static_cast<int>(n) : 0;
          r.displs[q] = partner ? static_cast<int>((q < me ? q : q - 1) * n) : 0;
        }
        unsigned char* out = active ? sent(j) : &dummy[0];
        unsigned char* in = active ? received(j) : &dummy[1];
        return MPI_Alltoallv(out, r.counts.data(), r.displs.data(), MPI_BYTE, in, r.counts.data(),
                             r.displs.data(), MPI_BYTE, t.comm) == MPI_SUCCESS;
      },
      [&](std::size_t j, Events& events) { return !active || transfers(j, false, events); });
}

}  // namespace

ExchangeResources::ExchangeResources(const ExchangeTarget& t, const ExchangePlan& plan)
    : staging(t.queue, t.rank < t.active && t.active > 1 ? plan.slots : 0, plan.slot_bytes) {
  // A slot's transfers: one piece each way (pairwise), or one per partner (all-to-all).
  const std::size_t per_slot = plan.scheme == Scheme::alltoall && t.active > 1 ? t.active - 1 : 1;
  const std::size_t slots = std::max<std::size_t>(plan.slots, 1);
  reads.resize(slots);
  writes.resize(slots);
  for (std::size_t s = 0; s < slots; ++s) {
    reads[s].reserve(per_slot);
    writes[s].reserve(per_slot);
  }
  counts.resize(t.ranks);
  displs.resize(t.ranks);
}

bool exchange(const ExchangeTarget& t, const ExchangePlan& plan, ExchangeResources& r) noexcept {
  const bool ok = plan.scheme == Scheme::alltoall ? exchange_alltoall(t, plan, r)
                                                  : exchange_pairwise(t, plan, r);
  // Nothing may still read or write the staging, pageable or pinned, once it is freed.
  const bool done = t.queue == nullptr || clFinish(t.queue) == CL_SUCCESS;
  return ok && done;
}

}  // namespace ipt::mpi
