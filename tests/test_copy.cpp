// The element copy between buffers (kernels/copy.cl), which saves and restores the bytes a
// padded plan borrows beyond the caller's matrix: every element size, offsets on both
// sides, counts below a work-group and beyond one grid (the grid-stride loop), and the
// bytes around both ranges unchanged.
#include <catch2/catch.hpp>
#include <cstring>

#include "runtime/copy_launcher.hpp"
#include "runtime/scratch_region.hpp"
#include "test_support.hpp"
#include "words_to_zero.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::session;

TEST_CASE("copy moves exactly its range between buffers", "[copy]") {
  const cl::CommandQueue queue(session().queue(), true);
  for (std::size_t elem_size : {1, 2, 4, 8, 16}) {
    for (std::uint64_t count : {1ull, 7ull, 256ull, 1000ull, 300000ull}) {
      CAPTURE(elem_size, count);
      const std::size_t src_offset = count % 5 + 1, dst_offset = count % 3;
      GuardedMatrix src(1, count, elem_size, src_offset, 5 * elem_size, count + elem_size);
      GuardedMatrix dst(1, count, elem_size, dst_offset, 3 * elem_size, count * 3 + elem_size);
      const cl::Buffer from(src.buffer(), true), to(dst.buffer(), true);
      ipt::runtime::enqueue_copy(queue, from, src_offset, to, dst_offset, count, elem_size, {})
          .wait();
      CHECK(src.check_unchanged() == "");
      const auto before = dst.initial(), after = dst.read_all(), source = src.initial();
      const std::size_t begin = dst_offset * elem_size, bytes = count * elem_size;
      CHECK(std::memcmp(&after[begin], &source[src_offset * elem_size], bytes) == 0);
      CHECK(std::memcmp(after.data(), before.data(), begin) == 0);
      CHECK(std::memcmp(&after[begin + bytes], &before[begin + bytes],
                        after.size() - begin - bytes) == 0);
    }
  }
}

TEST_CASE("a copy of nothing, a dry run and a copy without an event", "[copy]") {
  const cl::CommandQueue queue(session().queue(), true);
  GuardedMatrix src(1, 64, 4, 0, 4, 1), dst(1, 64, 4, 0, 4, 2);
  const cl::Buffer from(src.buffer(), true), to(dst.buffer(), true);
  cl::Event nothing = ipt::runtime::enqueue_copy(queue, from, 0, to, 0, 0, 4, {});
  REQUIRE(nothing() != nullptr);  // a marker: callers may wait on it
  nothing.wait();
  CHECK(ipt::runtime::enqueue_copy(queue, from, 0, to, 0, 64, 4, {}, /*dry_run=*/true)() ==
        nullptr);
  CHECK(dst.check_unchanged() == "");
  CHECK(ipt::runtime::enqueue_copy(queue, from, 0, to, 0, 64, 4, {}, false, /*event=*/false)() ==
        nullptr);
  queue.finish();
  const auto after = dst.read_all(), source = src.initial();
  CHECK(std::memcmp(after.data(), source.data(), 64 * 4) == 0);
  CHECK(std::memcmp(&after[64 * 4], &dst.initial()[64 * 4], 4) == 0);
}

TEST_CASE("a copy also zeroes the region it is given, and nothing around it", "[copy]") {
  // A padded call's save of the borrowed bytes clears the call's flags in the same
  // command: the region must end all zero, the words around it as they were.
  const cl::CommandQueue queue(session().queue(), true);
  for (std::uint64_t words : {1ull, 255ull, 70000ull, 300000ull}) {  // below and beyond a grid
    for (std::uint64_t count : {0ull, 5ull, 1000ull}) {
      CAPTURE(words, count);
      const ipt::test::WordsToZero zero(queue, words);
      GuardedMatrix src(1, count + 1, 4, 0, 4, words + count), dst(1, count + 1, 4, 0, 4, 9);
      const cl::Buffer from(src.buffer(), true), to(dst.buffer(), true);
      ipt::runtime::enqueue_copy(queue, from, 1, to, 0, count, 4, {}, false, true, zero.region())
          .wait();
      CHECK(zero.wrong_bytes(queue) == 0);
      const auto after = dst.read_all(), source = src.initial();
      CHECK(std::memcmp(after.data(), &source[4], count * 4) == 0);
      CHECK(std::memcmp(&after[count * 4], &dst.initial()[count * 4], after.size() - count * 4) ==
            0);
    }
  }
}
