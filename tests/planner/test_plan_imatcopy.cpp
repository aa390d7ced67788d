// SPDX-License-Identifier: Apache-2.0
// imatcopy plans (planner/imatcopy_plan.hpp) on the host model (plan_model.hpp):
// every element of A ends at its place in B, whatever the strides, on the GPU profiles and
// a CPU-like one; every prefix rolls back; the transform is applied once, by the last step.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "helpers/plan_model.hpp"
#include "helpers/test_profiles.hpp"
#include "helpers/test_seed.hpp"
#include "planner/imatcopy_plan.hpp"

using namespace ipt::planner;

namespace {

using u64 = std::uint64_t;

std::string shape_text(const char* profile, const ImatcopyShape& s) {
  return std::string(profile) + ": " + std::to_string(s.rows) + " x " + std::to_string(s.cols) +
         " lda " + std::to_string(s.lda) + " ldb " + std::to_string(s.ldb) +
         (s.transpose ? " T" : " N") + " elem " + std::to_string(s.elem_size) +
         s.transform.options();
}

ImatcopyShape shape_of(u64 rows, u64 cols, u64 extra_a, u64 extra_b, bool transpose,
                       std::size_t elem_size, const ElementTransform& transform) {
  ImatcopyShape s;
  s.rows = rows;
  s.cols = cols;
  s.lda = cols + extra_a;
  s.ldb = (transpose ? rows : cols) + extra_b;
  s.transpose = transpose;
  s.elem_size = elem_size;
  s.transform = transform;
  s.offset = 3;
  return s;
}

// Empty when the plan is right and rolls back from every step, with the transform only in
// its last step; else the problem.
std::string problem(const char* profile, const DeviceProfile& device, const ImatcopyShape& s) {
  const std::string where = "\n  in " + shape_text(profile, s);
  LaunchPlan plan;
  try {
    plan = plan_imatcopy(device, s);
  } catch (const std::exception& e) {
    return std::string("refused: ") + e.what() + where;
  }
  if (std::string bad = check_imatcopy_plan(plan, s); !bad.empty()) return bad + where;
  if (!plan.steps.empty() && plan.undo.size() + 1 != plan.steps.size())
    return std::to_string(plan.undo.size()) + " undo steps for " +
           std::to_string(plan.steps.size()) + " steps" + where;
  for (std::size_t done = 1; done < plan.steps.size(); ++done)
    if (std::string bad = check_imatcopy_rollback(plan, done, s); !bad.empty()) return bad + where;
  const std::string options = s.transform.options();
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const bool last = i + 1 == plan.steps.size();
    const bool has = !options.empty() && plan.steps[i].options.find(options) != std::string::npos;
    if (has != (last && !options.empty()))
      return "step " + std::to_string(i) + " (" + plan.steps[i].what + ") " +
             (has ? "transforms but is not last" : "is last but does not transform") + where;
  }
  if (s.transform.identity() && !s.transpose && s.lda == s.ldb && !plan.steps.empty())
    return "a call that changes nothing launches kernels" + where;
  return "";
}

std::vector<ipt::test::NamedProfile> profiles() { return ipt::test::gpu_and_cpu_profiles(); }

ElementTransform transform_for(std::size_t elem_size, int kind) {
  ElementTransform t;
  if (kind == 0 || elem_size == 1 || elem_size == 2) return t;
  t.scalar = elem_size == 4 ? Scalar::kF32 : elem_size == 8 ? Scalar::kC32 : Scalar::kC64;
  t.multiply = kind != 2;
  t.conjugate = kind >= 2 && is_complex(t.scalar);
  t.alpha[0] = 0x3f400000;
  return t;
}

}  // namespace

TEST_CASE("imatcopy plans put every element in place and roll back", "[planner][imatcopy]") {
  std::mt19937_64 random(ipt::test::seed(5150));
  for (const auto& [name, device] : profiles())
    for (int k = 0; k < 120; ++k) {
      const std::size_t elem_size = std::size_t{1} << (random() % 5);
      // Mostly small sides (every plan class by its factors), some wider.
      const u64 rows = 1 + random() % (k % 4 == 0 ? 700 : 90);
      const u64 cols = 1 + random() % (k % 4 == 1 ? 700 : 90);
      const u64 extra_a = random() % 3 == 0 ? 0 : random() % 40;
      const u64 extra_b = random() % 3 == 0 ? 0 : random() % 40;
      const ImatcopyShape s = shape_of(rows, cols, extra_a, extra_b, random() % 4 != 0, elem_size,
                                       transform_for(elem_size, static_cast<int>(random() % 4)));
      INFO(shape_text(name, s));
      CHECK(problem(name, device, s) == "");
    }
}

TEST_CASE("imatcopy plans of matrices with padded and staged transpositions",
          "[planner][imatcopy]") {
  // Prime sides (padded plans: split when the strides leave no room, borrowed when they
  // do), squares, skinny matrices, and one that fits on chip.
  struct Case {
    u64 rows, cols, extra_a, extra_b;
  };
  for (const auto& [name, device] : profiles())
    for (const Case& c : std::vector<Case>{{1009, 997, 0, 0},
                                           {1009, 997, 13, 0},
                                           {1009, 997, 0, 40},
                                           {512, 512, 0, 0},
                                           {512, 512, 3, 3},
                                           {3, 20011, 0, 0},
                                           {20011, 3, 5, 0},
                                           {640, 480, 0, 0}})
      for (std::size_t elem_size : {4, 8}) {
        const ImatcopyShape s = shape_of(c.rows, c.cols, c.extra_a, c.extra_b, true, elem_size,
                                         transform_for(elem_size, 3));
        INFO(shape_text(name, s));
        CHECK(problem(name, device, s) == "");
      }
}

TEST_CASE("imatcopy plans refuse strides shorter than rows", "[planner][imatcopy]") {
  const DeviceProfile device = ipt::test::nvidia_like();
  ImatcopyShape s = shape_of(10, 20, 0, 0, true, 4, {});
  s.lda = 19;
  CHECK_THROWS_AS(plan_imatcopy(device, s), std::invalid_argument);
  s = shape_of(10, 20, 0, 0, true, 4, {});
  s.ldb = 9;
  CHECK_THROWS_AS(plan_imatcopy(device, s), std::invalid_argument);
  s = shape_of(10, 20, 0, 0, false, 4, {});
  s.ldb = 19;
  CHECK_THROWS_AS(plan_imatcopy(device, s), std::invalid_argument);
  ElementTransform wrong;
  wrong.scalar = Scalar::kF64;
  wrong.multiply = true;
  CHECK_THROWS_AS(plan_imatcopy(device, shape_of(10, 20, 1, 1, true, 4, wrong)),
                  std::invalid_argument);
}
