// SPDX-License-Identifier: Apache-2.0
#include "runtime/binary_cache.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "ipt/ipt.h"
#include "runtime/environment.hpp"

namespace ipt::runtime {
namespace {

// File layout (little-endian host order; the key pins the machine anyway):
//   magic[8] = "IPTBIN01" | u64 key_size | u64 binary_size | u64 checksum(binary) |
//   key bytes | binary bytes
constexpr char kMagic[8] = {'I', 'P', 'T', 'B', 'I', 'N', '0', '1'};
constexpr std::size_t kHeaderSize = 8 + 3 * 8;

std::string hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

void put_u64(std::string& out, std::uint64_t value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

std::uint64_t get_u64(const std::vector<char>& in, std::size_t at) {
  std::uint64_t value = 0;
  std::memcpy(&value, in.data() + at, sizeof(value));
  return value;
}

std::string trimmed(std::string value) {
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return value;
}

}  // namespace

std::string cache_folder() {
  if (const char* off = variable(Variable::kCacheDisable);
      off != nullptr && std::strcmp(off, "0") != 0)
    return {};
  if (const char* dir = variable(Variable::kCacheDir)) return dir;
  if (const char* xdg = variable(Variable::kXdgCacheHome)) return std::string(xdg) + "/ipt";
  if (const char* home = variable(Variable::kHome)) return std::string(home) + "/.cache/ipt";
  return {};
}

std::uint64_t fnv1a64(const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  return hash;
}

BinaryKey binary_key_of(const std::string& platform_vendor, const std::string& device_name,
                        const std::string& driver_version, const std::string& device_version,
                        const std::string& source, const std::string& options,
                        const std::string& library_version) {
  std::ostringstream text;
  text << "libipt " << library_version << "\nvendor " << platform_vendor << "\ndevice "
       << device_name << "\ndriver " << driver_version << "\ndevice version " << device_version
       << "\noptions " << options << "\nsource " << hex(fnv1a64(source.data(), source.size()))
       << " " << source.size() << "\n";
  BinaryKey key;
  key.text = text.str();
  key.file_name = hex(fnv1a64(key.text.data(), key.text.size())) + ".iptbin";
  return key;
}

BinaryKey binary_key(const cl::Device& device, const std::string& source,
                     const std::string& options) {
  const cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
  return binary_key_of(
      trimmed(platform.getInfo<CL_PLATFORM_VENDOR>()), trimmed(device.getInfo<CL_DEVICE_NAME>()),
      trimmed(device.getInfo<CL_DRIVER_VERSION>()), trimmed(device.getInfo<CL_DEVICE_VERSION>()),
      source, options, ipt_version_string());
}

std::optional<std::vector<unsigned char>> load_binary(const std::string& dir,
                                                      const BinaryKey& key) {
  std::ifstream in(std::filesystem::path(dir) / key.file_name, std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < kHeaderSize || std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0)
    return std::nullopt;
  const std::uint64_t key_size = get_u64(file, 8);
  const std::uint64_t binary_size = get_u64(file, 16);
  const std::uint64_t checksum = get_u64(file, 24);
  if (key_size != key.text.size() || binary_size == 0 ||
      file.size() != kHeaderSize + key_size + binary_size)
    return std::nullopt;
  if (std::memcmp(file.data() + kHeaderSize, key.text.data(), key_size) != 0) return std::nullopt;
  const char* payload = file.data() + kHeaderSize + key_size;
  if (fnv1a64(payload, binary_size) != checksum) return std::nullopt;
  return std::vector<unsigned char>(payload, payload + binary_size);
}

bool store_binary(const std::string& dir, const BinaryKey& key,
                  const std::vector<unsigned char>& binary) noexcept {
  namespace fs = std::filesystem;
  try {
    if (binary.empty()) return false;
    std::error_code error;
    fs::create_directories(dir, error);
    std::string data(kMagic, sizeof(kMagic));
    put_u64(data, key.text.size());
    put_u64(data, binary.size());
    put_u64(data, fnv1a64(binary.data(), binary.size()));
    data += key.text;
    data.append(reinterpret_cast<const char*>(binary.data()), binary.size());

    static std::atomic<unsigned> counter{0};
    std::random_device random;
    const fs::path target = fs::path(dir) / key.file_name;
    const fs::path temporary =
        fs::path(dir) / (key.file_name + ".tmp." + std::to_string(getpid()) + "." +
                         std::to_string(counter++) + "." + std::to_string(random()));
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out.write(data.data(), static_cast<std::streamsize>(data.size()));
      out.flush();
      if (!out) {
        out.close();
        fs::remove(temporary, error);
        return false;
      }
    }
    fs::rename(temporary, target, error);  // atomic replacement on POSIX file systems
    if (error) {
      fs::remove(temporary, error);
      return false;
    }
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace ipt::runtime
