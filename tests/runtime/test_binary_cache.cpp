// SPDX-License-Identifier: Apache-2.0
// The on-disk binary cache (default folder, IPT_CACHE_DIR, IPT_CACHE_DISABLE) and ipt_warmup: keys
// that change with every field, corrupt or stale files ignored and rebuilt, concurrent writers,
// end-to-end use.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "helpers/test_support.hpp"
#include "ipt/ipt.h"
#include "planner/kernel_variants.hpp"
#include "runtime/binary_cache.hpp"
#include "runtime/device_query.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/transpose.hpp"
#include "support/host_reference.hpp"

namespace fs = std::filesystem;
namespace rt = ipt::runtime;
using ipt::test::GuardedMatrix;
using ipt::test::ScopedEnv;
using ipt::test::session;

namespace {

fs::path fresh_dir(const char* name) {
  const fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  return dir;
}

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> files;
  if (fs::exists(dir))
    for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  return files;
}

std::vector<char> read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write(const fs::path& file, const std::vector<char>& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void transpose_and_check(std::size_t n) {
  GuardedMatrix m(n, n, 4, 1, 4, n);
  REQUIRE(ipt_transpose_f32(session().queue(), m.buffer(), 1, n, n, 0, nullptr, nullptr) ==
          IPT_SUCCESS);
  CHECK(m.check_transposed() == "");
}

}  // namespace

TEST_CASE("the binary key changes with every field it names", "[binary_cache]") {
  const std::vector<std::string> base = {"vendor", "device", "driver 1", "OpenCL 3.0",
                                         "source", "-DX=1",  "0.1.0"};
  auto key = [](const std::vector<std::string>& f) {
    return rt::binary_key_of(f[0], f[1], f[2], f[3], f[4], f[5], f[6]);
  };
  const auto reference = key(base);
  for (std::size_t i = 0; i < base.size(); ++i) {
    auto changed = base;
    changed[i] += "x";
    INFO("field " << i);
    CHECK(key(changed).text != reference.text);
    CHECK(key(changed).file_name != reference.file_name);
  }
  CHECK(key(base).file_name == reference.file_name);
}

TEST_CASE("stored binaries load back, and damaged or foreign files are refused", "[binary_cache]") {
  const fs::path dir = fresh_dir("ipt_binary_cache_unit");
  const auto key = rt::binary_key_of("v", "d", "1", "OpenCL", "src", "-O", "0.1.0");
  const std::vector<unsigned char> binary = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  REQUIRE(rt::store_binary(dir.string(), key, binary));
  REQUIRE(files_in(dir).size() == 1);  // no temporary left behind
  CHECK(rt::load_binary(dir.string(), key) == binary);
  const fs::path file = dir / key.file_name;
  const auto good = read(file);

  auto refused_after = [&](auto damage) {
    auto bytes = good;
    damage(bytes);
    write(file, bytes);
    const bool refused = !rt::load_binary(dir.string(), key).has_value();
    write(file, good);
    return refused;
  };
  CHECK(refused_after([](std::vector<char>& b) { b[0] = 'X'; }));              // magic
  CHECK(refused_after([](std::vector<char>& b) { b.resize(b.size() - 1); }));  // truncated
  CHECK(refused_after([](std::vector<char>& b) { b.push_back(0); }));          // trailing bytes
  CHECK(refused_after([](std::vector<char>& b) { b.back() ^= 1; }));           // payload checksum
  CHECK(refused_after([](std::vector<char>& b) { b[32 + 3] ^= 1; }));          // stored key
  CHECK(refused_after([](std::vector<char>& b) { b.resize(10); }));            // header cut
  CHECK(refused_after([](std::vector<char>& b) { b.clear(); }));               // empty
  CHECK(rt::load_binary(dir.string(), key) == binary);
  // A different key never reads this file, even if it were given the same name.
  auto other = rt::binary_key_of("v", "d", "2", "OpenCL", "src", "-O", "0.1.0");
  other.file_name = key.file_name;
  CHECK_FALSE(rt::load_binary(dir.string(), other).has_value());
  fs::remove_all(dir);
}

TEST_CASE("concurrent writers leave one complete file", "[binary_cache]") {
  const fs::path dir = fresh_dir("ipt_binary_cache_race");
  const auto key = rt::binary_key_of("v", "d", "1", "OpenCL", "src", "-O", "0.1.0");
  std::vector<std::thread> writers;
  for (unsigned t = 0; t < 8; ++t)
    writers.emplace_back([&, t] {
      std::vector<unsigned char> binary(100000, static_cast<unsigned char>(t + 1));
      for (int i = 0; i < 20; ++i) rt::store_binary(dir.string(), key, binary);
    });
  for (auto& w : writers) w.join();
  REQUIRE(files_in(dir).size() == 1);
  const auto loaded = rt::load_binary(dir.string(), key);
  REQUIRE(loaded.has_value());
  CHECK(loaded->size() == 100000);
  CHECK(std::count(loaded->begin(), loaded->end(), loaded->front()) ==
        100000);  // one writer's whole payload
  fs::remove_all(dir);
}

TEST_CASE("IPT_CACHE_DIR: compile once, then load, and a corrupt entry is rebuilt",
          "[binary_cache]") {
  const fs::path dir = fresh_dir("ipt_binary_cache_e2e");
  ScopedEnv env("IPT_CACHE_DIR", dir.c_str());
  ScopedEnv on("IPT_CACHE_DISABLE", nullptr);
  rt::clear_caches();
  const auto before = rt::program_cache_stats();
  transpose_and_check(45);
  REQUIRE(files_in(dir).size() == 1);
  CHECK(rt::program_cache_stats().source_builds == before.source_builds + 1);

  rt::clear_caches();
  transpose_and_check(45);
  CHECK(rt::program_cache_stats().disk_loads == before.disk_loads + 1);
  CHECK(rt::program_cache_stats().source_builds == before.source_builds + 1);

  const fs::path file = files_in(dir).front();
  auto bytes = read(file);
  bytes[bytes.size() / 2] ^= 0x55;
  write(file, bytes);
  rt::clear_caches();
  transpose_and_check(45);
  CHECK(rt::program_cache_stats().source_builds == before.source_builds + 2);
  const auto repaired = read(file);
  CHECK(repaired != bytes);  // rewritten whole

  rt::clear_caches();
  transpose_and_check(45);
  CHECK(rt::program_cache_stats().disk_loads == before.disk_loads + 2);
  rt::clear_caches();
  fs::remove_all(dir);
}

TEST_CASE("the disk cache is on by default, in the user's cache folder", "[binary_cache]") {
  const fs::path home = fresh_dir("ipt-test-home"), xdg = fresh_dir("ipt-test-xdg");
  ScopedEnv on("IPT_CACHE_DISABLE", nullptr);
  ScopedEnv unset("IPT_CACHE_DIR", nullptr);
  ScopedEnv home_env("HOME", home.c_str());
  {
    ScopedEnv no_xdg("XDG_CACHE_HOME", nullptr);
    CHECK(rt::cache_folder() == (home / ".cache" / "ipt").string());
    rt::clear_caches();
    transpose_and_check(24);
    CHECK(files_in(home / ".cache" / "ipt").size() == 1);
  }
  ScopedEnv xdg_env("XDG_CACHE_HOME", xdg.c_str());
  CHECK(rt::cache_folder() == (xdg / "ipt").string());
  {
    ScopedEnv empty("IPT_CACHE_DIR", "");  // empty: as if unset
    CHECK(rt::cache_folder() == (xdg / "ipt").string());
  }
  {
    ScopedEnv named("IPT_CACHE_DIR", (xdg / "mine").c_str());
    CHECK(rt::cache_folder() == (xdg / "mine").string());
  }
  {
    ScopedEnv off("IPT_CACHE_DISABLE", "1");
    CHECK(rt::cache_folder().empty());
    rt::clear_caches();
    const auto loads = rt::program_cache_stats().disk_loads;
    transpose_and_check(24);
    CHECK(rt::program_cache_stats().disk_loads == loads);
    CHECK(files_in(xdg / "ipt").empty());
  }
  {
    ScopedEnv zero("IPT_CACHE_DISABLE", "0");  // 0: on
    rt::clear_caches();
    transpose_and_check(24);
    CHECK(files_in(xdg / "ipt").size() == 1);
  }
  rt::clear_caches();
  fs::remove_all(home);
  fs::remove_all(xdg);
}

TEST_CASE("an unusable IPT_CACHE_DIR does not break transposition", "[binary_cache]") {
  ScopedEnv env("IPT_CACHE_DIR", "/proc/ipt-no-such-dir/cache");
  rt::clear_caches();
  transpose_and_check(20);
  rt::clear_caches();
}

TEST_CASE("ipt_warmup builds every program its element size's calls launch", "[warmup]") {
  ScopedEnv no_disk("IPT_CACHE_DISABLE", "1");
  rt::clear_caches();
  const auto builds = [] { return rt::program_cache_stats().source_builds; };
  const auto before = builds();
  REQUIRE(ipt_warmup(session().context(), session().device(), 16) == IPT_SUCCESS);
  const auto profile = rt::query_device_profile(session().device());
  CHECK(builds() - before == ipt::planner::kernel_variants(profile, 16).size());
  // Calls of every plan class after it build nothing: square, one BS tile, 2.x and 3.x
  // sequences, a prime shape (padded, split in scratch), skinny and tiny ones, a batch.
  const auto warmed = builds();
  struct Shape {
    std::size_t rows, cols, batch;
  };
  std::uint64_t seed = 40;
  for (const Shape& s : std::vector<Shape>{{300, 300, 1},
                                           {30, 70, 1},
                                           {600, 150, 1},
                                           {720, 540, 1},
                                           {1009, 997, 1},
                                           {4001, 3, 1},
                                           {7, 13, 1},
                                           {64, 100, 5}}) {
    INFO(s.batch << " x " << s.rows << " x " << s.cols);
    GuardedMatrix m(s.batch * s.rows, s.cols, 16, 0, 16, ++seed);
    REQUIRE(ipt_transpose_batched(session().queue(), m.buffer(), 0, s.batch, s.rows, s.cols, 0,
                                  nullptr, nullptr, 16) == IPT_SUCCESS);
    CHECK(m.check_holds(
              ipt::support::permute_010(m.matrix_before(), s.batch, s.rows, s.cols, 16)) == "");
  }
  CHECK(builds() == warmed);
}

TEST_CASE("ipt_warmup validates its arguments", "[warmup][bad_input]") {
  ipt::support::Session other;
  CHECK(ipt_warmup(nullptr, session().device(), 4) == IPT_INVALID_CONTEXT);
  CHECK(ipt_warmup(session().context(), nullptr, 4) == IPT_INVALID_DEVICE);
  // A device handle that is not one of the context's (another context's device is the
  // same handle on single-device platforms, so use an invalid one).
  CHECK(ipt_warmup(session().context(), reinterpret_cast<cl_device_id>(other.context()), 4) ==
        IPT_INVALID_DEVICE);
  CHECK(ipt_warmup(session().context(), session().device(), 3) == IPT_INVALID_ELEMENT_SIZE);
  CHECK(ipt_warmup(session().context(), session().device(), 0) == IPT_INVALID_ELEMENT_SIZE);
}
