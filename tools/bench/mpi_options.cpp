// SPDX-License-Identifier: Apache-2.0
#include "mpi_options.hpp"

#include <algorithm>
#include <cstdlib>

#include "support/cli_values.hpp"
#include "support/command_line.hpp"

namespace ipt::bench {
namespace {

using support::CliError;

// The names the other modes accept (elements move bit for bit: only the size matters).
std::size_t elem_size_of(const std::string& type) {
  if (type == "f32") return 4;
  if (type == "f64") return 8;
  if (type == "u8") return 1;
  if (type == "f16" || type == "bf16") return 2;
  const auto size = support::parse_count(type, "--type");
  if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16)
    throw CliError("bad --type " + type);
  return size;
}

}  // namespace

const char* const kMpiUsage =
    "usage: mpirun -np P ipt-bench mpi [--shapes RxC,... (8192x8192)] [--fill F,...]\n"
    "         [--beyond-max-alloc] [--weak]\n"
    "         [--type f32|f64|u8|f16|bf16|1|2|4|8|16] [--reps N (5)]\n"
    "         [--scheme auto|pairwise|alltoall,... (auto)] [--staging BYTES]\n"
    "         [--block-rows B] [--block-cols C] [--flags none|in|out|in,out]\n"
    "         [--csv FILE] [--json FILE]\n"
    "  ipt-bench --help (and man ipt-bench-mpi) describes them.\n";

const char* scheme_name(ipt_mpi_scheme scheme) {
  switch (scheme) {
    case IPT_MPI_SCHEME_PAIRWISE:
      return "pairwise";
    case IPT_MPI_SCHEME_ALLTOALL:
      return "alltoall";
    default:
      return "auto";
  }
}

std::string flags_name(unsigned flags) {
  if (flags == 0) return "none";
  if (flags == (IPT_MPI_TRANSPOSED_IN | IPT_MPI_TRANSPOSED_OUT)) return "in+out";
  return (flags & IPT_MPI_TRANSPOSED_IN) != 0 ? "in" : "out";
}

Options parse_mpi_options(int argc, char** argv, bool& help) {
  Options options;
  help = false;
  struct HelpAsked {};  // --help ends the reading: what follows it is not checked
  support::CommandLine line;
  line.flag("--help", [] { throw HelpAsked{}; })
      .flag("-h", [] { throw HelpAsked{}; })
      .value("--shapes",
             [&](const std::string& v) {
               for (const auto& item : support::split_list(v, ',', "--shapes")) {
                 const auto sides = support::parse_dims(item, 2, "--shapes");
                 options.shapes.emplace_back(sides[0], sides[1]);
               }
             })
      .value("--fill",
             [&](const std::string& v) {
               for (const auto& item : support::split_list(v, ',', "--fill")) {
                 // Plain decimal fractions only (0.5, .25), as strict as the counts.
                 const bool plain = item.find_first_not_of("0123456789.") == std::string::npos &&
                                    item.find('.') == item.rfind('.');
                 char* end = nullptr;
                 const double f = plain ? std::strtod(item.c_str(), &end) : 0.0;
                 if (!plain || end == item.c_str() || *end != '\0' || !(f > 0 && f < 1))
                   throw CliError("--fill takes fractions in (0, 1), not '" + item + "'");
                 options.fills.push_back(f);
               }
             })
      .flag("--beyond-max-alloc", [&] { options.beyond_max_alloc = true; })
      .flag("--weak", [&] { options.weak = true; })
      .value("--type",
             [&](const std::string& v) {
               options.type = v;
               options.elem_size = elem_size_of(v);
             })
      .value("--reps",
             [&](const std::string& v) {
               options.reps = static_cast<int>(
                   std::clamp<std::size_t>(support::parse_count(v, "--reps"), 1, 1000));
             })
      .value("--scheme",
             [&](const std::string& v) {
               options.schemes.clear();
               for (const auto& item : support::split_list(v, ',', "--scheme")) {
                 const std::string s =
                     support::one_of(item, "--scheme", {"auto", "pairwise", "alltoall"});
                 options.schemes.push_back(s == "auto"       ? IPT_MPI_SCHEME_AUTO
                                           : s == "pairwise" ? IPT_MPI_SCHEME_PAIRWISE
                                                             : IPT_MPI_SCHEME_ALLTOALL);
               }
             })
      .value("--staging",
             [&](const std::string& v) { options.staging = support::parse_count(v, "--staging"); })
      .value("--block-rows",
             [&](const std::string& v) {
               options.block_rows = support::parse_count(v, "--block-rows");
             })
      .value("--block-cols",
             [&](const std::string& v) {
               options.block_cols = support::parse_count(v, "--block-cols");
             })
      .value("--flags",
             [&](const std::string& v) {
               options.flags = 0;
               for (const auto& item : support::split_list(v, ',', "--flags")) {
                 if (item == "in")
                   options.flags |= IPT_MPI_TRANSPOSED_IN;
                 else if (item == "out")
                   options.flags |= IPT_MPI_TRANSPOSED_OUT;
                 else if (item != "none")
                   throw CliError("--flags takes none, in, out or in,out, not '" + item + "'");
               }
             })
      .value("--csv", [&](const std::string& v) { options.csv = v; })
      .value("--json", [&](const std::string& v) { options.json = v; });
  try {
    line.parse(argc, argv, 1);
  } catch (const HelpAsked&) {
    help = true;
    return options;
  }
  if (options.shapes.empty() && options.fills.empty()) options.shapes.emplace_back(8192, 8192);
  for (const auto& [rows, cols] : options.shapes)
    if (rows == 0 || cols == 0) throw CliError("a shape needs rows and columns");
  return options;
}

}  // namespace ipt::bench
