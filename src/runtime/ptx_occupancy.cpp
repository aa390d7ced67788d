// SPDX-License-Identifier: Apache-2.0
#include "runtime/ptx_occupancy.hpp"

#include <string>

namespace ipt::runtime {

std::optional<std::vector<unsigned char>> with_min_groups_per_unit(
    const std::vector<unsigned char>& binary, unsigned groups) {
  std::string ptx(binary.begin(), binary.end());
  // PTX text declares its ISA version and target before its entries; other drivers'
  // binaries (ELF objects, PoCL's) declare neither.
  const std::size_t version = ptx.find(".version ");
  const std::size_t target = ptx.find(".target ");
  if (groups == 0 || version == std::string::npos || target == std::string::npos)
    return std::nullopt;
  bool patched = false;
  for (std::size_t entry = ptx.find(".entry ", target); entry != std::string::npos;
       entry = ptx.find(".entry ", entry + 1)) {
    // An entry is `.entry name(parameters)`, then its performance directives
    // (.reqntid for reqd_work_group_size), then its body in braces. Parameters hold no
    // parentheses.
    const std::size_t params_end = ptx.find(')', entry);
    if (params_end == std::string::npos) return std::nullopt;
    const std::size_t body = ptx.find('{', params_end);
    if (body == std::string::npos) return std::nullopt;
    const std::string directives = ptx.substr(params_end + 1, body - params_end - 1);
    if (directives.find(".minnctapersm") != std::string::npos) continue;
    const std::string directive = ".minnctapersm " + std::to_string(groups) + "\n";
    ptx.insert(body, directive);
    entry = body + directive.size();
    patched = true;
  }
  if (!patched) return std::nullopt;
  return std::vector<unsigned char>(ptx.begin(), ptx.end());
}

}  // namespace ipt::runtime
