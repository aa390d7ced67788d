#include "support/cli_values.hpp"

#include <sstream>
#include <stdexcept>

namespace ipt::support {

std::vector<std::string> split_list(const std::string& text, char separator) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, separator))
    if (!item.empty()) items.push_back(item);
  if (items.empty()) throw std::invalid_argument("empty list '" + text + "'");
  return items;
}

std::size_t parse_count(const std::string& text) {
  try {
    std::size_t used = 0;
    const auto value = std::stoull(text, &used);
    if (used == text.size() && text[0] != '-') return value;
  } catch (const std::logic_error&) {
  }
  throw std::invalid_argument("'" + text + "' is not a number");
}

}  // namespace ipt::support
