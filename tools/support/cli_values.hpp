// Command-line values of the tools: comma (or 'x') separated lists and counts, checked.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ipt::support {

// The non-empty items of `text` between `separator`s; std::invalid_argument if none.
std::vector<std::string> split_list(const std::string& text, char separator);

// `text` as a non-negative decimal count; std::invalid_argument naming it otherwise.
std::size_t parse_count(const std::string& text);

}  // namespace ipt::support
