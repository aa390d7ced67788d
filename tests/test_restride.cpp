// The in-place row re-stride (padding / unpadding, kernels/restride.cl) through its
// launcher: rows shorter and longer than a chunk, tiny chunks that make every group wait
// for others, every element size, 64-bit indices, round trips; bytes before the matrix
// and after its largest extent must stay unchanged.
#include <catch2/catch.hpp>
#include <cstring>
#include <sstream>

#include "planner/elementary_configs.hpp"
#include "runtime/restride_launcher.hpp"
#include "runtime/scratch_region.hpp"
#include "test_support.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::session;

namespace {

struct Case {
  std::uint64_t rows, len, s_in, s_out;
};

// Runs the re-stride on random data and checks every moved element and the guards.
std::string run_restride(const Case& c, std::size_t elem_size,
                         const ipt::planner::RestrideConfig& config, std::uint64_t seed,
                         const ipt::runtime::ScratchRegion* scratch = nullptr) {
  const std::uint64_t extent = c.rows * std::max(c.s_in, c.s_out);
  const std::size_t offset = seed % 5;
  GuardedMatrix m(1, extent, elem_size, offset, 3 * elem_size, seed);
  const cl::CommandQueue queue(session().queue(), true);
  const cl::Buffer buffer(m.buffer(), true);
  ipt::runtime::enqueue_restride(queue, buffer, offset, c.rows, c.len, c.s_in, c.s_out, elem_size,
                                 config, {}, scratch)
      .wait();
  const auto before = m.initial();
  const auto after = m.read_all();
  const std::size_t base = offset * elem_size;
  std::ostringstream problems;
  std::size_t wrong = 0;
  for (std::uint64_t r = 0; r < c.rows; ++r)
    for (std::uint64_t k = 0; k < c.len; ++k)
      if (std::memcmp(&after[base + (r * c.s_out + k) * elem_size],
                      &before[base + (r * c.s_in + k) * elem_size], elem_size) != 0 &&
          wrong++ == 0)
        problems << "element (" << r << ", " << k << ") wrong; ";
  for (std::size_t i = 0; i < before.size(); ++i)
    if ((i < base || i >= base + extent * elem_size) && before[i] != after[i] && wrong++ == 0)
      problems << "guard byte " << i << " changed; ";
  if (wrong > 0) problems << wrong << " problems";
  return problems.str();
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

TEST_CASE("restride with 64-bit indices and the planner's configurations", "[restride]") {
  auto forced = config_of(32, 2);
  forced.force_index64 = true;
  CHECK(run_restride({300, 77, 77, 80}, 8, forced, 70) == "");
  CHECK(run_restride({300, 77, 80, 77}, 8, forced, 71) == "");
  ipt::planner::DeviceProfile gpu;
  gpu.local_mem_bytes = 48 * 1024;
  ipt::planner::DeviceProfile amd;
  amd.local_mem_bytes = 32 * 1024;
  amd.max_work_group_size = 256;
  for (const auto& device : {gpu, amd})
    for (std::size_t elem_size : {2, 16}) {
      const auto config = ipt::planner::choose_restride(device, elem_size);
      CHECK(config.work_group * config.per_item * elem_size <=
            ipt::planner::usable_local_bytes(device));
      CHECK(run_restride({2000, 999, 999, 1000}, elem_size, config, 72) == "");
      CHECK(run_restride({2000, 999, 1000, 999}, elem_size, config, 73) == "");
    }
}

TEST_CASE("restride uses the scratch region it is given, and nothing around it", "[restride]") {
  // A call hands the padding kernels a region of one scratch buffer by offset. The bytes
  // around the region hold ones and must stay so; the region itself starts zeroed.
  const auto config = config_of(32, 2);
  const Case c{500, 77, 77, 80};
  const std::uint64_t bytes = ipt::planner::restride_scratch_bytes(config, c.rows * c.len);
  const std::uint64_t before = 384, total = before + bytes + 128;
  const cl::CommandQueue queue(session().queue(), true);
  ipt::runtime::ScratchRegion region{cl::Buffer(queue.getInfo<CL_QUEUE_CONTEXT>(),
                                                CL_MEM_READ_WRITE, static_cast<std::size_t>(total)),
                                     before, bytes};
  for (int round = 0; round < 2; ++round) {  // padding, then unpadding with the same region
    queue.enqueueFillBuffer(region.buffer, cl_uchar{0x7f}, 0, static_cast<std::size_t>(total));
    queue.enqueueFillBuffer(region.buffer, cl_uchar{0}, static_cast<std::size_t>(before),
                            static_cast<std::size_t>(bytes));
    const Case run = round == 0 ? c : Case{c.rows, c.len, c.s_out, c.s_in};
    CHECK(run_restride(run, 4, config, 75 + round, &region) == "");
    CHECK(ipt::test::bytes_changed_around(region.buffer(), before, bytes, 0x7f) == 0);
  }
}

TEST_CASE("restride padding then unpadding gives back the matrix", "[restride]") {
  const std::uint64_t rows = 1234, len = 567;
  GuardedMatrix m(1, rows * (len + 3), 4, 0, 4, 80);
  const cl::CommandQueue queue(session().queue(), true);
  const cl::Buffer buffer(m.buffer(), true);
  const auto config = config_of(16, 4);
  ipt::runtime::enqueue_restride(queue, buffer, 0, rows, len, len, len + 3, 4, config, {}).wait();
  ipt::runtime::enqueue_restride(queue, buffer, 0, rows, len, len + 3, len, 4, config, {}).wait();
  const auto before = m.initial(), after = m.read_all();
  CHECK(std::memcmp(before.data(), after.data(), rows * len * 4) == 0);
}

TEST_CASE("restride above 2^24 elements", "[restride][large]") {
  CHECK(run_restride({4100, 4100, 4100, 4101}, 1, config_of(256, 8), 90) == "");
  CHECK(run_restride({4100, 4100, 4101, 4100}, 1, config_of(256, 8), 91) == "");
}
