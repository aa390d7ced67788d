// SPDX-License-Identifier: Apache-2.0
// Plans of tensor permutations (planner/permute_plan.hpp): how a permutation is reduced
// and composed of block swaps, and every composed plan checked by the host model (each
// element where numpy.transpose puts it, nothing touched past the tensor, flags zero when
// used), with its rollbacks.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "helpers/plan_model.hpp"
#include "helpers/test_profiles.hpp"
#include "helpers/test_seed.hpp"
#include "planner/permute_plan.hpp"

using ipt::planner::BlockSwap;
using ipt::planner::LaunchPlan;
using ipt::planner::PermuteShape;
using ipt::planner::plan_permute;
using ipt::planner::reduce_permutation;
using u64 = std::uint64_t;

namespace {

std::string shape_text(const PermuteShape& shape) {
  std::string out = "dims";
  for (const u64 d : shape.dims) out += " " + std::to_string(d);
  out += ", perm";
  for (const std::size_t p : shape.perm) out += " " + std::to_string(p);
  return out + ", " + std::to_string(shape.elem_size) + "-byte elements";
}

// A random tensor of `rank` axes: mostly small sides, some of size 1, some primes and some
// long (skinny) ones, at most `max_elements` in all.
PermuteShape random_shape(std::mt19937_64& random, std::size_t rank, u64 max_elements) {
  static const u64 sides[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 32, 64, 97, 128, 257, 1000, 4099};
  PermuteShape shape;
  shape.elem_size = std::size_t{1} << (random() % 5);
  for (std::size_t a = 0; a < rank; ++a) {
    u64 side = sides[random() % (sizeof sides / sizeof sides[0])];
    u64 total = 1;
    for (const u64 d : shape.dims) total *= d;
    while (side > 1 && total * side > max_elements) side /= 2;
    shape.dims.push_back(side);
  }
  shape.perm.resize(rank);
  std::iota(shape.perm.begin(), shape.perm.end(), 0);
  std::shuffle(shape.perm.begin(), shape.perm.end(), random);
  return shape;
}

u64 elements_of(const PermuteShape& shape) {
  u64 total = 1;
  for (const u64 d : shape.dims) total *= d;
  return total;
}

}  // namespace

TEST_CASE("a permutation is reduced: axes of 1 dropped and adjacent ones merged or folded",
          "[planner][permute]") {
  // NCHW -> NHWC: H and W stay adjacent, one transposition of C x HW per image.
  auto r = reduce_permutation({{8, 64, 56, 56}, {0, 2, 3, 1}, 4});
  CHECK(r.dims == std::vector<u64>{8, 64, 3136});
  CHECK(r.perm == std::vector<std::size_t>{0, 2, 1});
  CHECK(r.elem_size == 4);
  // Attention heads [B][S][H][D] -> [B][H][S][D]: D stays last (256 bytes: not an element).
  r = reduce_permutation({{4, 512, 16, 64}, {0, 2, 1, 3}, 4});
  CHECK(r.dims == std::vector<u64>{4, 512, 16, 64});
  CHECK(r.perm == std::vector<std::size_t>{0, 2, 1, 3});
  // Complex floats as [A][B][2]: the last axis makes 8-byte elements.
  r = reduce_permutation({{300, 500, 2}, {1, 0, 2}, 4});
  CHECK(r.dims == std::vector<u64>{300, 500});
  CHECK(r.perm == std::vector<std::size_t>{1, 0});
  CHECK(r.elem_size == 8);
  // ... unless the tensor does not start at such an element.
  PermuteShape odd{{300, 500, 2}, {1, 0, 2}, 4, 1};
  CHECK(reduce_permutation(odd).elem_size == 4);
  // Axes of size 1 anywhere, and what is left merges to an identity.
  r = reduce_permutation({{1, 7, 1, 9}, {2, 1, 0, 3}, 2});
  CHECK(r.identity());
  r = reduce_permutation({{1, 1}, {1, 0}, 4});
  CHECK(r.identity());
  // xyz -> zxy of a cube: one transposition of XY x Z.
  r = reduce_permutation({{256, 256, 256}, {2, 0, 1}, 4});
  CHECK(r.dims == std::vector<u64>{65536, 256});
  CHECK(r.perm == std::vector<std::size_t>{1, 0});
}

TEST_CASE("bad permutations are refused", "[planner][permute]") {
  const auto device = ipt::test::nvidia_like();
  for (const PermuteShape& bad : std::vector<PermuteShape>{
           {{}, {}, 4},                                                    // rank 0
           {{2, 2, 2, 2, 2, 2, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8}, 4},  // rank 9
           {{3, 4}, {0, 0}, 4},                                            // a repeat
           {{3, 4}, {0, 2}, 4},                                            // out of range
           {{3, 4}, {1}, 4},                                               // too short
           {{3, 0}, {1, 0}, 4}}) {                                         // empty
    INFO(shape_text(bad));
    CHECK_THROWS_AS(plan_permute(device, bad), std::invalid_argument);
  }
}

TEST_CASE("a matrix transposition is exactly ipt_transpose's plan", "[planner][permute]") {
  const auto device = ipt::test::nvidia_like();
  for (const auto& [rows, cols] : std::vector<std::pair<u64, u64>>{
           {1009, 991}, {4096, 4096}, {3001, 4999}, {2000, 30}, {7, 13}}) {
    for (const u64 capacity : {u64{0}, rows * cols + 100000}) {
      ipt::planner::CallShape call{rows, cols, 4, 0, capacity, 1};
      const LaunchPlan transpose = ipt::planner::plan_call(device, call);
      const LaunchPlan permute = plan_permute(device, {{rows, cols}, {1, 0}, 4, 0, capacity});
      INFO(rows << " x " << cols << ", capacity " << capacity);
      REQUIRE(permute.steps.size() == transpose.steps.size());
      for (std::size_t i = 0; i < permute.steps.size(); ++i) {
        CHECK(permute.steps[i].options == transpose.steps[i].options);
        CHECK(permute.steps[i].what == transpose.steps[i].what);
      }
      CHECK(permute.borrowed_bytes == transpose.borrowed_bytes);
      CHECK(permute.scratch_bytes == transpose.scratch_bytes);
    }
  }
}

TEST_CASE("common layouts take one block swap", "[planner][permute]") {
  const auto device = ipt::test::nvidia_like();
  const auto swaps = [&](const PermuteShape& shape) {
    return ipt::planner::permutation_swaps(device, reduce_permutation(shape));
  };
  // NCHW -> NHWC and back: a batch of transpositions.
  CHECK(swaps({{8, 64, 56, 56}, {0, 2, 3, 1}, 4}) == std::vector<BlockSwap>{{8, 64, 3136, 1}});
  CHECK(swaps({{8, 56, 56, 64}, {0, 3, 1, 2}, 4}) == std::vector<BlockSwap>{{8, 3136, 64, 1}});
  // Heads: super-elements of D.
  CHECK(swaps({{4, 512, 16, 64}, {0, 2, 1, 3}, 4}) == std::vector<BlockSwap>{{4, 512, 16, 64}});
  // Pencils: xyz -> zxy and yzx.
  CHECK(swaps({{256, 128, 512}, {2, 0, 1}, 4}) == std::vector<BlockSwap>{{1, 32768, 512, 1}});
  CHECK(swaps({{256, 128, 512}, {1, 2, 0}, 4}) == std::vector<BlockSwap>{{1, 256, 65536, 1}});
  // An identity moves nothing.
  CHECK(plan_permute(device, {{5, 1, 7}, {1, 0, 2}, 4}).steps.empty());
}

TEST_CASE("every permutation of every rank to 5 on small tensors is planned right",
          "[planner][permute]") {
  std::mt19937_64 random(ipt::test::seed(5101));
  for (const auto& [name, device] : ipt::test::gpu_and_cpu_profiles())
    for (std::size_t rank = 1; rank <= 5; ++rank) {
      std::vector<std::size_t> perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      do {
        PermuteShape shape = random_shape(random, rank, 30000);
        shape.perm = perm;
        shape.offset = random() % 3 == 0 ? random() % 64 : 0;
        INFO(name << ": " << shape_text(shape) << ", offset " << shape.offset);
        const LaunchPlan plan = plan_permute(device, shape);
        REQUIRE(ipt::planner::check_permute_plan(plan, shape) == "");
        for (std::size_t done = 1; done < plan.steps.size(); ++done)
          REQUIRE(ipt::planner::check_permute_rollback(plan, done, shape) == "");
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
}

TEST_CASE("random permutations to rank 8 are planned right, within the memory bound",
          "[planner][permute][large]") {
  std::mt19937_64 random(ipt::test::seed(5102));
  const auto profiles = ipt::test::gpu_and_cpu_profiles();
  const int count = 100000;
  for (int k = 0; k < count; ++k) {
    const auto& [name, device] = profiles[static_cast<std::size_t>(k) % profiles.size()];
    const std::size_t rank = 2 + random() % 7;
    // Mostly small tensors, checked element by element; every 50th up to 2^33 elements,
    // checked on samples.
    const u64 most = k % 50 == 0 ? u64{1} << 33 : 100000;
    PermuteShape shape = random_shape(random, rank, most);
    INFO(name << ": " << shape_text(shape));
    const LaunchPlan plan = plan_permute(device, shape);
    REQUIRE(ipt::planner::check_permute_plan(plan, shape, 2000, 256, k) == "");
    const u64 bytes = elements_of(shape) * shape.elem_size;
    if (elements_of(shape) >= ipt::planner::kMemoryBudgetFrom)
      REQUIRE(static_cast<double>(plan.scratch_bytes + plan.zero_scratch_bytes) <=
              ipt::planner::kMaxExtraMemory * static_cast<double>(bytes));
  }
}
