// SPDX-License-Identifier: Apache-2.0
// The steps each rank of ipt_mpi_transpose runs on its own block (mpi/local_steps.hpp),
// without MPI: what they leave in the block, on in-order and out-of-order queues, and
// that a failure at any command, allocation or other OpenCL call of any of their library
// calls is reported and, before the exchange, undone (fault_injection.hpp injects them).
// The distributed call relies on both: a failure before the exchange is undone on every
// rank, one after it makes every rank return IPT_BUFFER_UNDEFINED.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distribution.hpp"
#include "helpers/fault_injection.hpp"
#include "helpers/test_skip.hpp"
#include "helpers/test_support.hpp"
#include "ipt/ipt.h"
#include "local_steps.hpp"
#include "runtime/scratch_cache.hpp"
#include "support/host_reference.hpp"

namespace faults = ipt::runtime::faults;
using ipt::mpi::LocalBlock;
using ipt::test::GuardedMatrix;
using ipt::test::session;
using Bytes = std::vector<unsigned char>;

namespace {

constexpr unsigned kTransposedIn = 1u, kTransposedOut = 2u;  // IPT_MPI_TRANSPOSED_IN/OUT

struct Config {
  const char* name;
  std::size_t ranks, rows, cols, elem_size, rank;
  unsigned flags;
};

// A rank with a full block, the last rank with fewer rows than a block (padding rows),
// the stored transpose on the way in and out, and a rank that holds everything.
const Config kConfigs[] = {
    {"row-major, a full block", 3, 290, 211, 4, 1, 0},
    {"row-major, the last block short", 3, 290, 211, 8, 2, 0},
    {"transposed in, the last block short", 3, 290, 211, 4, 2, kTransposedIn},
    {"transposed out", 3, 211, 290, 2, 0, kTransposedOut},
    {"one rank", 1, 290, 211, 4, 0, 0},
};

// The rank's padded block, random, with guard bytes on both sides.
class Block {
 public:
  Block(const Config& c, cl_command_queue queue, std::uint64_t seed) : c_(c) {
    REQUIRE(ipt::mpi::distribute(c.ranks, c.rows, c.cols, 0, 0, &d_).empty());
    share_ = ipt::mpi::share_of(d_, c.rank);
    REQUIRE(share_.active);
    matrix_ = std::make_unique<GuardedMatrix>(1, d_.alloc, c.elem_size, 3, 21, seed);
    block_ = {queue, matrix().buffer(), matrix().offset(), c.elem_size, d_, share_, c.flags};
  }

  const LocalBlock& local() const { return block_; }
  const GuardedMatrix& matrix() const { return *matrix_; }
  const ipt::mpi::Distribution& d() const { return d_; }
  const ipt::mpi::Share& share() const { return share_; }

  // Back to the bytes it was made with; the scratch kept by earlier calls dropped, unless
  // the next calls are to reuse it.
  void restore(bool fresh_scratch = true) const {
    const Bytes& bytes = matrix().initial();
    REQUIRE(clEnqueueWriteBuffer(session().queue(), matrix().buffer(), CL_TRUE, 0, bytes.size(),
                                 bytes.data(), 0, nullptr, nullptr) == CL_SUCCESS);
    if (fresh_scratch) ipt::runtime::clear_scratch_cache();
  }

  // The block's elements now, and as made.
  Bytes now() const { return without_guards(matrix().read_all()); }
  Bytes before() const { return without_guards(matrix().initial()); }

  // "" when the rank's rows (the first local_rows x N elements, or N x local_rows
  // transposed in) are as they were made and the guards unchanged.
  std::string check_restored() const {
    const std::size_t bytes = share_.rows * d_.cols * c_.elem_size;
    const Bytes was = before(), is = now();
    if (!std::equal(was.begin(), was.begin() + bytes, is.begin())) return "the rows differ";
    return matrix().check_guards();
  }

 private:
  Bytes without_guards(const Bytes& all) const {
    const auto begin = all.begin() + static_cast<std::ptrdiff_t>(matrix().offset() * c_.elem_size);
    return {begin, begin + static_cast<std::ptrdiff_t>(d_.alloc * c_.elem_size)};
  }

  const Config& c_;
  ipt::mpi::Distribution d_;
  ipt::mpi::Share share_;
  std::unique_ptr<GuardedMatrix> matrix_;
  LocalBlock block_{};
};

// Element e of a block of `elem_size`-byte elements.
const unsigned char* at(const Bytes& bytes, std::size_t e, std::size_t elem_size) {
  return bytes.data() + e * elem_size;
}

// "" when `is` holds, at every defined place, what before_exchange makes of `was`: row i,
// column j of the rank's rows at (j, i) of the b x S c block transposed (row-major), or,
// transposed in, its N x local_rows block spread to pitch b.
std::string check_before(const Config& c, const Block& k, const Bytes& was, const Bytes& is) {
  const std::size_t N = k.d().cols, b = k.d().block_rows, lr = k.share().rows;
  for (std::size_t i = 0; i < lr; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const std::size_t from = (c.flags & kTransposedIn) != 0 ? j * lr + i : i * N + j;
      const std::size_t to = j * b + i;
      if (!std::equal(at(was, from, c.elem_size), at(was, from, c.elem_size) + c.elem_size,
                      at(is, to, c.elem_size)))
        return "element (" + std::to_string(i) + ", " + std::to_string(j) + ") misplaced";
    }
  return "";
}

// "" when `is` holds what after_exchange makes of `was`: the S c x b chunks transposed,
// then the rank's local_cols rows of the transpose at pitch M (transposed out: its M x
// local_cols block at pitch local_cols).
std::string check_after(const Config& c, const Block& k, const Bytes& was, const Bytes& is) {
  const std::size_t M = k.d().rows, S = k.d().active, b = k.d().block_rows;
  const std::size_t cb = k.d().block_cols, lc = k.share().cols, e = c.elem_size;
  const Bytes chunks = ipt::support::permute_010(was, S, cb, b, e);  // S b x c: rows of M
  const bool out = (c.flags & kTransposedOut) != 0;
  const Bytes rows = out ? chunks : ipt::support::transpose_reference(chunks, S * b, cb, e);
  for (std::size_t i = 0; i < (out ? M : lc); ++i)
    for (std::size_t j = 0; j < (out ? lc : M); ++j) {
      const std::size_t from = i * (out ? cb : S * b) + j, to = i * (out ? lc : M) + j;
      if (!std::equal(at(rows, from, e), at(rows, from, e) + e, at(is, to, e)))
        return "element (" + std::to_string(i) + ", " + std::to_string(j) + ") wrong";
    }
  return k.matrix().check_guards();
}

enum class Steps { kBefore, kUndo, kAfter, kOnlyRank };

// The points of each site that one run of `steps` passes, counted with fresh scratch.
struct Points {
  std::uint64_t enqueues = 0, allocations = 0, calls = 0;
};

// Runs `steps` on the block with the failures armed (the undo after a before_exchange
// that ran clean, for kUndo), from the block's bytes; returns the status.
ipt_status run(Steps steps, const Block& k, std::vector<std::uint64_t> enqueues = {},
               std::vector<std::uint64_t> allocations = {}, std::vector<std::uint64_t> calls = {},
               Points* counted = nullptr, bool fresh_scratch = true) {
  k.restore(fresh_scratch);
  ipt::mpi::BeforeDone done;
  if (steps == Steps::kUndo) {
    REQUIRE(ipt::mpi::before_exchange(k.local(), &done) == IPT_SUCCESS);
    REQUIRE((done.spread || k.share().rows == 0));
  }
  faults::arm(std::move(enqueues), std::move(allocations), std::move(calls));
  ipt_status status = IPT_SUCCESS;
  switch (steps) {
    case Steps::kBefore:
      status = ipt::mpi::before_exchange(k.local(), &done);
      break;
    case Steps::kUndo:
      status = ipt::mpi::undo_before(k.local(), done);
      break;
    case Steps::kAfter:
      status = ipt::mpi::after_exchange(k.local());
      break;
    case Steps::kOnlyRank:
      status = ipt::mpi::only_rank(k.local());
      break;
  }
  if (counted != nullptr)
    *counted = {faults::count(faults::Site::kEnqueue), faults::count(faults::Site::kAllocation),
                faults::count(faults::Site::kCall)};
  faults::disarm();
  if (steps == Steps::kBefore && status != IPT_SUCCESS) {
    // What the distributed call does on every rank when one fails before the exchange.
    INFO(ipt_last_error_message());
    CHECK(status != IPT_BUFFER_UNDEFINED);  // each library call undid itself
    CHECK(ipt::mpi::undo_before(k.local(), done) == IPT_SUCCESS);
    CHECK(k.check_restored() == "");
  }
  return status;
}

bool in_order(cl_command_queue queue) {
  cl_command_queue_properties properties = 0;
  REQUIRE(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof properties, &properties,
                                nullptr) == CL_SUCCESS);
  return (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0;
}

// Fails each point of each site of `steps` in turn; `check` judges each failed run.
template <class Check>
void fail_every_point(Steps steps, const Block& k, const Check& check) {
  // Counted after a clean run of the same steps, as every run below finds the kernels: a
  // kernel object sets only the scalar arguments that differ from those it holds.
  Points points;
  REQUIRE(run(steps, k) == IPT_SUCCESS);
  REQUIRE(run(steps, k, {}, {}, {}, &points) == IPT_SUCCESS);
  CHECK(points.enqueues >= 1);
  CHECK(points.calls >= 1);
  for (const auto& [site, count] : {std::pair{faults::Site::kEnqueue, points.enqueues},
                                    std::pair{faults::Site::kAllocation, points.allocations},
                                    std::pair{faults::Site::kCall, points.calls}})
    for (std::uint64_t p = 1; p <= count; ++p) {
      const std::vector<std::uint64_t> fail{p};
      INFO((site == faults::Site::kEnqueue      ? "command "
            : site == faults::Site::kAllocation ? "allocation "
                                                : "call ")
           << p << " of " << count << " fails");
      Points seen;
      const ipt_status status =
          run(steps, k, site == faults::Site::kEnqueue ? fail : std::vector<std::uint64_t>{},
              site == faults::Site::kAllocation ? fail : std::vector<std::uint64_t>{},
              site == faults::Site::kCall ? fail : std::vector<std::uint64_t>{}, &seen);
      INFO(ipt_last_error_message());
      const std::uint64_t reached = site == faults::Site::kEnqueue      ? seen.enqueues
                                    : site == faults::Site::kAllocation ? seen.allocations
                                                                        : seen.calls;
      if (reached < p) {
        // On an out-of-order queue a call takes a kept scratch buffer only once the
        // commands of its last use have completed (runtime/scratch_cache.hpp), so how many
        // buffers a run creates, and how many events it asks about, depends on the GPU's
        // pace: this run never came to the point, and must have run clean. Every run comes
        // to the first point of each site: it starts with no kept scratch.
        CHECK_FALSE(in_order(k.local().queue));
        CHECK(p > 1);
        CHECK(status == IPT_SUCCESS);
        CHECK(k.matrix().check_guards() == "");
      } else {
        CHECK(status != IPT_SUCCESS);
        check(status);
      }
      // The next run reuses what the failed one kept, and succeeds.
      CHECK(run(steps, k, {}, {}, {}, nullptr, false) == IPT_SUCCESS);
    }
}

void check_config(const Config& c, cl_command_queue queue, std::uint64_t seed) {
  INFO(c.name << ": " << c.ranks << " ranks, " << c.rows << " x " << c.cols << ", elem_size "
              << c.elem_size << ", rank " << c.rank);
  const Block k(c, queue, seed);
  if (c.ranks == 1) {
    // The whole matrix on one rank: transposed once, or a failure that leaves it.
    REQUIRE(run(Steps::kOnlyRank, k) == IPT_SUCCESS);
    CHECK(k.now() == ipt::support::transpose_reference(k.before(), c.rows, c.cols, c.elem_size));
    CHECK(k.matrix().check_guards() == "");
    fail_every_point(Steps::kOnlyRank, k,
                     [&](ipt_status) { CHECK(k.matrix().check_unchanged() == ""); });
    return;
  }
  // Clean runs leave what the exchange and the caller expect.
  REQUIRE(run(Steps::kBefore, k) == IPT_SUCCESS);
  CHECK(check_before(c, k, k.before(), k.now()) == "");
  CHECK(k.matrix().check_guards() == "");
  REQUIRE(run(Steps::kUndo, k) == IPT_SUCCESS);
  CHECK(k.check_restored() == "");
  REQUIRE(run(Steps::kAfter, k) == IPT_SUCCESS);
  CHECK(check_after(c, k, k.before(), k.now()) == "");

  {
    INFO("a failure before the exchange is undone");
    // run() undoes each failed before_exchange and checks that the rows came back.
    fail_every_point(Steps::kBefore, k, [&](ipt_status) {});
  }
  {
    INFO("a failure of the undo says that the block is lost");
    fail_every_point(Steps::kUndo, k, [&](ipt_status status) {
      CHECK(status == IPT_BUFFER_UNDEFINED);
      CHECK(k.matrix().check_guards() == "");
    });
  }
  {
    INFO("a failure after the exchange is reported");
    fail_every_point(Steps::kAfter, k, [&](ipt_status) { CHECK(k.matrix().check_guards() == ""); });
  }
}

void check_all(cl_command_queue queue, std::uint64_t seed) {
  for (const Config& c : kConfigs) check_config(c, queue, ++seed);
}

}  // namespace

TEST_CASE("the MPI local steps fail safely at every point", "[faults][mpi]") {
  check_all(session().queue(), 4100);
}

TEST_CASE("the MPI local steps on an out-of-order queue", "[faults][mpi]") {
  const ipt::test::OutOfOrderQueue out_of_order;
  if (out_of_order.get() == nullptr) IPT_SKIP("the device has no out-of-order queues");
  cl_command_queue queue = out_of_order.get();
  check_all(queue, 4200);
}
