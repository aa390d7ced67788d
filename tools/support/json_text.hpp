// SPDX-License-Identifier: Apache-2.0
// Text as a JSON string, for the tools' result files.
#pragma once

#include <string>

namespace ipt::support {

// `text` quoted, with quotes and backslashes escaped and control characters left out.
inline std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

}  // namespace ipt::support
