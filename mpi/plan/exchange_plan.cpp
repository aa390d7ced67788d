// SPDX-License-Identifier: Apache-2.0
#include "exchange_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace ipt::mpi {
namespace {

constexpr unsigned kTransposedIn = 1u, kTransposedOut = 2u;  // as IPT_MPI_TRANSPOSED_IN/OUT

std::size_t ceil_div(std::size_t a, std::size_t b) { return a / b + (a % b != 0); }

// Pieces are whole multiples of 64 bytes where the budget allows: the transfers and the
// messages then start on cache lines.
std::size_t round_piece(std::size_t piece, std::size_t chunk) {
  if (piece >= chunk) return chunk;
  return piece >= 64 ? piece / 64 * 64 : std::max<std::size_t>(piece, 1);
}

// Device passes before and after the exchange (each reads and writes the padded block):
// the spread to pitch S c and the transposition before; the batched transposition, and
// either the transposition and close-up or the close-up alone, after.
std::size_t local_passes(std::size_t active, unsigned flags) {
  const bool in = (flags & kTransposedIn) != 0, out = (flags & kTransposedOut) != 0;
  if (active == 1) return in == out ? 1 : 0;  // the one rank's block transposed, or not
  const std::size_t before = in ? 1 : 2;
  const std::size_t after = out ? 2 : 3;
  return before + after;
}

// Appends printf-style text to `words`, whatever its length.
__attribute__((format(printf, 2, 3))) void appendf(std::string& words, const char* format, ...) {
  std::va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (n > 0) {
    const std::size_t at = words.size();
    words.resize(at + static_cast<std::size_t>(n) + 1);
    std::vsnprintf(&words[at], static_cast<std::size_t>(n) + 1, format, again);
    words.resize(at + static_cast<std::size_t>(n));
  }
  va_end(again);
}

}  // namespace

const char* scheme_name(Scheme s) {
  switch (s) {
    case Scheme::pairwise:
      return "pairwise";
    case Scheme::alltoall:
      return "alltoall";
    default:
      return "auto";
  }
}

ExchangePlan plan_exchange(const Distribution& d, std::size_t elem_size, unsigned flags,
                           std::size_t staging_budget, Scheme requested,
                           const MachineModel& model) {
  ExchangePlan p;
  const std::size_t S = d.active, budget = std::max<std::size_t>(staging_budget, 4096);
  if (S == 0) return p;
  p.chunk_bytes = d.block_rows * d.block_cols * elem_size;
  p.exchange_bytes = (S - 1) * p.chunk_bytes;
  p.local_passes = local_passes(S, flags);
  p.local_s = static_cast<double>(p.local_passes) * 2.0 * static_cast<double>(d.alloc) *
              static_cast<double>(elem_size) / model.device_bytes_per_s;
  // A piece of n bytes takes the message start-up plus (n + h) / rate: MPI reaches its
  // rate only on pieces well above h. The device transfers are hidden behind the messages
  // but for the pipeline's first piece, read and written.
  const auto piece_s = [&](std::size_t n, double rate) {
    return (static_cast<double>(n) + model.half_rate_bytes) / rate;
  };
  const double rate = std::min(model.mpi_bytes_per_s, model.link_bytes_per_s);

  const std::size_t pw_piece = round_piece(budget / 6, p.chunk_bytes);
  const std::size_t pw_pieces = p.chunk_bytes == 0 ? 0 : ceil_div(p.chunk_bytes, pw_piece);
  const std::size_t pw_rounds = (S - 1) * pw_pieces;
  // Each chunk: its full pieces, then the rest.
  const std::size_t pw_rest = p.chunk_bytes - (pw_pieces - (pw_pieces > 0)) * pw_piece;
  p.pairwise_s = static_cast<double>(S - 1) *
                     (static_cast<double>(pw_pieces) * model.message_latency_s +
                      static_cast<double>(pw_pieces - (pw_pieces > 0)) * piece_s(pw_piece, rate) +
                      (pw_pieces > 0 ? piece_s(pw_rest, rate) : 0.0)) +
                 (S > 1 ? 2.0 * static_cast<double>(pw_piece) / model.link_bytes_per_s : 0.0);

  // A collective's start-up grows with log2 S (the libraries' Bruck and pairwise
  // algorithms overlap their messages); its S - 1 pieces a round move concurrently.
  const std::size_t a2a_share = S > 1 ? budget / (4 * (S - 1)) : 0;
  const bool a2a_fits = S <= 1 || a2a_share > 0;
  const std::size_t a2a_piece = a2a_share > 0 ? round_piece(a2a_share, p.chunk_bytes) : 0;
  const std::size_t a2a_rounds = a2a_piece == 0 ? 0 : ceil_div(p.chunk_bytes, a2a_piece);
  const double stages = S > 1 ? std::ceil(std::log2(static_cast<double>(S))) : 0.0;
  const double a2a_rate = rate * model.alltoall_concurrency;
  const std::size_t a2a_rest = a2a_rounds == 0 ? 0 : p.chunk_bytes - (a2a_rounds - 1) * a2a_piece;
  p.alltoall_s = a2a_rounds == 0
                     ? 0.0
                     : static_cast<double>(a2a_rounds) * stages * model.message_latency_s +
                           static_cast<double>(S - 1) *
                               (static_cast<double>(a2a_rounds - 1) * piece_s(a2a_piece, a2a_rate) +
                                piece_s(a2a_rest, a2a_rate)) +
                           2.0 * static_cast<double>((S - 1) * a2a_piece) / model.link_bytes_per_s;

  p.scheme = requested;
  if (requested == Scheme::automatic)
    p.scheme =
        S > 2 && a2a_fits && p.alltoall_s < p.pairwise_s ? Scheme::alltoall : Scheme::pairwise;
  p.feasible = p.scheme != Scheme::alltoall || a2a_fits;
  if (p.scheme == Scheme::pairwise) {
    p.piece_bytes = pw_piece;
    p.pieces = pw_pieces;
    p.rounds = pw_rounds;
    p.slots = S > 1 ? 3 : 0;
    p.slot_bytes = 2 * pw_piece;
    p.seconds = p.pairwise_s + p.local_s;
  } else {
    p.piece_bytes = a2a_piece;
    p.pieces = a2a_rounds;
    p.rounds = a2a_rounds;
    p.slots = 2;
    p.slot_bytes = 2 * (S - 1) * a2a_piece;
    p.seconds = p.alltoall_s + p.local_s;
  }
  p.staging_bytes = p.slots * p.slot_bytes;
  return p;
}

std::string describe(const Distribution& d, std::size_t rank, std::size_t elem_size, unsigned flags,
                     const ExchangePlan& plan) {
  const Share s = share_of(d, rank);
  const std::size_t S = d.active, b = d.block_rows, c = d.block_cols;
  std::string words;
  appendf(words,
          "rank %zu of %zu (%zu active): rows [%zu, %zu) of %zu x %zu, %zu-byte elements, "
          "blocks of %zu rows and %zu transposed rows; after: rows [%zu, %zu) of the "
          "transpose; buffer %zu elements. ",
          rank, d.ranks, S, s.row_start, s.row_start + s.rows, d.rows, d.cols, elem_size, b, c,
          s.col_start, s.col_start + s.cols, s.alloc);
  if (!s.active) return words;
  const bool in = (flags & kTransposedIn) != 0, out = (flags & kTransposedOut) != 0;
  if (S == 1) {
    appendf(words, "One active rank: no exchange; %s. Model: %.3g s.",
            in == out ? "the block transposed in place (ipt_transpose)"
                      : "the block is already in the layout asked for",
            plan.seconds);
    return words;
  }
  appendf(words, "Before: %s; %zu chunks of %zu x %zu. ",
          in ? "the transposed block's rows spread to pitch b"
             : "rows spread to pitch S c, the b x S c block transposed",
          S, c, b);
  if (plan.scheme == Scheme::pairwise)
    appendf(words,
            "Exchange: pairwise, %zu partners x %zu pieces of %zu bytes (MPI_Sendrecv), %zu "
            "bytes of pinned staging in %zu slots. ",
            S - 1, plan.pieces, plan.piece_bytes, plan.staging_bytes, plan.slots);
  else
    appendf(words,
            "Exchange: alltoall, %zu rounds of MPI_Alltoallv moving %zu pieces of %zu bytes, "
            "%zu bytes of pinned staging in %zu slots. ",
            plan.rounds, S - 1, plan.piece_bytes, plan.staging_bytes, plan.slots);
  appendf(words,
          "After: %zu chunks transposed (batched)%s. Model: %.3g s (pairwise %.3g, "
          "alltoall %.3g, local steps %.3g).",
          S,
          out ? ", the rows closed to pitch local_cols"
              : ", the S b x c block transposed and closed to pitch M",
          plan.seconds, plan.pairwise_s, plan.alltoall_s, plan.local_s);
  return words;
}

}  // namespace ipt::mpi
