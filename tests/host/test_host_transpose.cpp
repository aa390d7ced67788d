// SPDX-License-Identifier: Apache-2.0
// Host matrices (ipt_transpose_host): through the device and on the CPU, every element
// size and shape class against a host reference on random data, the host bytes around
// the matrix untouched; the automatic choice; a failure at any device step leaves the
// host matrix as it was; bad input gets its status with the matrix unchanged.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpu/cpu_transpose.hpp"
#include "helpers/fault_injection.hpp"
#include "helpers/test_seed.hpp"
#include "helpers/test_skip.hpp"
#include "helpers/test_support.hpp"
#include "host/host_staging.hpp"
#include "host/host_transpose.hpp"
#include "ipt/ipt.h"
#include "runtime/error.hpp"
#include "runtime/opencl.hpp"
#include "support/host_reference.hpp"
#include "support/random_data.hpp"

using ipt::test::session;
namespace faults = ipt::runtime::faults;

namespace {

constexpr std::size_t kGuard = 64;  // host bytes checked before and after the matrix

// A rows x cols matrix of random elements in host memory with guard bytes around it.
struct HostMatrix {
  HostMatrix(std::size_t rows_, std::size_t cols_, std::size_t elem_size_, std::uint64_t seed)
      : rows(rows_), cols(cols_), elem_size(elem_size_), bytes(rows_ * cols_ * elem_size_) {
    original = ipt::support::random_matrix(rows, cols, elem_size, seed);
    storage = ipt::support::random_bytes(bytes + 2 * kGuard, seed ^ 0x5eed);
    std::memcpy(storage.data() + kGuard, original.data(), bytes);
    guards = storage;
  }
  void* data() { return storage.data() + kGuard; }
  // "" when the matrix holds `expected` and the guard bytes are as they were.
  std::string check(const std::vector<unsigned char>& expected) const {
    if (std::memcmp(storage.data(), guards.data(), kGuard) != 0) return "a byte before changed";
    if (std::memcmp(storage.data() + kGuard + bytes, guards.data() + kGuard + bytes, kGuard) != 0)
      return "a byte after changed";
    for (std::size_t i = 0; i < bytes; ++i)
      if (storage[kGuard + i] != expected[i])
        return "element " + std::to_string(i / elem_size) + " is wrong";
    return "";
  }
  std::string check_transposed() const {
    return check(ipt::support::transpose_reference(original, rows, cols, elem_size));
  }
  std::string check_unchanged() const { return check(original); }

  std::size_t rows, cols, elem_size, bytes;
  std::vector<unsigned char> original, storage, guards;
};

// Through the API; the device path's synchronous scheme unless `slices` says otherwise.
ipt_status host_call(cl_command_queue queue, HostMatrix& m, ipt_host_scheme scheme,
                     unsigned threads = 0, ipt_host_pinning pinning = IPT_HOST_PIN_AUTO,
                     unsigned slices = 1) {
  const ipt_host_options options{scheme, threads, pinning, slices};
  return ipt_transpose_host(queue, m.data(), m.rows, m.cols, m.elem_size, &options);
}

// The status the API would return for a runtime call.
template <typename Call>
ipt_status status_of(const Call& call) {
  try {
    call();
    return IPT_SUCCESS;
  } catch (const ipt::Error& e) {
    return e.status();
  } catch (const cl::Error& e) {
    return static_cast<ipt_status>(e.err());
  }
}

// A runtime request through the device (session's queue) for the matrix.
ipt::host::HostRequest device_request(HostMatrix& m, unsigned threads) {
  ipt::host::HostRequest request;
  request.queue = session().queue();
  request.host = m.data();
  request.rows = m.rows;
  request.cols = m.cols;
  request.elem_size = m.elem_size;
  request.scheme = IPT_HOST_DEVICE;
  request.threads = threads;
  return request;
}

// The device path streaming the matrix in parts of `part` bytes (as for a matrix larger
// than one allocation of the device); the status the API would return.
ipt_status streamed_call(HostMatrix& m, std::uint64_t part, unsigned threads = 0) {
  ipt::host::HostRequest request = device_request(m, threads);
  request.part_bytes = part;
  request.chunk_bytes = part / 3 + 1;  // parts go up and down in several rounds
  return status_of([&] { ipt::host::execute_host_transpose(request); });
}

// The asynchronous scheme through the runtime, with chunks of `chunk` bytes so that a
// small matrix takes many rounds; the status the API would return.
ipt_status sliced_call(HostMatrix& m, unsigned slices, std::uint64_t chunk, unsigned threads = 0) {
  ipt::host::HostRequest request = device_request(m, threads);
  request.slices = slices;
  request.chunk_bytes = chunk;
  return status_of([&] { ipt::host::execute_host_transpose(request); });
}

// Shapes of every class: squares about tile sides, primes, primes near 2^8, skinny both
// ways round, a row and a column.
const std::vector<std::pair<std::size_t, std::size_t>> kShapes = {
    {1, 1},   {2, 2},   {63, 63},  {64, 64},  {65, 65}, {130, 130}, {97, 89},   {89, 97},
    {251, 7}, {7, 257}, {3, 1000}, {1000, 3}, {1, 513}, {513, 1},   {120, 200}, {256, 2}};

// The commands of a call, counted on a call just like it made twice (the first makes
// the lanes, programs and plans the second reuses), each a success; and the number (from
// 1) of its first read, the download's start.
template <typename Call>
std::pair<std::vector<const char*>, std::uint64_t> commands_of(std::size_t rows, std::size_t cols,
                                                               std::uint64_t& seed,
                                                               const Call& call) {
  std::vector<const char*> commands;
  for (int time = 0; time < 2; ++time) {
    HostMatrix m(rows, cols, 4, ++seed);
    faults::arm({});
    const ipt_status status = call(m);
    commands = faults::passed(faults::Site::kEnqueue);
    faults::disarm();
    REQUIRE(status == IPT_SUCCESS);
    CHECK(m.check_transposed() == "");
  }
  std::uint64_t first_read = 0;
  for (std::size_t k = 0; k < commands.size() && first_read == 0; ++k)
    if (std::string(commands[k]) == "clEnqueueReadBuffer") first_read = k + 1;
  REQUIRE(first_read > 0);
  return {commands, first_read};
}

}  // namespace

TEST_CASE("host matrices on the CPU: every element size and shape class", "[host]") {
  IPT_TEST_SEED(first_seed, 2801);
  std::uint64_t seed = first_seed;
  for (std::size_t elem_size : {1, 2, 4, 8, 16})
    for (const auto& [rows, cols] : kShapes)
      for (unsigned threads : {1u, 3u, 8u}) {
        INFO(rows << " x " << cols << ", " << elem_size << "-byte elements, " << threads
                  << " threads");
        HostMatrix m(rows, cols, elem_size, ++seed);
        REQUIRE(host_call(nullptr, m, IPT_HOST_CPU, threads) == IPT_SUCCESS);
        CHECK(m.check_transposed() == "");
      }
}

TEST_CASE("host matrices on the CPU: random shapes, twice gives the original", "[host]") {
  IPT_TEST_SEED(seed, 2802);
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::size_t> side(1, 700);
  for (int i = 0; i < 40; ++i) {
    const std::size_t rows = side(random), cols = i % 4 == 0 ? rows : side(random);
    const std::size_t elem_size = std::size_t{1} << (i % 5);
    INFO(rows << " x " << cols << ", " << elem_size << "-byte elements");
    HostMatrix m(rows, cols, elem_size, seed + i);
    ipt::cpu::transpose(m.data(), rows, cols, elem_size, 1 + i % 6);
    CHECK(m.check_transposed() == "");
    ipt::cpu::transpose(m.data(), cols, rows, elem_size, 0);
    CHECK(m.check_unchanged() == "");
  }
}

TEST_CASE("host matrices on the CPU: every path forced, on shapes it takes", "[host]") {
  IPT_TEST_SEED(first_seed, 2805);
  std::uint64_t seed = first_seed;
  using ipt::cpu::Path;
  // Coprime sides, sides with a common factor (the decomposition's column rotation), a
  // factor for two passes, skinny both ways round.
  const std::vector<std::pair<std::size_t, std::size_t>> shapes = {
      {97, 89}, {12, 18}, {120, 200}, {6, 1000}, {1000, 6}, {2, 3}, {255, 85}, {64, 96}};
  for (std::size_t elem_size : {1, 2, 4, 8, 16})
    for (const auto& [rows, cols] : shapes)
      for (const Path path : {Path::kTwoPass, Path::kDecomposed, Path::kCycles})
        for (unsigned threads : {1u, 4u}) {
          INFO(rows << " x " << cols << ", " << elem_size << "-byte elements, path "
                    << static_cast<int>(path) << ", " << threads << " threads");
          HostMatrix m(rows, cols, elem_size, ++seed);
          if (path == Path::kTwoPass && (rows == 97 || rows == 2)) {
            CHECK_THROWS_AS(ipt::cpu::transpose(m.data(), rows, cols, elem_size, threads, path),
                            std::invalid_argument);  // no factor: nothing moved
            CHECK(m.check_unchanged() == "");
            continue;
          }
          ipt::cpu::transpose(m.data(), rows, cols, elem_size, threads, path);
          CHECK(m.check_transposed() == "");
        }
  HostMatrix square(40, 40, 4, ++seed);
  ipt::cpu::transpose(square.data(), 40, 40, 4, 2, Path::kDecomposed);
  CHECK(square.check_transposed() == "");
  HostMatrix not_square(40, 41, 4, ++seed);
  CHECK_THROWS_AS(ipt::cpu::transpose(not_square.data(), 40, 41, 4, 2, Path::kTiles),
                  std::invalid_argument);
  CHECK(not_square.check_unchanged() == "");
}

TEST_CASE("host matrices through the device: every element size and shape class", "[host]") {
  IPT_TEST_SEED(first_seed, 2803);
  std::uint64_t seed = first_seed;
  for (const ipt_host_pinning pinning : {IPT_HOST_PIN_ON, IPT_HOST_PIN_OFF})
    for (std::size_t elem_size : {1, 2, 4, 8, 16})
      for (const auto& [rows, cols] : kShapes) {
        INFO(rows << " x " << cols << ", " << elem_size << "-byte elements, pinning " << pinning);
        HostMatrix m(rows, cols, elem_size, ++seed);
        const ipt_status status = host_call(session().queue(), m, IPT_HOST_DEVICE, 0, pinning);
        REQUIRE(status == IPT_SUCCESS);
        CHECK(m.check_transposed() == "");
      }
  // Typed forms and the automatic choice (a larger matrix goes through the device).
  HostMatrix f(1200, 1100, 4, ++seed);
  REQUIRE(ipt_transpose_host_f32(session().queue(), static_cast<float*>(f.data()), 1200, 1100,
                                 nullptr) == IPT_SUCCESS);
  CHECK(f.check_transposed() == "");
  HostMatrix d(37, 41, 8, ++seed);
  REQUIRE(ipt_transpose_host_f64(nullptr, static_cast<double*>(d.data()), 37, 41, nullptr) ==
          IPT_SUCCESS);
  CHECK(d.check_transposed() == "");
}

TEST_CASE("the automatic way: the CPU without a queue, for squares and small matrices", "[host]") {
  ipt::host::HostRequest request;
  request.rows = 256;
  request.cols = 257;
  request.elem_size = 4;
  CHECK(ipt::host::host_scheme(request) == IPT_HOST_CPU);  // no queue
  request.queue = session().queue();
  CHECK(ipt::host::host_scheme(request) == IPT_HOST_DEVICE);  // 257 KiB
  request.cols = 255;
  CHECK(ipt::host::host_scheme(request) == IPT_HOST_CPU);  // under 256 KiB
  request.rows = request.cols = 4096;
  CHECK(ipt::host::host_scheme(request) == IPT_HOST_CPU);  // square
  // Beyond one allocation of the device (IPT_OVERRIDES max_alloc lowers it): streamed.
  request.rows = 300;
  request.cols = 301;
  {
    ipt::test::ScopedOverrides small("max_alloc=300000");
    CHECK(ipt::host::host_scheme(request) == IPT_HOST_DEVICE);
    CHECK(ipt::host::host_stream_part(request) == 150000);
  }
  CHECK(ipt::host::host_scheme(request) == IPT_HOST_DEVICE);
  CHECK(ipt::host::host_stream_part(request) == 0);
  request.scheme = IPT_HOST_DEVICE;
  CHECK(ipt::host::host_scheme(request) == IPT_HOST_DEVICE);
  request.queue = nullptr;
  request.scheme = IPT_HOST_CPU;
  CHECK(ipt::host::host_scheme(request) == IPT_HOST_CPU);
}

namespace {

// The synchronous scheme on `queue`: every command, allocation and download failure.
void check_device_step_failures(cl_command_queue queue, std::uint64_t seed) {
  // A plan of several kernels (a small device's, no on-chip kernel): a failure after its
  // first kernel is undone on the device.
  const ipt::test::ScopedOverrides overrides("local_mem=8192,onchip=off");
  for (const ipt_host_pinning pinning : {IPT_HOST_PIN_ON, IPT_HOST_PIN_OFF}) {
    const bool pinned = pinning == IPT_HOST_PIN_ON;
    // The commands of a call, counted on a call just like it (a call that repeats the one
    // before it enqueues what it does; the first of a shape may fill new scratch).
    const auto commands_of_a_call = [&] {
      HostMatrix m(300, 211, 4, ++seed);
      faults::arm({});
      const ipt_status status = host_call(queue, m, IPT_HOST_DEVICE, 0, pinning);
      const auto commands = faults::passed(faults::Site::kEnqueue);
      faults::disarm();
      REQUIRE(status == IPT_SUCCESS);
      REQUIRE(commands.size() >= 3);
      CHECK(std::string(commands.front()) ==
            (pinned ? "clEnqueueCopyBuffer" : "clEnqueueWriteBuffer"));
      CHECK(std::string(commands.back()) ==
            (pinned ? "clEnqueueUnmapMemObject" : "clEnqueueReadBuffer"));
      return commands;
    };
    // Every command before the download (the upload, then each of the transposition's):
    // the host matrix as it was.
    commands_of_a_call();
    const std::size_t count = commands_of_a_call().size();
    const std::size_t download = pinned ? count - 2 : count;  // pinned: copy, map, unmap
    for (std::uint64_t failing = 1; failing < download; ++failing) {
      const auto commands = commands_of_a_call();  // and the state a call leaves
      REQUIRE(commands.size() == count);
      INFO("pinning " << pinning << ": command " << failing << " of " << count << " ("
                      << commands[failing - 1] << ") fails");
      HostMatrix m(300, 211, 4, ++seed);
      faults::arm({failing});
      const ipt_status status = host_call(queue, m, IPT_HOST_DEVICE, 0, pinning);
      faults::disarm();
      CHECK(status != IPT_SUCCESS);
      CHECK(m.check_unchanged() == "");
    }
    // The download (pinned: its copy, the map that brings it to the host memory, or the
    // unmap): the transpose is read from the device again; when that fails too, the
    // status says so.
    for (const std::string which : {"download", "map", "unmap"}) {
      if (!pinned && which != "download") continue;
      commands_of_a_call();
      const std::uint64_t failing = which == "map"     ? count - 1
                                    : which == "unmap" ? count
                                                       : download;
      INFO("pinning " << pinning << ": the " << which << " fails (command " << failing << " of "
                      << count << ")");
      HostMatrix m(300, 211, 4, ++seed);
      faults::arm({failing});
      CHECK(host_call(queue, m, IPT_HOST_DEVICE, 0, pinning) == IPT_SUCCESS);
      faults::disarm();
      CHECK(m.check_transposed() == "");
      HostMatrix again(300, 211, 4, ++seed);
      commands_of_a_call();
      faults::arm({failing, failing + 1});  // the download, then its plain retry
      CHECK(host_call(queue, again, IPT_HOST_DEVICE, 0, pinning) == IPT_BUFFER_UNDEFINED);
      faults::disarm();
    }
    // The device buffer's allocation, and the pinned buffer's.
    for (std::uint64_t allocation = 1; allocation <= (pinned ? 2u : 1u); ++allocation) {
      INFO("pinning " << pinning << ": allocation " << allocation << " fails");
      HostMatrix m(300, 211, 4, ++seed);
      faults::arm({}, {allocation});
      const ipt_status status = host_call(queue, m, IPT_HOST_DEVICE, 0, pinning);
      faults::disarm();
      CHECK(status == static_cast<ipt_status>(CL_MEM_OBJECT_ALLOCATION_FAILURE));
      CHECK(m.check_unchanged() == "");
    }
  }
}

}  // namespace

TEST_CASE("a device step that fails leaves the host matrix as it was", "[host][faults]") {
  IPT_TEST_SEED(first_seed, 2804);
  check_device_step_failures(session().queue(), first_seed);
}

TEST_CASE("a device step that fails on an out-of-order queue leaves the host matrix",
          "[host][faults]") {
  IPT_TEST_SEED(first_seed, 2813);
  const ipt::test::OutOfOrderQueue out_of_order;
  if (out_of_order.get() == nullptr) IPT_SKIP("the device has no out-of-order queues");
  cl_command_queue queue = out_of_order.get();
  check_device_step_failures(queue, first_seed);
}

TEST_CASE("host calls refuse bad input and leave the matrix unchanged", "[host][bad_input]") {
  HostMatrix m(20, 30, 4, 77);
  // Enumerators no caller can name, set as a C caller might (an int through memory).
  const int unknown = 7;
  ipt_host_options bogus{IPT_HOST_AUTO, 0, IPT_HOST_PIN_AUTO, 0};
  std::memcpy(&bogus.scheme, &unknown, sizeof unknown);
  CHECK(ipt_transpose_host(nullptr, m.data(), 20, 30, 4, &bogus) == IPT_INVALID_VALUE);
  ipt_host_options bad_pinning{IPT_HOST_CPU, 0, IPT_HOST_PIN_AUTO, 0};
  std::memcpy(&bad_pinning.pinning, &unknown, sizeof unknown);
  CHECK(ipt_transpose_host(nullptr, m.data(), 20, 30, 4, &bad_pinning) == IPT_INVALID_VALUE);
  CHECK(ipt_transpose_host(nullptr, m.data(), 20, 30, 3, nullptr) == IPT_INVALID_ELEMENT_SIZE);
  CHECK(ipt_transpose_host(nullptr, m.data(), SIZE_MAX / 2, 3, 4, nullptr) == IPT_SIZE_OVERFLOW);
  CHECK(ipt_transpose_host(nullptr, nullptr, 20, 30, 4, nullptr) == IPT_INVALID_VALUE);
  const ipt_host_options device{IPT_HOST_DEVICE, 0, IPT_HOST_PIN_AUTO, 0};
  CHECK(ipt_transpose_host(nullptr, m.data(), 20, 30, 4, &device) == IPT_INVALID_COMMAND_QUEUE);
  CHECK(std::string(ipt_last_error_message()).find("queue") != std::string::npos);
  const ipt_host_options too_many{IPT_HOST_DEVICE, 0, IPT_HOST_PIN_AUTO, IPT_HOST_MAX_SLICES + 1};
  CHECK(ipt_transpose_host(session().queue(), m.data(), 20, 30, 4, &too_many) == IPT_INVALID_VALUE);
  CHECK(std::string(ipt_last_error_message()).find("slices") != std::string::npos);
  CHECK(ipt_transpose_host(nullptr, m.data(), 0, 30, 4, nullptr) == IPT_SUCCESS);  // empty
  CHECK(ipt_transpose_host(nullptr, nullptr, 20, 0, 4, nullptr) == IPT_SUCCESS);
  CHECK(m.check_unchanged() == "");
}

TEST_CASE("host matrices, asynchronous scheme: Q = 1..8, every shape class and element size",
          "[host]") {
  IPT_TEST_SEED(first_seed, 2806);
  std::uint64_t seed = first_seed;
  // Factors on both sides, on one, on none (the whole transposition as phase B), skinny
  // both ways round, fewer blocks than slices, a row and a column.
  const std::vector<std::pair<std::size_t, std::size_t>> shapes = {
      {96, 128}, {97, 128}, {128, 97}, {97, 89}, {256, 6}, {6, 256}, {3, 1000}, {1, 300}, {64, 64}};
  for (std::size_t elem_size : {1, 2, 4, 8, 16})
    for (const auto& [rows, cols] : shapes)
      for (unsigned slices = 1; slices <= 8; ++slices) {
        // Chunks of a few hundred bytes (many rounds, chunks across elements) and whole.
        const std::uint64_t chunk = slices % 2 == 0 ? 0 : 333 + 64 * slices;
        INFO(rows << " x " << cols << ", " << elem_size << "-byte elements, " << slices
                  << " slices, chunks of " << chunk);
        HostMatrix m(rows, cols, elem_size, ++seed);
        REQUIRE(sliced_call(m, slices, chunk, 1 + slices % 3) == IPT_SUCCESS);
        CHECK(m.check_transposed() == "");
      }
  // Through the API, and the automatic choice's Q.
  HostMatrix api(300, 520, 4, ++seed);
  REQUIRE(host_call(session().queue(), api, IPT_HOST_DEVICE, 0, IPT_HOST_PIN_AUTO, 5) ==
          IPT_SUCCESS);
  CHECK(api.check_transposed() == "");
  ipt::host::HostRequest request;
  request.rows = 4096;
  request.cols = 1024;
  request.elem_size = 4;
  CHECK(ipt::host::host_slices(request) == ipt::host::kHostSlices);  // 16 MiB
  request.cols = 1023;
  CHECK(ipt::host::host_slices(request) == 1);
  request.slices = 3;
  CHECK(ipt::host::host_slices(request) == 3);
}

TEST_CASE("asynchronous scheme: a step that fails leaves the host matrix as it was",
          "[host][faults]") {
  IPT_TEST_SEED(first_seed, 2807);
  std::uint64_t seed = first_seed;
  constexpr unsigned kSlices = 3;
  constexpr std::uint64_t kChunk = 4096;
  // Phases A, B and C (both sides with factors), and the whole transposition (primes).
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{96, 130}, {97, 89}}) {
    const auto [commands, first_read] = commands_of(
        rows, cols, seed, [&](HostMatrix& m) { return sliced_call(m, kSlices, kChunk); });
    REQUIRE(commands.size() > 10);
    for (std::uint64_t failing = 1; failing <= commands.size(); ++failing) {
      INFO(rows << " x " << cols << ": command " << failing << " of " << commands.size() << " ("
                << commands[failing - 1] << ") fails");
      HostMatrix m(rows, cols, 4, ++seed);
      faults::arm({failing});
      const ipt_status status = sliced_call(m, kSlices, kChunk, 2);
      faults::disarm();
      if (failing >= first_read) {
        CHECK(status == IPT_SUCCESS);  // a download read again
        CHECK(m.check_transposed() == "");
      } else {
        CHECK(status != IPT_SUCCESS);
        CHECK(m.check_unchanged() == "");
      }
    }
    // A download that fails, and its plain retry too.
    HostMatrix lost(rows, cols, 4, ++seed);
    faults::arm({first_read, first_read + 1});
    CHECK(sliced_call(lost, kSlices, kChunk) == IPT_BUFFER_UNDEFINED);
    faults::disarm();
    // Each other OpenCL call (the flush after each phase, each kernel argument) fails in
    // turn: before the download starts, the host matrix is as it was.
    std::vector<bool> before_download;  // for each such call
    {
      HostMatrix m(rows, cols, 4, ++seed);
      faults::arm({});
      REQUIRE(sliced_call(m, kSlices, kChunk, 2) == IPT_SUCCESS);
      std::uint64_t reads = 0;
      for (const auto& [site, what] : faults::sequence()) {
        if (site == faults::Site::kEnqueue && std::string(what) == "clEnqueueReadBuffer") ++reads;
        if (site == faults::Site::kCall) before_download.push_back(reads == 0);
      }
      faults::disarm();
    }
    REQUIRE(before_download.size() >= 3);  // a flush after each phase, at least
    for (std::uint64_t failing = 1; failing <= before_download.size(); ++failing) {
      INFO(rows << " x " << cols << ": call " << failing << " of " << before_download.size()
                << " fails");
      HostMatrix m(rows, cols, 4, ++seed);
      faults::arm({}, {}, {failing});
      const ipt_status status = sliced_call(m, kSlices, kChunk, 2);
      faults::disarm();
      if (before_download[failing - 1]) {
        CHECK(status != IPT_SUCCESS);
        CHECK(m.check_unchanged() == "");
      } else {
        CHECK(status == IPT_SUCCESS);
        CHECK(m.check_transposed() == "");
      }
    }
  }
  // The device buffer's allocation, and (after the kept lanes are dropped) a staging
  // buffer's.
  for (const bool new_lanes : {false, true}) {
    INFO((new_lanes ? "a staging buffer" : "the device buffer") << "'s allocation fails");
    if (new_lanes) REQUIRE(ipt_clear_cache() == IPT_SUCCESS);
    HostMatrix m(96, 130, 4, ++seed);
    faults::arm({}, {1});
    const ipt_status status = sliced_call(m, kSlices, kChunk);
    faults::disarm();
    CHECK(status == static_cast<ipt_status>(CL_MEM_OBJECT_ALLOCATION_FAILURE));
    CHECK(m.check_unchanged() == "");
  }
}

TEST_CASE("host matrices larger than the device holds: streamed in parts", "[host]") {
  IPT_TEST_SEED(first_seed, 2808);
  std::uint64_t seed = first_seed;
  // Factors on both sides (A, B on the host, C as 0100!), a prime number of rows (no A,
  // C as a batch of transpositions), of columns (no C), both (the CPU alone), skinny.
  const std::vector<std::pair<std::size_t, std::size_t>> shapes = {
      {96, 128}, {97, 128}, {128, 97}, {97, 89}, {256, 12}, {12, 256}, {64, 64}};
  for (std::size_t elem_size : {1, 2, 4, 8, 16})
    for (const auto& [rows, cols] : shapes)
      for (const std::uint64_t part : {std::uint64_t{6000}, std::uint64_t{50000}}) {
        INFO(rows << " x " << cols << ", " << elem_size << "-byte elements, parts of " << part);
        HostMatrix m(rows, cols, elem_size, ++seed);
        REQUIRE(streamed_call(m, part, 1 + seed % 4) == IPT_SUCCESS);
        CHECK(m.check_transposed() == "");
      }
  // The automatic part: none for a matrix that one allocation holds.
  ipt::host::HostRequest request;
  request.queue = session().queue();
  request.rows = 300;
  request.cols = 301;
  request.elem_size = 4;
  CHECK(ipt::host::host_stream_part(request) == 0);
  ipt::test::ScopedOverrides small("max_alloc=300000");
  CHECK(ipt::host::host_stream_part(request) == 150000);
}

TEST_CASE("streamed host matrices: a device that fails leaves the CPU to finish",
          "[host][faults]") {
  IPT_TEST_SEED(first_seed, 2809);
  std::uint64_t seed = first_seed;
  constexpr std::uint64_t kPart = 12000;
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{96, 130}, {97, 128}}) {
    const auto [commands, first_read] =
        commands_of(rows, cols, seed, [&](HostMatrix& m) { return streamed_call(m, kPart); });
    REQUIRE(commands.size() > 6);
    for (std::uint64_t failing = 1; failing <= commands.size(); ++failing) {
      INFO(rows << " x " << cols << ": command " << failing << " of " << commands.size() << " ("
                << commands[failing - 1] << ") fails");
      HostMatrix m(rows, cols, 4, ++seed);
      faults::arm({failing});
      const ipt_status status = streamed_call(m, kPart);
      faults::disarm();
      CHECK(status == IPT_SUCCESS);
      CHECK(m.check_transposed() == "");
    }
    HostMatrix lost(rows, cols, 4, ++seed);
    faults::arm({first_read, first_read + 1});
    CHECK(streamed_call(lost, kPart) == IPT_BUFFER_UNDEFINED);
    faults::disarm();
  }
  HostMatrix m(96, 130, 4, ++seed);
  faults::arm({}, {1});  // the part's buffer
  const ipt_status status = streamed_call(m, kPart);
  faults::disarm();
  CHECK(status == static_cast<ipt_status>(CL_MEM_OBJECT_ALLOCATION_FAILURE));
  CHECK(m.check_unchanged() == "");
}

namespace {

// The host matrix filled with stale bytes, and a read of its original bytes into it
// enqueued without blocking (after `gate`, where given) on the session's queue; returns
// the read's source buffer, for the caller to release.
cl_mem pending_read_into(HostMatrix& m, std::uint64_t seed, cl_event gate) {
  cl_int code = CL_SUCCESS;
  cl_mem source = clCreateBuffer(session().context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 m.bytes, m.original.data(), &code);
  REQUIRE(code == CL_SUCCESS);
  const auto stale = ipt::support::random_bytes(m.bytes, seed ^ 0xabc);
  std::memcpy(m.data(), stale.data(), m.bytes);
  REQUIRE(clEnqueueReadBuffer(session().queue(), source, CL_FALSE, 0, m.bytes, m.data(),
                              gate != nullptr ? 1 : 0, gate != nullptr ? &gate : nullptr,
                              nullptr) == CL_SUCCESS);
  return source;
}

}  // namespace

TEST_CASE("host calls through the device wait for the queue's earlier commands", "[host]") {
  IPT_TEST_SEED(first_seed, 2812);
  std::uint64_t seed = first_seed;
  // The caller's last command, a read into the host matrix, is still pending when the
  // call starts: each way must transpose what that read brings, not what was there.
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{96, 128}, {97, 89}})
    for (int way = 0; way < 4; ++way) {
      INFO(rows << " x " << cols
                << (way == 0   ? ", synchronous"
                    : way == 1 ? ", asynchronous"
                    : way == 2 ? ", streamed"
                               : ", on the CPU with the queue given"));
      HostMatrix m(rows, cols, 4, ++seed);
      cl_mem source = pending_read_into(m, seed, nullptr);
      const ipt_status status = way == 0   ? sliced_call(m, 1, 0)
                                : way == 1 ? sliced_call(m, 3, 0)
                                : way == 2 ? streamed_call(m, 6000)
                                           : host_call(session().queue(), m, IPT_HOST_CPU, 2);
      CHECK(status == IPT_SUCCESS);
      CHECK(m.check_transposed() == "");
      clReleaseMemObject(source);
    }
}

TEST_CASE("host calls on a row or a column return once the queue's earlier commands are done",
          "[host]") {
  // The caller's read into the host matrix waits for a user event that another thread
  // completes later: the call (whose transposition moves nothing) must return after the
  // read has brought its bytes, as for any other shape.
  std::uint64_t seed = 2895;
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{1, 300}, {300, 1}})
    for (const ipt_host_scheme scheme : {IPT_HOST_DEVICE, IPT_HOST_CPU}) {
      INFO(rows << " x " << cols << (scheme == IPT_HOST_CPU ? ", on the CPU" : ", device"));
      HostMatrix m(rows, cols, 4, ++seed);
      cl_int code = CL_SUCCESS;
      cl_event gate = clCreateUserEvent(session().context(), &code);
      REQUIRE(code == CL_SUCCESS);
      cl_mem source = pending_read_into(m, seed, gate);
      std::thread opener([gate] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        clSetUserEventStatus(gate, CL_COMPLETE);
      });
      const ipt_status status = host_call(session().queue(), m, scheme, 1);
      const bool read_done = m.check_transposed() == "";  // before the thread may open it
      opener.join();
      clFinish(session().queue());
      CHECK(status == IPT_SUCCESS);
      CHECK(read_done);
      clReleaseEvent(gate);
      clReleaseMemObject(source);
    }
}

TEST_CASE("host matrices through the device: any thread count asked for", "[host]") {
  // The copies' threads: as asked up to a few per hardware thread, then no more (the
  // largest count asked started threads until the system refused them, and the call
  // failed as an internal error).
  const unsigned most = 4 * ipt::cpu::default_threads();
  CHECK(ipt::host::staging_threads(3, 1000) == std::min(3u, most));
  CHECK(ipt::host::staging_threads(4294967295u, 1000) == most);
  CHECK(ipt::host::staging_threads(0, 1000) == 1);  // one per 4 MiB by default
  std::uint64_t seed = 2890;
  for (unsigned threads : {4294967295u, 100000u}) {
    INFO(threads << " threads");
    HostMatrix sliced(97, 128, 4, ++seed);
    REQUIRE(sliced_call(sliced, 3, 4096, threads) == IPT_SUCCESS);
    CHECK(sliced.check_transposed() == "");
    HostMatrix api(64, 48, 4, ++seed);
    REQUIRE(host_call(session().queue(), api, IPT_HOST_DEVICE, threads, IPT_HOST_PIN_AUTO, 2) ==
            IPT_SUCCESS);
    CHECK(api.check_transposed() == "");
  }
}
