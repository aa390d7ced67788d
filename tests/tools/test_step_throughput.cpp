// SPDX-License-Identifier: Apache-2.0
// What ipt-kernel-bench stages counts as a step's bytes (tools/support/step_run.hpp): a
// throughput over the whole matrix for a kernel that moves a part of it would overstate
// that kernel's speed.
#include <catch2/catch.hpp>
#include <vector>

#include "helpers/test_profiles.hpp"
#include "planner/launch_plan.hpp"
#include "support/step_run.hpp"

TEST_CASE("a step's throughput counts the elements it moves", "[support]") {
  // ipt-kernel-bench stages divides 2 * moved_elements * elem_size by each kernel's time:
  // the two kernels of a stage in two each move their own instances, a copy only the
  // elements a padded plan keeps in scratch, a restride its rows.
  using ipt::planner::Move;
  using ipt::support::moved_elements;
  const auto device = ipt::test::nvidia_like();
  // Exactly the matrix: padded, split, its 010! stage in two kernels.
  const ipt::planner::CallShape split{19101, 15761, 1, 0, 0};
  const auto plan = ipt::planner::plan_call(device, split);
  INFO(ipt::planner::describe(plan));
  std::vector<const ipt::planner::Step*> parts;
  for (const auto& step : plan.steps)
    if (step.what.rfind("010!", 0) == 0) parts.push_back(&step);
  REQUIRE(parts.size() == 2);
  const Move& head = parts[0]->move;
  const Move& rest = parts[1]->move;
  CHECK(moved_elements(head) == head.I * head.A * head.B * head.C);
  CHECK(moved_elements(head) == rest.base);  // the second starts where the first ends
  CHECK(moved_elements(head) + moved_elements(rest) == plan.transpose.padded_elements());
  CHECK(moved_elements(rest) < moved_elements(head) / 10);
  // With room: the elements past the matrix kept in scratch, and the unpad's rows.
  const ipt::planner::CallShape room{19101, 15761, 1, 0, ipt::planner::kNoBuffer};
  const auto padded = ipt::planner::plan_call(device, room);
  INFO(ipt::planner::describe(padded));
  REQUIRE(padded.borrowed_bytes > 0);
  bool copies = false, restrides = false;
  for (const auto& step : padded.steps) {
    if (step.move.kind == Move::Kind::kCopy) {
      copies = true;
      CHECK(moved_elements(step.move) == padded.borrowed_bytes);  // 1-byte elements
    }
    if (step.move.kind == Move::Kind::kRestride) {
      restrides = true;
      CHECK(moved_elements(step.move) == step.move.rows * step.move.len);
      CHECK(moved_elements(step.move) <= room.rows * room.cols);
    }
  }
  CHECK(copies);
  CHECK(restrides);
}
