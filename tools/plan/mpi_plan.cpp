// SPDX-License-Identifier: Apache-2.0
#include "mpi_plan.hpp"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "distribution.hpp"
#include "exchange_plan.hpp"
#include "plan_check.hpp"
#include "support/cli_values.hpp"
#include "support/command_line.hpp"

namespace ipt::tools {
namespace {

// --rank's largest value: a rank the printout could reach, and far below long's range.
constexpr std::uint64_t kMaxRank = 1u << 30;

constexpr const char* kUsage =
    "usage: ipt-plan mpi RANKS ROWS COLS [ELEM_SIZE] [--block-rows B] [--block-cols C]\n"
    "                [--staging BYTES] [--scheme auto|pairwise|alltoall] [--flags in,out]\n"
    "                [--rank R]\n"
    "\n"
    "Prints the plan of ipt_mpi_transpose for a ROWS x COLS matrix of ELEM_SIZE-byte\n"
    "elements (default 4) distributed over RANKS MPI ranks: first a summary (exchange\n"
    "scheme, bytes per chunk and per piece, MPI calls per rank, and the cost model's time\n"
    "for each scheme and for the local steps), then for each rank its blocks before and\n"
    "after, its allocation, its local steps and its exchange rounds. Needs neither MPI nor\n"
    "a device. What the call would refuse is refused here, with its reason (exit 1).\n"
    "\n"
    "  --block-rows B   rows of each rank's block before (0: ceil(ROWS / RANKS))\n"
    "  --block-cols C   rows of each rank's block after, i.e. columns of the input\n"
    "                   (0: ceil(COLS / RANKS))\n"
    "  --staging BYTES  host staging bytes per rank (default 16777216; clamped to\n"
    "                   4096..1073741824, as the call clamps it)\n"
    "  --scheme S       auto (the cost model's choice), pairwise or alltoall\n"
    "  --flags F        in, out or in,out: blocks stored transposed before (in) or after\n"
    "                   (out) (IPT_MPI_TRANSPOSED_IN / _OUT)\n"
    "  --rank R         print only rank R\n"
    "  -h, --help       this text\n"
    "\n"
    "Numbers are plain decimal digits: no sign, no 0x, no exponent, no separators.\n"
    "Exit status: 0 the plan was printed, 1 the call would refuse it, 2 a bad command line.\n";

mpi::Scheme parse_scheme(const std::string& s) {
  if (s == "auto") return mpi::Scheme::automatic;
  if (s == "pairwise") return mpi::Scheme::pairwise;
  if (s == "alltoall") return mpi::Scheme::alltoall;
  throw support::CliError("--scheme: '" + s + "' is not auto, pairwise or alltoall");
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
      throw support::CliError("--flags: '" + s + "' has '" + word + "', not in or out");
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
    support::CommandLine line;
    line.value("--block-rows",
               [&](const std::string& v) { block_rows = support::parse_count(v, "--block-rows"); })
        .value("--block-cols",
               [&](const std::string& v) { block_cols = support::parse_count(v, "--block-cols"); })
        .value("--staging",
               [&](const std::string& v) { staging = support::parse_count(v, "--staging"); })
        .value("--scheme", [&](const std::string& v) { scheme = parse_scheme(v); })
        .value("--flags", [&](const std::string& v) { flags = parse_flags(v); })
        .value("--rank",
               [&](const std::string& v) {
                 rank = static_cast<long>(support::parse_count(v, "--rank", kMaxRank));
               })
        .positional([&](const std::string& a) {
          static const char* const kNames[] = {"RANKS", "ROWS", "COLS", "ELEM_SIZE"};
          if (numbers.size() == 4)
            throw support::CliError("unexpected argument '" + a + "' after ELEM_SIZE");
          numbers.push_back(support::parse_count(a, kNames[numbers.size()]));
        });
    line.parse(args);
    if (numbers.size() < 3)
      throw support::CliError("expected RANKS ROWS COLS [ELEM_SIZE], got " +
                              std::to_string(numbers.size()) + " value(s)");
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
  } catch (const support::CliError& e) {
    std::fprintf(stderr, "ipt-plan mpi: %s\n%s", e.what(), kUsage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipt-plan mpi: %s\n", e.what());
    return 1;
  }
}

}  // namespace ipt::tools
