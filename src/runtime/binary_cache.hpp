// SPDX-License-Identifier: Apache-2.0
// The on-disk cache of compiled program binaries: what a driver gives back for a built
// program (NVIDIA's OpenCL: PTX, which its driver still translates to machine code on
// load; PoCL: its own), which saves a later process the compiler's front end. One file
// per key; the key names everything that can change the binary: platform vendor, device
// name, driver and device version, build options, the kernel source (hash and length)
// and the libipt version. A file is used only if its header, stored key, sizes and
// checksum all match; anything else is ignored and rebuilt. Writers write a private
// temporary file and rename it into place, so concurrent processes never see a partial
// file and the last complete write wins.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/opencl.hpp"

namespace ipt::runtime {

struct BinaryKey {
  std::string text;       // the full key, stored in the file and compared on load
  std::string file_name;  // "<64-bit hash of text>.iptbin"
};

BinaryKey binary_key(const cl::Device& device, const std::string& source,
                     const std::string& options);

// The fields binary_key combines, separated for tests of the key's sensitivity.
BinaryKey binary_key_of(const std::string& platform_vendor, const std::string& device_name,
                        const std::string& driver_version, const std::string& device_version,
                        const std::string& source, const std::string& options,
                        const std::string& library_version);

// The cache's folder: IPT_CACHE_DIR when set and not empty, else $XDG_CACHE_HOME/ipt,
// else $HOME/.cache/ipt (where the CUDA driver, PoCL and Mesa keep theirs); "" (no disk
// cache) when IPT_CACHE_DISABLE=1 or no folder can be named.
std::string cache_folder();

// The binary stored under `key` in `dir`, or nothing if absent, unreadable or invalid.
std::optional<std::vector<unsigned char>> load_binary(const std::string& dir, const BinaryKey& key);

// Stores `binary` under `key` in `dir` (created if missing). Best effort: returns false
// and leaves no partial file if anything fails; never throws.
bool store_binary(const std::string& dir, const BinaryKey& key,
                  const std::vector<unsigned char>& binary) noexcept;

// 64-bit FNV-1a, used for file names, source hashes and the payload checksum.
std::uint64_t fnv1a64(const void* data, std::size_t size);

}  // namespace ipt::runtime
