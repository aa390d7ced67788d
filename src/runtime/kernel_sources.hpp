// SPDX-License-Identifier: Apache-2.0
// Where kernel source text comes from: the copies embedded at build time, or the folder
// named by the IPT_KERNEL_DIR environment variable (for kernel development).
#pragma once

#include <string>
#include <vector>

namespace ipt::runtime {

struct EmbeddedSource {
  const char* file_name;  // e.g. "square.cl"
  const char* text;
};

// Defined in the file that cmake/EmbedKernels.cmake generates.
const std::vector<EmbeddedSource>& embedded_sources();

// The full program source of one kernel family ("square" -> common.cl + square.cl).
// Throws ipt::Error(IPT_BUILD_PROGRAM_FAILURE) when IPT_KERNEL_DIR is set and a file
// cannot be read there.
std::string program_source(const std::string& family);

// Whether program_source(family) can differ between two calls: only when IPT_KERNEL_DIR
// names a folder, whose files may be edited while a process runs. The embedded copies
// never change, so a program cache can key them by family name alone.
bool kernel_sources_from_files();

}  // namespace ipt::runtime
