#include "mpi_plan.hpp"

#include <cstdio>
#include <exception>
#include <stdexcept>

#include "distribution.hpp"
#include "exchange_plan.hpp"
#include "plan_check.hpp"

namespace ipt::tools {
namespace {

constexpr const char* kUsage =
    "usage: ipt-plan mpi RANKS ROWS COLS [ELEM_SIZE (default 4)] [--block-rows B]\n"
    "                [--block-cols C] [--staging BYTES (default 16777216; clamped to\n"
    "                4096..1073741824, as the call clamps it)]\n"
    "                [--scheme auto|pairwise|alltoall] [--flags in,out] [--rank R]\n"
    "Prints the plan of ipt_mpi_transpose for a ROWS x COLS matrix distributed over RANKS\n"
    "MPI ranks, rank by rank (or rank R): its blocks and allocation, the local steps, the\n"
    "exchange scheme with its pieces and rounds, and the cost model's times for each\n"
    "scheme. Needs neither MPI nor a device.\n";

mpi::Scheme parse_scheme(const std::string& s) {
  if (s == "auto") return mpi::Scheme::automatic;
  if (s == "pairwise") return mpi::Scheme::pairwise;
  if (s == "alltoall") return mpi::Scheme::alltoall;
  throw std::invalid_argument("unknown scheme " + s);
}

unsigned parse_flags(const std::string& s) {
  unsigned flags = 0;
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t end = s.find(',', at);
    const std::string word = s.substr(at, end == std::string::npos ? end : end - at);
    if (word == "in")
      flags |= 1u;
    else if (word == "out")
      flags |= 2u;
    else if (!word.empty())
      throw std::invalid_argument("unknown flag " + word);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return flags;
}

}  // namespace

int print_mpi_plan(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  try {
    std::vector<std::size_t> numbers;
    std::size_t block_rows = 0, block_cols = 0, staging = std::size_t{16} << 20;
    mpi::Scheme scheme = mpi::Scheme::automatic;
    unsigned flags = 0;
    long rank = -1;
    for (std::size_t k = 0; k < args.size(); ++k) {
      const std::string& a = args[k];
      if (a.rfind("--", 0) == 0) {
        if (k + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
        const std::string& v = args[++k];
        if (a == "--block-rows")
          block_rows = std::stoull(v);
        else if (a == "--block-cols")
          block_cols = std::stoull(v);
        else if (a == "--staging")
          staging = std::stoull(v);
        else if (a == "--scheme")
          scheme = parse_scheme(v);
        else if (a == "--flags")
          flags = parse_flags(v);
        else if (a == "--rank")
          rank = std::stol(v);
        else
          throw std::invalid_argument("unknown option " + a);
      } else {
        numbers.push_back(std::stoull(a));
      }
    }
    if (numbers.size() < 3 || numbers.size() > 4) throw std::invalid_argument("");
    const std::size_t ranks = numbers[0], rows = numbers[1], cols = numbers[2];
    const std::size_t elem_size = numbers.size() == 4 ? numbers[3] : 4;
    // What the call would refuse, refused here with its words.
    const mpi::PlanVerdict verdict =
        mpi::check_plan({ranks, rows, cols, elem_size, flags, block_rows, block_cols,
                         static_cast<int>(scheme), staging});
    if (verdict.refusal != mpi::Refusal::none) {
      std::fprintf(stderr, "ipt-plan mpi: %s\n", verdict.why.c_str());
      return 1;
    }
    const mpi::Distribution& d = verdict.distribution;
    const mpi::ExchangePlan& plan = verdict.plan;
    std::printf(
        "%zu x %zu, %zu-byte elements, over %zu ranks (%zu active): %s exchange, "
        "%zu bytes per chunk, pieces of %zu bytes, %zu MPI calls per rank; model %.3g s "
        "(pairwise %.3g s, alltoall %.3g s, local steps %.3g s)\n",
        rows, cols, elem_size, ranks, d.active, mpi::scheme_name(plan.scheme), plan.chunk_bytes,
        plan.piece_bytes, plan.rounds, plan.seconds, plan.pairwise_s, plan.alltoall_s,
        plan.local_s);
    for (std::size_t r = 0; r < ranks; ++r)
      if (rank < 0 || static_cast<std::size_t>(rank) == r)
        std::printf("%s\n", mpi::describe(d, r, elem_size, flags, plan).c_str());
    return 0;
  } catch (const std::exception& e) {
    if (*e.what() != '\0') std::fprintf(stderr, "ipt-plan mpi: %s\n", e.what());
    std::fputs(kUsage, stderr);
    return 2;
  }
}

}  // namespace ipt::tools
