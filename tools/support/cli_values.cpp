// SPDX-License-Identifier: Apache-2.0
#include "support/cli_values.hpp"

namespace ipt::support {

std::uint64_t parse_count(const std::string& text, const std::string& what, std::uint64_t max) {
  const std::string quoted = what + ": '" + text + "'";
  if (text.empty()) throw CliError(quoted + " is empty, not a number");
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') throw CliError(quoted + " is not a number (decimal digits 0-9 only)");
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (max - digit) / 10)
      throw CliError(quoted + " is larger than " + std::to_string(max));
    value = value * 10 + digit;
  }
  return value;
}

std::vector<std::string> split_list(const std::string& text, char separator,
                                    const std::string& what) {
  std::vector<std::string> items;
  std::size_t at = 0;
  while (true) {
    const std::size_t end = text.find(separator, at);
    items.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (items.back().empty())
      throw CliError(what + ": '" + text + "' has an empty item (items are separated by '" +
                     separator + "')");
    if (end == std::string::npos) return items;
    at = end + 1;
  }
}

std::vector<std::uint64_t> parse_count_list(const std::string& text, const std::string& what,
                                            std::uint64_t max) {
  std::vector<std::uint64_t> values;
  for (const auto& item : split_list(text, ',', what))
    values.push_back(parse_count(item, what, max));
  return values;
}

std::vector<std::uint64_t> parse_dims(const std::string& text, std::size_t sides,
                                      const std::string& what) {
  std::vector<std::string> items;
  try {
    items = split_list(text, 'x', what);
  } catch (const CliError&) {
    items.clear();
  }
  if (items.size() != sides) {
    std::string form = "ROWSxCOLS";
    if (sides == 3) form = "IxROWSxCOLS";
    if (sides == 4) form = "IxAxBxC";
    throw CliError(what + ": '" + text + "' is not of the form " + form);
  }
  std::vector<std::uint64_t> values;
  for (const auto& item : items) values.push_back(parse_count(item, what));
  return values;
}

}  // namespace ipt::support
