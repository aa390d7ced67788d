// SPDX-License-Identifier: Apache-2.0
// The in-place row re-stride (padding / unpadding, kernels/restride.cl), its step run
// alone: rows shorter and longer than a chunk, tiny chunks that make every group wait for
// others, every element size, 64-bit indices, round trips; bytes before the matrix and
// after its largest extent must stay unchanged, and the gaps between rows as they were.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <string>

#include "helpers/step_check.hpp"
#include "helpers/test_support.hpp"
#include "planner/families/bs.hpp"
#include "planner/families/pttwac.hpp"
#include "planner/families/restride.hpp"
#include "planner/families/soa.hpp"
#include "planner/launch_plan.hpp"
#include "runtime/executor.hpp"
#include "runtime/opencl.hpp"

using ipt::test::check_step;
using ipt::test::check_steps;
using ipt::test::session;
using ipt::test::site_of;

namespace {

struct Case {
  std::uint64_t rows, len, s_in, s_out;
};

// Runs the re-stride on random data and checks every element of its extent (moved rows,
// and what lies between them) and the guards.
std::string run_restride(const Case& c, std::size_t elem_size,
                         const ipt::planner::RestrideConfig& config, std::uint64_t seed,
                         const ipt::planner::Region& scratch = {},
                         const ipt::runtime::EnqueueOptions& options = {}) {
  const auto site = site_of(elem_size, seed % 5);
  const auto step =
      ipt::planner::restride_step(site, c.rows, c.len, c.s_in, c.s_out, config, scratch);
  // Every case here indexes within 32 bits: the width is the one the config forces.
  if (!step.noop() && step.index64 != config.force_index64) return "wrong index width";
  return check_step(step, site, c.rows * std::max(c.s_in, c.s_out), 3 * elem_size, seed, options);
}

ipt::planner::RestrideConfig config_of(std::size_t wg, std::size_t per_item) {
  ipt::planner::RestrideConfig config;
  config.work_group = wg;
  config.per_item = per_item;
  return config;
}

}  // namespace

TEST_CASE("restride pads and unpads rows of every length class", "[restride]") {
  const Case cases[] = {{1000, 37, 37, 38},
                        {1000, 37, 38, 37},
                        {37, 1000, 1000, 1003},
                        {37, 1000, 1003, 1000},
                        {3, 100000, 100000, 100001},
                        {3, 100000, 100001, 100000},
                        {100000, 3, 3, 4},
                        {100000, 3, 4, 3},
                        {257, 513, 513, 520},
                        {257, 513, 520, 513},
                        {2, 2, 2, 3},
                        {2, 2, 3, 2},
                        {5, 1, 1, 2},
                        {64, 64, 64, 65},
                        // Late rows move many chunks away: a chunk's destination overlaps
                        // the sources of chunks far from it, and only those are waited for.
                        {2000, 500, 500, 530},
                        {2000, 500, 530, 500}};
  std::uint64_t seed = 1;
  for (const auto& config : {config_of(256, 8), config_of(4, 2), config_of(64, 1)})
    for (std::size_t elem_size : {1, 4, 16})
      for (const Case& c : cases) {
        INFO("rows " << c.rows << " len " << c.len << " " << c.s_in << " -> " << c.s_out << " elem "
                     << elem_size << " chunk " << config.work_group * config.per_item);
        CHECK(run_restride(c, elem_size, config, ++seed) == "");
      }
}

TEST_CASE("restride moves rows of 1- and 2-byte elements that fill words in words", "[restride]") {
  // Rows that start on a 4-byte (or, for 1-byte elements, 2-byte) boundary in both
  // layouts and are whole such units long move in those units; the others, and odd
  // offsets, element by element. Either way the result is the restride of the elements.
  const Case cases[] = {{1000, 36, 36, 40},    {1000, 36, 40, 36},     {300, 64, 64, 72},
                        {300, 64, 72, 64},     {37, 1000, 1000, 1004}, {37, 1000, 1004, 1000},
                        {1000, 38, 38, 42},    {1000, 38, 42, 38},     {2000, 500, 500, 530},
                        {2000, 500, 530, 500}, {1000, 37, 37, 41},     {3, 4, 4, 8}};
  std::uint64_t seed = 100;
  auto wide = config_of(64, 16);  // the 64-bit kernels of matrices past 2^31 elements
  wide.force_index64 = true;
  auto wide_offsets = wide;  // and the offsets within a chunk in 64 bits too
  wide_offsets.force_offsets64 = true;
  for (const auto& config :
       {config_of(256, 64), config_of(64, 16), config_of(4, 2), wide, wide_offsets})
    for (std::size_t elem_size : {1, 2})
      for (const Case& c : cases)
        for (const std::uint64_t offset : {0, 1, 2, 4}) {
          INFO("rows " << c.rows << " len " << c.len << " " << c.s_in << " -> " << c.s_out
                       << " elem " << elem_size << " offset " << offset << " chunk "
                       << config.work_group * config.per_item);
          const auto site = site_of(elem_size, offset);
          const auto step =
              ipt::planner::restride_step(site, c.rows, c.len, c.s_in, c.s_out, config, {});
          // The unit: the widest of up to 4 bytes that every row start, row length and
          // the offset are multiples of, and that divides a work-item's share.
          std::size_t unit = elem_size == 1 ? 4 : 2;
          const std::uint64_t run = std::gcd(c.len, std::gcd(c.s_in, c.s_out));
          while (unit > 1 && (run % unit != 0 || offset % unit != 0 || config.per_item % unit != 0))
            unit /= 2;
          CHECK(step.options.rfind("-DIPT_ELEM_BYTES=" + std::to_string(elem_size * unit) + " ",
                                   0) == 0);
          CHECK(step.index64 == config.force_index64);
          CHECK((step.options.find(" -DIPT_RELATIVE32=1") != std::string::npos) ==
                (config.force_index64 && !config.force_offsets64));
          CHECK(check_step(step, site, c.rows * std::max(c.s_in, c.s_out), 3 * elem_size + 1,
                           ++seed) == "");
        }
}

TEST_CASE("restride with 64-bit indices and the planner's configurations", "[restride]") {
  auto forced = config_of(32, 2);
  forced.force_index64 = true;
  CHECK(run_restride({300, 77, 77, 80}, 8, forced, 70) == "");
  CHECK(run_restride({300, 77, 80, 77}, 8, forced, 71) == "");
  forced.force_offsets64 = true;
  CHECK(run_restride({300, 77, 77, 80}, 8, forced, 74) == "");
  CHECK(run_restride({300, 77, 80, 77}, 8, forced, 75) == "");
  ipt::planner::DeviceProfile gpu;
  gpu.local_mem_bytes = 48 * 1024;
  ipt::planner::DeviceProfile amd;
  amd.local_mem_bytes = 32 * 1024;
  amd.max_work_group_size = 256;
  for (const auto& device : {gpu, amd})
    for (std::size_t elem_size : {2, 4, 16})
      for (std::uint64_t elements : {std::uint64_t{0}, std::uint64_t{1} << 33}) {
        // Spreads of matrices of more than 2^31 elements get larger chunks; the kernel is
        // run here on a small one with the same builds, both ways.
        const auto config = ipt::planner::choose_restride(device, elem_size, elements);
        // The chunk lives in registers: at most kMaxRestrideBytes per work-item, and at
        // least 8 KiB per chunk (one flag per chunk).
        CHECK(config.per_item * elem_size <= ipt::planner::kMaxRestrideBytes);
        CHECK(config.work_group * config.per_item * elem_size >= 8192);
        CHECK(run_restride({2000, 999, 999, 1000}, elem_size, config, 72) == "");
        CHECK(run_restride({2000, 999, 1000, 999}, elem_size, config, 73) == "");
        if (elements != 0) {
          // Spreads past 2^31 elements: more elements per work-item in smaller groups,
          // chunks of at least 4 KiB; and these builds with their own 64-bit indices.
          CHECK(config.spread_per_item * elem_size <= ipt::planner::kMaxRestrideBytes);
          CHECK(config.spread_work_group * config.spread_per_item * elem_size >= 4096);
          auto wide = config;
          wide.force_index64 = true;
          CHECK(run_restride({2000, 999, 999, 1000}, elem_size, wide, 76) == "");
          CHECK(run_restride({2000, 999, 1000, 999}, elem_size, wide, 77) == "");
        }
      }
}

TEST_CASE("restride uses the scratch region it is given, and nothing around it", "[restride]") {
  // A call hands the padding kernels a region of one scratch buffer by offset. The bytes
  // around the region hold 0x7F and must stay so; the region itself starts zeroed (the
  // run zeroes it before the kernel).
  const auto config = config_of(32, 2);
  const Case c{500, 77, 77, 80};
  const std::uint64_t bytes = ipt::planner::restride_scratch_bytes(config, c.rows * c.len);
  const std::uint64_t before = 384, total = before + bytes + 128;
  const cl::CommandQueue queue(session().queue(), true);
  const cl::Buffer scratch(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE,
                           static_cast<std::size_t>(total));
  ipt::runtime::EnqueueOptions options;
  options.scratch = &scratch;
  for (int round = 0; round < 2; ++round) {  // padding, then unpadding with the same region
    queue.enqueueFillBuffer(scratch, cl_uchar{0x7f}, 0, static_cast<std::size_t>(total));
    const Case run = round == 0 ? c : Case{c.rows, c.len, c.s_out, c.s_in};
    CHECK(run_restride(run, 4, config, 75 + round, {ipt::planner::Buffer::kScratch, before, bytes},
                       options) == "");
    CHECK(ipt::test::bytes_changed_around(scratch(), before, bytes, 0x7f) == 0);
  }
}

TEST_CASE("restride padding then unpadding gives back the matrix", "[restride]") {
  // One run of both steps, each with its own flags (as a padded call has them): the rows
  // are back where they started, and the rest of the padded extent holds what the two
  // moves left there. Floats, and 1- and 2-byte rows that move as 4-byte words.
  struct Case {
    std::size_t elem_size;
    std::uint64_t len, padding, unit_bytes;
  };
  const std::uint64_t rows = 1234;
  const auto config = config_of(16, 4);
  for (const Case& c : {Case{4, 567, 3, 4}, Case{1, 568, 4, 4}, Case{2, 566, 2, 4}}) {
    INFO("elem " << c.elem_size << " len " << c.len);
    const auto site = site_of(c.elem_size, 0);
    const std::uint64_t bytes = ipt::planner::restride_scratch_bytes(config, rows * c.len);
    const std::uint64_t padded = c.len + c.padding;
    const auto pad = ipt::planner::restride_step(site, rows, c.len, c.len, padded, config,
                                                 {ipt::planner::Buffer::kScratch, 0, bytes});
    const auto unpad = ipt::planner::restride_step(
        site, rows, c.len, padded, c.len, config,
        {ipt::planner::Buffer::kScratch, (bytes + 127) / 128 * 128, bytes});
    const std::string unit = "-DIPT_ELEM_BYTES=" + std::to_string(c.unit_bytes) + " ";
    CHECK(pad.options.rfind(unit, 0) == 0);
    CHECK(unpad.options.rfind(unit, 0) == 0);
    // The padding alone against its host reference first: the pair alone would also pass
    // two kernels that leave the rows where they are.
    CHECK(check_step(pad, site, rows * padded, 4, 80) == "");
    CHECK(check_steps({pad, unpad}, site, rows * padded, 4, 80) == "");
  }
}

TEST_CASE("restride above 2^24 elements", "[restride][large]") {
  CHECK(run_restride({4100, 4100, 4100, 4101}, 1, config_of(256, 8), 90) == "");
  CHECK(run_restride({4100, 4100, 4101, 4100}, 1, config_of(256, 8), 91) == "");
  // Rows of whole 4-byte words, at offsets of whole words: the same in words.
  const auto words =
      ipt::planner::restride_step(site_of(1, 0), 4100, 4100, 4100, 4104, config_of(256, 8), {});
  CHECK(words.options.rfind("-DIPT_ELEM_BYTES=4 ", 0) == 0);
  CHECK(run_restride({4100, 4100, 4100, 4104}, 1, config_of(256, 8), 95) == "");  // offset 0
  CHECK(run_restride({4100, 4100, 4104, 4100}, 1, config_of(256, 8), 94) == "");  // offset 4
}

TEST_CASE("restride closes rows up into a compact matrix in wide stored words",
          "[restride][units]") {
  // Unpadding to stride == len stores the chunk's run of destinations as 8- or 16-byte
  // words from the first element on a word boundary of the buffer, and the loose elements
  // before and after them one by one. Offsets move that boundary; tiny chunks and rows
  // shorter than a chunk put loose elements at both ends of most chunks, and the last
  // chunk may hold fewer elements than a word. Padding, and unpadding into strided rows,
  // move element by element.
  const Case cases[] = {
      {300, 37, 40, 37},     {300, 37, 37, 40},     {1000, 5, 6, 5},  {1000, 5, 5, 6},
      {3, 1001, 1003, 1001}, {3, 1001, 1001, 1003}, {2, 17, 18, 17},  {2, 17, 17, 18},
      {64, 64, 65, 64},      {7, 4, 5, 4},          {7, 4, 4, 5},     {7, 16, 17, 16},
      {7, 16, 16, 17},       {101, 33, 35, 33},     {999, 9, 11, 9},  {999, 9, 9, 11},
      {100, 3, 4, 3},        {100, 3, 3, 4},        {50, 20, 22, 25}, {50, 20, 25, 22}};
  struct Config {
    std::size_t wg, per_item, word_bytes;
  };
  std::uint64_t seed = 2000;
  int in_words[17] = {};  // steps by bytes per word
  // 32-bit indices; 64-bit ones with each element's offset from its chunk's first row in
  // 32 bits (as the planner builds them); 64-bit ones throughout.
  for (const int width : {32, 64, 128})
    for (const Config k : {Config{32, 16, 16}, Config{16, 16, 16}, Config{8, 4, 16},
                           Config{4, 4, 16}, Config{256, 16, 16}, Config{16, 8, 8}})
      for (const std::size_t elem_size : {1, 2, 4})
        for (const Case& c : cases)
          for (const std::uint64_t offset : {0, 1, 2, 3, 5, 15}) {
            INFO("rows " << c.rows << " len " << c.len << " " << c.s_in << " -> " << c.s_out
                         << " elem " << elem_size << " offset " << offset << " wg " << k.wg
                         << " per item " << k.per_item << " width " << width);
            auto config = config_of(k.wg, k.per_item);
            config.force_index64 = width > 32;
            config.force_offsets64 = width > 64;
            config.word_bytes = k.word_bytes;
            const auto site = site_of(elem_size, offset);
            const auto step =
                ipt::planner::restride_step(site, c.rows, c.len, c.s_in, c.s_out, config, {});
            // The rule: words of the device's word (8 or 16 bytes) where a work-item's
            // elements fill them whole, rows are no shorter, with a work-item per loose
            // element, when rows close up into a compact matrix.
            const std::size_t u = k.word_bytes / elem_size;
            const bool compact = c.s_out == c.len && c.s_in > c.len;
            const std::size_t expected =
                compact && k.per_item % u == 0 && c.len >= u && k.wg >= 2 * (u - 1) ? u : 1;
            const auto at = step.options.find(" -DIPT_UNITS=");
            const std::size_t units =
                at == std::string::npos ? 1 : std::stoul(step.options.substr(at + 13));
            CHECK(units == expected);
            CHECK((step.options.find(" -DIPT_RELATIVE32=1") != std::string::npos) == (width == 64));
            ++in_words[units * elem_size <= 16 ? units * elem_size : 0];
            CHECK(check_step(step, site, c.rows * std::max(c.s_in, c.s_out), 3 * elem_size + 1,
                             ++seed) == "");
          }
  CHECK(in_words[8] > 0);
  CHECK(in_words[16] > 0);
}

TEST_CASE("restride loads the rare units of wide-word unpads by the whole group",
          "[restride][units]") {
  // 1- and 2-byte rows closed up in 16-byte words: the unit across each row's end, and
  // the matrix's last where its words pass the end, are loaded element by element by
  // the group, R elements per work-item (IPT_RARE_ITEMS), where a chunk's fit; by their
  // owners where they do not. Rows of 75 to 1001 elements put 1 to 15 row ends in a
  // chunk of 1024 elements; offsets move the units' boundaries.
  std::uint64_t seed = 3000;
  int by_items[3] = {};
  for (const std::size_t elem_size : {1, 2})
    for (const std::uint64_t len : {75, 180, 600, 1001})
      for (const std::uint64_t gap : {1, 3, 17})
        for (const std::uint64_t offset : {0, 1, 3, 7, 13}) {
          const std::uint64_t rows = 41;
          INFO("len " << len << " gap " << gap << " elem " << elem_size << " offset " << offset);
          auto config = config_of(64, 16);
          config.word_bytes = 16;
          const auto site = site_of(elem_size, offset);
          const auto step =
              ipt::planner::restride_step(site, rows, len, len + gap, len, config, {});
          const std::uint64_t u = 16 / elem_size, slots = 1023 / len + 5;
          const std::uint64_t items = (slots * u + 63) / 64;
          const std::uint64_t expected = items <= 2 ? items : 0;
          const auto at = step.options.find(" -DIPT_RARE_ITEMS=");
          const std::uint64_t got =
              at == std::string::npos ? 0 : std::stoul(step.options.substr(at + 18));
          CHECK(got == expected);
          ++by_items[got];
          CHECK(check_step(step, site, rows * (len + gap), 3 * elem_size + 1, ++seed) == "");
        }
  CHECK(by_items[0] > 0);
  CHECK(by_items[1] > 0);
  CHECK(by_items[2] > 0);
}
