// SPDX-License-Identifier: Apache-2.0
// The kernel programs of an element size (planner/kernel_variants.hpp): few, and every
// step (and undo step) of every default plan is one of them, so that building them
// ahead of the calls leaves no call to compile.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "helpers/random_shapes.hpp"
#include "helpers/test_profiles.hpp"
#include "helpers/test_seed.hpp"
#include "planner/imatcopy_plan.hpp"
#include "planner/kernel_variants.hpp"

using namespace ipt::planner;
using u64 = std::uint64_t;

namespace {

std::vector<ipt::test::NamedProfile> profiles() {
  auto all = ipt::test::gpu_and_cpu_profiles();
  DeviceProfile narrow = ipt::test::cpu_like();
  narrow.simd_width = 8;  // units of at most 8 lanes
  all.push_back({"CPU-like, 8 lanes", narrow});
  return all;
}

// The steps of `plan` (and their undo steps) that are none of `variants`, in words.
std::string unknown_steps(const LaunchPlan& plan, const std::vector<KernelVariant>& variants) {
  std::string unknown;
  for (const auto* steps : {&plan.steps, &plan.undo})
    for (const Step& step : *steps)
      if (!std::binary_search(variants.begin(), variants.end(), variant_of(step)))
        unknown += "\n  " + step.what + " [" + step.options + "]";
  return unknown;
}

std::string call_text(const CallShape& call) {
  return std::to_string(call.batch) + " x " + std::to_string(call.rows) + " x " +
         std::to_string(call.cols) + " elem " + std::to_string(call.elem_size) + " offset " +
         std::to_string(call.offset) + " capacity " + std::to_string(call.capacity);
}

// What the calls of `elem_size` below launch that is not among the variants, for each
// profile; empty when every step is one of them.
class Coverage {
 public:
  void check(const char* profile, const DeviceProfile& device, const CallShape& call) {
    const LaunchPlan plan = plan_call(device, call);
    const std::string unknown = unknown_steps(plan, variants(device, call.elem_size));
    if (!unknown.empty())
      problems_ += std::string(profile) + ": " + call_text(call) + unknown + "\n";
  }
  void check(const char* profile, const DeviceProfile& device, const ImatcopyShape& shape) {
    const LaunchPlan plan = plan_imatcopy(device, shape);
    const std::string unknown = unknown_steps(plan, variants(device, shape.elem_size));
    if (!unknown.empty())
      problems_ += std::string(profile) + ": imatcopy " + std::to_string(shape.rows) + " x " +
                   std::to_string(shape.cols) + unknown + "\n";
  }
  const std::string& problems() const { return problems_; }

 private:
  const std::vector<KernelVariant>& variants(const DeviceProfile& device, std::size_t elem_size) {
    const auto key = std::make_pair(device.compute_units * 1000 + device.simd_width, elem_size);
    auto found = cache_.find(key);
    if (found == cache_.end())
      found = cache_.emplace(key, kernel_variants(device, elem_size)).first;
    return found->second;
  }
  std::map<std::pair<std::size_t, std::size_t>, std::vector<KernelVariant>> cache_;
  std::string problems_;
};

}  // namespace

TEST_CASE("an element size has a few dozen kernel programs", "[planner][variants]") {
  for (const auto& [name, device] : profiles())
    for (std::size_t elem_size : {1, 2, 4, 8, 16}) {
      const auto narrow = kernel_variants(device, elem_size, false);
      const auto all = kernel_variants(device, elem_size);
      INFO(name << ", " << elem_size << "-byte elements: " << narrow.size() << " programs with "
                << "32-bit indices, " << all.size() << " in all");
      CHECK(narrow.size() >= 8);
      // 1-byte elements carry the most: their SoA and restride kernels also move 2- and
      // 4-byte words, their square, BS and on-chip kernels have word tiles, their on-chip
      // blocks come split too, and their unpads in wide words come with 0, 1 or 2
      // rare-unit items.
      CHECK(narrow.size() <= 125);
      // With 64-bit indices each program again, and the restrides' larger chunks of
      // matrices past 2^31 elements (families/restride.cpp), in elements and in words, and
      // their builds for strides whose offsets within a chunk take 64 bits (narrow
      // elements' unpads in wide words with each rare-unit count, 16 more for 2-byte ones),
      // and the 100! programs a third time, with 64-bit items, for super-elements small
      // enough that 2^32 of them fit the device (all of them here: the profiles give no
      // memory size).
      const auto soa = std::count_if(narrow.begin(), narrow.end(), [](const KernelVariant& v) {
        return v.family == Family::kSoa;
      });
      CHECK(all.size() <= 2 * narrow.size() + 40 + static_cast<std::size_t>(soa));
      // Sorted, no repeats, and each family's options name the element size.
      CHECK(std::is_sorted(all.begin(), all.end()));
      CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
      std::set<Family> families;
      for (const KernelVariant& v : all) families.insert(v.family);
      for (Family f :
           {Family::kSquare, Family::kBs, Family::kSoa, Family::kRestride, Family::kCopy})
        CHECK(families.count(f) == 1);
      if (device.resident_groups) CHECK(families.count(Family::kOnChip) == 1);
    }
}

TEST_CASE("every step of a default plan is one of its element size's programs",
          "[planner][variants][large]") {
  std::mt19937_64 random(ipt::test::seed(2711));
  Coverage coverage;
  for (const auto& [name, device] : profiles())
    for (std::size_t elem_size : {1, 2, 4, 8, 16}) {
      for (int k = 0; k < 400; ++k) {
        CallShape call = k % 2 == 0 ? ipt::test::random_call(random, elem_size)
                                    : ipt::test::protocol_call(random, elem_size);
        if (k % 5 == 0) call.capacity = call.rows * call.cols + random() % 100000;  // room
        coverage.check(name, device, call);
      }
      // Skinny, prime and on-chip shapes, batches, and indices past 32 bits.
      for (const auto& [rows, cols] : std::vector<std::pair<u64, u64>>{{2785958, 3},
                                                                       {3, 2785958},
                                                                       {12021, 3},
                                                                       {463844, 6},
                                                                       {65537, 65539},
                                                                       {100003, 43003},
                                                                       {7, 13},
                                                                       {1009, 997},
                                                                       {640, 480},
                                                                       {4096, 4096},
                                                                       {1, 1000}}) {
        for (u64 batch : {1, 3}) {
          CallShape call{rows, cols, elem_size, 0, 0, batch};
          if (rows * cols * batch * elem_size > (u64{40} << 30)) continue;
          coverage.check(name, device, call);
        }
      }
      for (u64 batch : {1000, 10000})
        coverage.check(name, device, {64, 100, elem_size, 0, 0, batch});
      // imatcopy without a transform: its restrides and its transposition; strides so long
      // that the restrides' offsets within a chunk take 64 bits.
      for (const auto& [rows, cols, extra] : std::vector<std::tuple<u64, u64, u64>>{
               {1009, 997, 0}, {1009, 997, 13}, {3, 20011, 5}, {3, 20011, u64{1} << 32}}) {
        ImatcopyShape shape;
        shape.rows = rows;
        shape.cols = cols;
        shape.lda = cols + extra;
        shape.ldb = rows + extra;
        shape.transpose = true;
        shape.elem_size = elem_size;
        coverage.check(name, device, shape);
      }
    }
  CHECK(coverage.problems() == "");
}

TEST_CASE("restrides of narrow rows in words are in the set at every matrix size",
          "[planner][variants]") {
  // A padded plan's pad or unpad of 1- and 2-byte rows that fill words runs the restride
  // of those words (families/restride.cpp), whose build depends on the matrix's size: past 2^31
  // elements in 64-bit indices, each work-item of a pad holding twice the words. Whole or
  // split (an exact buffer's padding room in scratch); unpads closed up into a compact
  // matrix, in wide words.
  for (const auto& [name, device] : profiles())
    for (std::size_t elem_size : {1, 2}) {
      const auto variants = kernel_variants(device, elem_size);
      for (const u64 elements : {u64{1} << 24, (u64{1} << 31) + 4, u64{3} << 30})
        for (const u64 len : {4000, 4002, 4001})
          for (const bool split : {false, true})
            for (const bool spread : {true, false}) {
              ipt::planner::StepSite site{elem_size, 0, device.local_mem_bytes, false};
              if (split) {
                site.split = elements / 2 / 64 * 64;
                site.tail = {ipt::planner::Buffer::kScratch, 256, elements};
              }
              // As a padded plan makes it: the config of the padded matrix's elements.
              const u64 rows = elements / len + 1;
              const auto config =
                  ipt::planner::choose_restride(device, elem_size, rows * (len + 8));
              const auto step =
                  spread ? ipt::planner::restride_step(site, rows, len, len, len + 8, config)
                         : ipt::planner::restride_step(site, rows, len, len + 8, len, config);
              INFO(name << ", " << elem_size << "-byte elements, " << elements
                        << " elements, rows of " << len << (split ? ", split: " : ": ") << step.what
                        << " [" << step.options << "]");
              CHECK(std::binary_search(variants.begin(), variants.end(), variant_of(step)));
            }
    }
}

TEST_CASE("narrow and short on-chip tiles share one program", "[planner][variants][onchip]") {
  // Each program costs a GPU driver about half a second to translate on a cold start: the
  // tile shapes of skinny matrices are a kernel argument, not eight builds.
  for (const auto& [name, device] : ipt::test::gpu_and_cpu_profiles()) {
    if (!device.resident_groups) continue;
    for (std::size_t elem_size : {1, 2, 4, 8, 16}) {
      std::set<std::string> whole;  // the variants at a whole site, 32-bit indices
      for (const KernelVariant& v : kernel_variants(device, elem_size, false))
        if (v.family == Family::kOnChip && v.options.find("IPT_SPLIT") == std::string::npos)
          whole.insert(v.options);
      INFO(name << ", " << elem_size << "-byte elements");
      const auto runtime_shaped = std::count_if(whole.begin(), whole.end(), [](const auto& o) {
        return o.find("-DIPT_RUNTIME_TILE=1") != std::string::npos &&
               o.find("-DHELD=") == std::string::npos;
      });
      CHECK(runtime_shaped == 1);
      // 32 x 32 tiles, the runtime-shaped build and the cycle following alone (undo steps);
      // 1- and 2-byte elements also tiles of blocks (1-byte ones: one build for each length
      // of the rows mod the block, and one of 2 x 2 blocks) and 1-byte ones word tiles. Each
      // build of 32 x 32 tiles, narrow and short tiles or blocks has a twin that also holds
      // tiles in local memory where the device's local memory leaves room for them.
      const auto held = std::count_if(whole.begin(), whole.end(), [](const auto& o) {
        return o.find("-DHELD=") != std::string::npos;
      });
      const auto blocks = std::count_if(whole.begin(), whole.end(), [](const auto& o) {
        return o.find("-DIPT_BLOCK=") != std::string::npos &&
               o.find("-DHELD=") == std::string::npos;
      });
      CHECK(blocks == (elem_size == 1 ? 5 : elem_size == 2 ? 1 : 0));
      const auto cycles = std::count_if(whole.begin(), whole.end(), [](const auto& o) {
        return o.find("-DIPT_CYCLES_ONLY=1") != std::string::npos;
      });
      CHECK(cycles == 1);
      CHECK(whole.size() - held == (elem_size == 1 ? 9u : elem_size == 2 ? 4u : 3u));
      if (name == std::string("NVIDIA-like"))  // 228 KiB a multiprocessor: room everywhere
        CHECK(held == (elem_size == 1 ? 7 : elem_size == 2 ? 3 : 2));
      else
        CHECK(held <= blocks + 2);
    }
  }
}

TEST_CASE("100! builds with 64-bit items are in the set where the device holds them",
          "[planner][variants]") {
  // A 100! of more than 2^32 - 32 items counts them in 64 bits (families/soa.cpp): a build
  // of its own, in the set for the super-elements of which that many fit the device's
  // memory.
  for (const u64 memory : {u64{0}, u64{48} << 30})  // 0: unknown
    for (const std::size_t elem_size : {1, 4, 8}) {
      DeviceProfile device = ipt::test::nvidia_like();
      device.global_mem_bytes = memory;
      const auto variants = kernel_variants(device, elem_size);
      for (const u64 C : {1, 2, 3, 8, 33, 100}) {
        ipt::planner::StepSite wide{elem_size, 0, device.local_mem_bytes, true};
        const auto config = ipt::planner::choose_soa(device, C, elem_size, wide);
        const u64 A = (u64{1} << 31) - 15;  // A * 2 = 2^32 - 30 super-elements
        const auto step = ipt::planner::soa_step(wide, 1, A, 2, C, config);
        INFO(elem_size << "-byte elements, C " << C << ", memory " << memory << ": " << step.what
                       << " [" << step.options << "]");
        REQUIRE(step.options.find("-DIPT_ITEMS32") == std::string::npos);
        // (Where the device holds no such 100!, its build may still be in the set: the
        // build of a smaller super-element's config, the same program.)
        if (memory == 0 || 2 * A * C * elem_size <= memory)
          CHECK(std::binary_search(variants.begin(), variants.end(), variant_of(step)));
      }
      // Where the device's memory is known, not every 100! program comes a third time.
      std::size_t items32 = 0, items64 = 0;
      for (const KernelVariant& v : variants)
        if (v.family == Family::kSoa && v.options.find("-DIPT_INDEX_64=1") != std::string::npos)
          ++(v.options.find("-DIPT_ITEMS32=1") != std::string::npos ? items32 : items64);
      if (memory == 0)
        CHECK(items64 == items32);
      else
        CHECK(items64 < items32);
    }
}
