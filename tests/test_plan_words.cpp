// Narrow elements in wider words (planner/elementary_configs.hpp, word_factor): the SoA
// steps of 1- and 2-byte elements move whole 2- or 4-byte words where the super-elements,
// the matrix's offset and a split allow, and single elements otherwise; the plan model
// and the extents still count elements.
#include <catch2/catch.hpp>
#include <string>

#include "planner/elementary_configs.hpp"
#include "planner/launch_plan.hpp"
#include "planner/plan_model.hpp"
#include "test_profiles.hpp"

using namespace ipt::planner;

namespace {

// The element size the plan's SoA steps are built for (0: no SoA step).
std::size_t soa_word_bytes(const LaunchPlan& plan) {
  for (const Step& step : plan.steps)
    if (step.family == Family::kSoa) {
      const std::string key = "-DIPT_ELEM_BYTES=";
      return std::stoul(step.options.substr(step.options.find(key) + key.size()));
    }
  return 0;
}

}  // namespace

TEST_CASE("word_factor: the widest word the run, offset and split fill", "[planner][words]") {
  const DeviceProfile device = ipt::test::h200_like();
  CHECK(word_factor(device, 2, 710) == 2);
  CHECK(word_factor(device, 1, 710) == 2);
  CHECK(word_factor(device, 1, 708) == 4);
  CHECK(word_factor(device, 1, 709) == 1);
  CHECK(word_factor(device, 1, 708, 2) == 2);     // offset on a 2-byte word only
  CHECK(word_factor(device, 2, 708, 0, 3) == 1);  // a split inside a word
  CHECK(word_factor(device, 4, 708) == 1);        // 4-byte elements already are words
  CHECK(word_factor(device, 16, 708) == 1);
  DeviceProfile off = device;
  off.word_bytes = 1;
  CHECK(word_factor(off, 1, 708) == 1);
  off.word_bytes = 2;
  CHECK(word_factor(off, 1, 708) == 2);
}

TEST_CASE("narrow SoA steps move words, and plans stay exact", "[planner][words]") {
  const DeviceProfile device = ipt::test::h200_like();
  // 7810 x 7167 takes 2.1 on the H200 profile: super-elements of m = 710 (2-byte
  // elements), 1562 (1-byte ones, whose on-chip word tiles hold longer instances).
  for (std::size_t elem_size : {1, 2}) {
    const std::uint64_t m = elem_size == 1 ? 1562 : 710;
    for (std::uint64_t offset : {0, 1, 2}) {
      const CallShape call{7810, 7167, elem_size, offset, 0, 1};
      const LaunchPlan plan = plan_call(device, call);
      INFO(describe(plan) << "\noffset " << offset);
      const std::uint64_t word = word_factor(device, elem_size, m, offset);
      CHECK(soa_word_bytes(plan) == elem_size * word);
      CHECK(check_plan(plan, call.rows, call.cols, 0) == "");
      for (const Step& step : plan.steps)
        if (step.family == Family::kSoa) {
          CHECK(step.move.C == m);  // still elements
          CHECK(step.touches == call.rows * call.cols);
        }
    }
  }
  DeviceProfile off = device;
  off.word_bytes = 1;
  CHECK(soa_word_bytes(plan_call(off, {7810, 7167, 2, 0, 0, 1})) == 2);
}
