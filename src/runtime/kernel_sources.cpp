// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernel_sources.hpp"

#include <fstream>
#include <sstream>

#include "runtime/environment.hpp"
#include "runtime/error.hpp"

namespace ipt::runtime {
namespace {

std::string read_file_from(const char* dir, const std::string& file_name) {
  const std::string path = std::string(dir) + "/" + file_name;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(IPT_BUILD_PROGRAM_FAILURE,
         "IPT_KERNEL_DIR is set, but the kernel file '" + path + "' cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string embedded_text(const std::string& file_name) {
  for (const auto& source : embedded_sources())
    if (file_name == source.file_name) return source.text;
  fail(IPT_INTERNAL_ERROR, "no embedded kernel source named '" + file_name + "'");
}

std::string source_file(const std::string& file_name) {
  if (kernel_sources_from_files()) return read_file_from(variable(Variable::kKernelDir), file_name);
  return embedded_text(file_name);
}

}  // namespace

bool kernel_sources_from_files() { return variable(Variable::kKernelDir) != nullptr; }

std::string program_source(const std::string& family) {
  return source_file("common.cl") + "\n" + source_file(family + ".cl");
}

}  // namespace ipt::runtime
