// SPDX-License-Identifier: Apache-2.0
// Command-line values of the tools, checked strictly and in one place, so that every tool
// accepts the same numbers and rejects the same mistakes with the same words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace ipt::support {

// A bad command-line value; what() names the argument and quotes the text. Tools print
// it and exit with status 2.
struct CliError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// `text` as a count: decimal digits only (no sign, no blanks, no "0x", no exponent, no
// digit separators such as "1,000"), at most `max`. `what` names the argument in the
// message ("--count", "ROWS"). Throws CliError otherwise.
std::uint64_t parse_count(const std::string& text, const std::string& what,
                          std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

// The items of `text` between `separator`s; CliError naming `what` if the list or any
// item is empty ("", "1,,2", "1,").
std::vector<std::string> split_list(const std::string& text, char separator,
                                    const std::string& what);

// A comma-separated list of counts, each checked by parse_count.
std::vector<std::uint64_t> parse_count_list(
    const std::string& text, const std::string& what,
    std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

// "ROWSxCOLS" (or `sides` counts joined by 'x'), each side checked by parse_count.
std::vector<std::uint64_t> parse_dims(const std::string& text, std::size_t sides,
                                      const std::string& what);

// `parse()`'s value; when it refuses a value (CliError), the tool ends through `usage`,
// which prints the message and a short usage and exits with status 2.
template <class Parse>
auto or_usage(Parse&& parse, void (&usage)(const std::string&)) -> decltype(parse()) {
  try {
    return parse();
  } catch (const CliError& e) {
    usage(e.what());
    std::exit(2);  // not reached: usage exits
  }
}

}  // namespace ipt::support
