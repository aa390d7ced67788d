// SPDX-License-Identifier: Apache-2.0
// Padding through the public API: automatic plans on random shapes (many with a prime
// side) in buffers of exactly the matrix and of ipt_padded_size bytes, as a 48 KiB
// NVIDIA-like and a 32 KiB / 64-wide AMD-like device would plan them; forced padded
// shapes with every sequence; skinny shapes with a prime long side. Every result is
// checked in full against the host reference, with every byte around the matrix
// (including the bytes a padded plan borrows) checked unchanged.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "helpers/test_support.hpp"
#include "support/host_reference.hpp"

using ipt::test::GuardedMatrix;
using ipt::test::ScopedEnv;
using ipt::test::session;

namespace {

bool is_prime(std::size_t x) {
  if (x < 2) return false;
  for (std::size_t d = 2; d * d <= x; ++d)
    if (x % d == 0) return false;
  return true;
}

std::size_t next_prime(std::size_t x) {
  while (!is_prime(x)) ++x;
  return x;
}

std::size_t padded_bytes(std::size_t rows, std::size_t cols, std::size_t elem_size) {
  std::size_t bytes = 0;
  REQUIRE(ipt_padded_size(session().device(), rows, cols, elem_size, &bytes) == IPT_SUCCESS);
  return bytes;
}

bool plan_pads(std::size_t rows, std::size_t cols, std::size_t elem_size) {
  ipt_plan_info info;
  REQUIRE(ipt_plan(session().device(), rows, cols, elem_size, nullptr, &info) == IPT_SUCCESS);
  return info.padded_rows != rows || info.padded_cols != cols;
}

void run(const GuardedMatrix& m, std::size_t rows, std::size_t cols, std::size_t elem_size,
         const ipt_plan_options* options = nullptr) {
  cl_event done = nullptr;
  const ipt_status status = ipt_transpose_with_options(
      session().queue(), m.buffer(), m.offset(), rows, cols, elem_size, options, 0, nullptr, &done);
  INFO(ipt_last_error_message());
  REQUIRE(status == IPT_SUCCESS);
  REQUIRE(clWaitForEvents(1, &done) == CL_SUCCESS);
  clReleaseEvent(done);
}

// One shape in a buffer of exactly the matrix, then in one of ipt_padded_size bytes plus
// guard bytes (transposed twice when `twice`: the original must come back).
void check_shape(std::size_t rows, std::size_t cols, std::size_t elem_size, std::uint64_t seed,
                 bool twice) {
  INFO(rows << " x " << cols << ", elem_size " << elem_size);
  {
    GuardedMatrix exact(rows, cols, elem_size, 0, 0, seed);
    run(exact, rows, cols, elem_size);
    CHECK(exact.check_transposed() == "");
  }
  const std::size_t matrix = rows * cols * elem_size;
  const std::size_t room = padded_bytes(rows, cols, elem_size) - matrix;
  const std::size_t offset = seed % 5;
  GuardedMatrix roomy(rows, cols, elem_size, offset, room + 13, seed + 1);
  run(roomy, rows, cols, elem_size);
  CHECK(roomy.check_transposed() == "");
  if (twice) {
    run(roomy, cols, rows, elem_size);
    CHECK(roomy.check_unchanged() == "");
  }
}

void random_shapes(const char* profile, std::uint64_t fixed_seed, int count) {
  ScopedEnv env("IPT_OVERRIDES", profile);
  INFO(profile);
  IPT_TEST_SEED(seed, fixed_seed);  // the shapes and each one's data
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::size_t> side(1, 3000);
  int padded = 0;
  for (int i = 0; i < count; ++i) {
    std::size_t rows = side(random), cols = side(random);
    if (i % 3 == 0) rows = next_prime(rows);  // a third with a prime side, a ninth with two
    if (i % 9 == 0) cols = next_prime(cols);
    const std::size_t elem_size = std::size_t{1} << (i % 5);
    padded += plan_pads(rows, cols, elem_size);
    check_shape(rows, cols, elem_size, seed * 1000 + static_cast<std::uint64_t>(i), i % 4 == 0);
  }
  CHECK(padded >= count / 10);  // the padded path is exercised
}

}  // namespace

TEST_CASE("padding: random shapes, NVIDIA-like profile, part 1", "[padding][large]") {
  random_shapes("local_mem=49152,onchip=off", 1, 100);
}
TEST_CASE("padding: random shapes, NVIDIA-like profile, part 2", "[padding][large]") {
  random_shapes("local_mem=49152,onchip=off", 2, 100);
}
TEST_CASE("padding: random shapes, NVIDIA-like profile, part 3", "[padding][large]") {
  random_shapes("local_mem=49152,onchip=off", 3, 100);
}
TEST_CASE("padding: random shapes, NVIDIA-like profile, part 4", "[padding][large]") {
  random_shapes("local_mem=49152,onchip=off", 4, 100);
}
// Regular plans, as above: on a GPU more of these shapes fit the on-chip plan, which never
// pads (its plans in padded buffers: test_onchip_stage.cpp).
TEST_CASE("padding: random shapes, AMD-like profile, part 1", "[padding][large]") {
  random_shapes("local_mem=32768,max_wg=256,simd=64,onchip=off", 5, 100);
}
TEST_CASE("padding: random shapes, AMD-like profile, part 2", "[padding][large]") {
  random_shapes("local_mem=32768,max_wg=256,simd=64,onchip=off", 6, 100);
}

TEST_CASE("padding: forced padded shapes with every sequence", "[padding]") {
  ScopedEnv env("IPT_OVERRIDES", "local_mem=49152");
  struct Case {
    ipt_sequence sequence;
    std::size_t padded_rows, padded_cols, m, n;
  };
  // 59 x 83 (both prime) padded to factorable shapes; square padded to 83 x 83.
  const Case cases[] = {{IPT_SEQUENCE_AUTO, 60, 84, 0, 0},   {IPT_SEQUENCE_ONE_STAGE, 60, 0, 0, 0},
                        {IPT_SEQUENCE_2_1, 60, 84, 12, 0},   {IPT_SEQUENCE_2_2, 0, 84, 0, 12},
                        {IPT_SEQUENCE_3_1, 60, 84, 6, 12},   {IPT_SEQUENCE_3_2, 60, 84, 12, 6},
                        {IPT_SEQUENCE_4_1, 60, 84, 6, 7},    {IPT_SEQUENCE_4_2, 62, 84, 31, 4},
                        {IPT_SEQUENCE_SQUARE, 83, 83, 0, 0}, {IPT_SEQUENCE_AUTO, 0, 86, 0, 0}};
  std::uint64_t seed = 4000;
  for (const Case& c : cases)
    for (std::size_t elem_size : {1, 4, 16}) {
      ipt_plan_options options{};
      options.sequence = c.sequence;
      options.padded_rows = c.padded_rows;
      options.padded_cols = c.padded_cols;
      options.m = c.m;
      options.n = c.n;
      INFO("sequence " << c.sequence << " padded " << c.padded_rows << " x " << c.padded_cols
                       << " elem " << elem_size);
      const std::size_t rows = 59, cols = 83;
      const std::size_t pr = c.padded_rows ? c.padded_rows : rows;
      const std::size_t pc = c.padded_cols ? c.padded_cols : cols;
      GuardedMatrix m(rows, cols, elem_size, 3, (pr * pc - rows * cols) * elem_size + 7, ++seed);
      run(m, rows, cols, elem_size, &options);
      CHECK(m.check_transposed() == "");
    }
}

TEST_CASE("padding: skinny shapes with a prime long side", "[padding]") {
  // Regular plans: on a GPU these shapes fit the on-chip plan, which never pads
  // (test_onchip.cpp).
  ScopedEnv env("IPT_OVERRIDES", "local_mem=49152,onchip=off");
  std::uint64_t seed = 5000;
  for (std::size_t k : {2, 3, 7, 16, 31})
    for (std::size_t elem_size : {4, 8}) {
      for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{100003, k}, {k, 100003}}) {
        INFO(rows << " x " << cols);
        CHECK(plan_pads(rows, cols, elem_size));
        check_shape(rows, cols, elem_size, ++seed, k == 7);
      }
    }
}

namespace {

// Primes near 2^16 and single rows, as the NVIDIA-like and AMD-like GPUs would plan them
// (on-chip plans included), each in a buffer of exactly the matrix and of
// ipt_padded_size bytes; the element sizes shared between the two profiles (each one
// builds its own kernels on PoCL). One test case per profile and element size, so that
// ctest runs them side by side.
constexpr const char* kNvidiaLike = "resident_groups=1,local_mem=49152,compute_units=132";
constexpr const char* kAmdLike =
    "resident_groups=1,local_mem=32768,max_wg=256,simd=64,compute_units=64";

void check_primes_near_2_16(const char* profile, std::size_t elem_size) {
  ScopedEnv env("IPT_OVERRIDES", profile);
  INFO(profile);
  std::uint64_t seed = 6000 + 10 * elem_size;
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{65521, 3},
                            {5, 65537},
                            {65519, 1},
                            {1, 65521},
                            {257, 65521},
                            {65537, 61}})
    check_shape(rows, cols, elem_size, ++seed, elem_size == 4);
}

}  // namespace

TEST_CASE("padding: primes near 2^16 and single rows, 1-byte elements", "[padding]") {
  check_primes_near_2_16(kNvidiaLike, 1);
}
TEST_CASE("padding: primes near 2^16 and single rows, 2-byte elements", "[padding]") {
  check_primes_near_2_16(kAmdLike, 2);
}
TEST_CASE("padding: primes near 2^16 and single rows, 4-byte elements", "[padding]") {
  check_primes_near_2_16(kNvidiaLike, 4);
}
// The wide elements' matrices take 130 to 270 MB: [large], left to the plain build, which
// runs the same kernels (the sanitized builds run the narrow elements' host path).
TEST_CASE("padding: primes near 2^16 and single rows, 8-byte elements", "[padding][large]") {
  check_primes_near_2_16(kAmdLike, 8);
}
TEST_CASE("padding: primes near 2^16 and single rows, 16-byte elements", "[padding][large]") {
  check_primes_near_2_16(kNvidiaLike, 16);
}

TEST_CASE("padding off uses nothing beyond the matrix, and without room padding lives in scratch",
          "[padding]") {
  ScopedEnv env("IPT_OVERRIDES", "local_mem=49152");
  const std::size_t rows = 1009, cols = 1013;  // both prime
  REQUIRE(plan_pads(rows, cols, 4));
  ipt_plan_options off{};
  off.padding = IPT_PADDING_OFF;
  ipt_plan_info info;
  REQUIRE(ipt_plan(session().device(), rows, cols, 4, &off, &info) == IPT_SUCCESS);
  CHECK(info.padded_rows == rows);
  CHECK(info.padded_cols == cols);
  GuardedMatrix m(rows, cols, 4, 1, padded_bytes(rows, cols, 4), 6000);
  run(m, rows, cols, 4, &off);
  CHECK(m.check_transposed() == "");
  // max_bytes = the matrix: the same as a buffer without room. The plan still pads, its
  // extra elements in scratch: it borrows nothing, and the guard bytes stay untouched.
  ipt_plan_options tight{};
  tight.max_bytes = rows * cols * 4;
  REQUIRE(ipt_plan(session().device(), rows, cols, 4, &tight, &info) == IPT_SUCCESS);
  CHECK(info.padded_rows * info.padded_cols > rows * cols);
  CHECK(info.borrowed_bytes == 0);
  CHECK(info.scratch_bytes >= (info.padded_rows * info.padded_cols - rows * cols) * 4);
  GuardedMatrix t(rows, cols, 4, 0, padded_bytes(rows, cols, 4), 6001);
  run(t, rows, cols, 4, &tight);
  CHECK(t.check_transposed() == "");
}

TEST_CASE("a buffer of ipt_padded_size bytes costs at most 0.6% more memory with its scratch",
          "[padding]") {
  // The room the call borrows and the copy of it that the call keeps in scratch both
  // count: where the two would pass the bound, ipt_padded_size asks for no room.
  // 10319 x 11429 floats once took 0.98% on an H200 (0.47% of room, 0.51% of scratch).
  ScopedEnv env("IPT_OVERRIDES", "local_mem=49152");
  for (const auto& [rows, cols, elem_size] :
       std::vector<std::tuple<std::size_t, std::size_t, std::size_t>>{
           {10319, 11429, 4}, {4001, 4003, 4}, {1009, 1013, 8}, {2003, 4999, 1}, {3001, 4999, 2}}) {
    INFO(rows << " x " << cols << ", elem_size " << elem_size);
    const std::size_t matrix = rows * cols * elem_size;
    ipt_plan_options room{};
    room.max_bytes = padded_bytes(rows, cols, elem_size);
    ipt_plan_info info;
    REQUIRE(ipt_plan(session().device(), rows, cols, elem_size, &room, &info) == IPT_SUCCESS);
    INFO(info.description);
    CHECK(info.borrowed_bytes == room.max_bytes - matrix);  // all of the room, or none
    CHECK(static_cast<double>(room.max_bytes - matrix + info.scratch_bytes) <=
          0.006 * static_cast<double>(matrix));
  }
}

TEST_CASE("max_bytes below the matrix lends nothing past it", "[padding]") {
  // Such a max_bytes once made every call and ipt_plan fail with IPT_INTERNAL_ERROR (the
  // planner split the matrix at its own end). Found by tests/fuzz/fuzz_planner.cpp.
  for (const auto& [rows, cols] :
       std::vector<std::pair<std::size_t, std::size_t>>{{32, 48}, {174, 40}, {1009, 1013}}) {
    const std::size_t bytes = rows * cols * 4;
    ipt_plan_options exact{};
    exact.max_bytes = bytes;
    ipt_plan_info expected;
    REQUIRE(ipt_plan(session().device(), rows, cols, 4, &exact, &expected) == IPT_SUCCESS);
    for (std::size_t max_bytes : {std::size_t{1}, std::size_t{4}, bytes - 4}) {
      INFO(rows << " x " << cols << ", max_bytes " << max_bytes);
      ipt_plan_options tight{};
      tight.max_bytes = max_bytes;
      ipt_plan_info info;
      const ipt_status status = ipt_plan(session().device(), rows, cols, 4, &tight, &info);
      INFO(ipt_last_error_message());
      REQUIRE(status == IPT_SUCCESS);
      CHECK(std::string(info.description) == expected.description);
      CHECK(info.borrowed_bytes == 0);
      GuardedMatrix m(rows, cols, 4, 1, padded_bytes(rows, cols, 4), rows + max_bytes);
      run(m, rows, cols, 4, &tight);
      CHECK(m.check_transposed() == "");
    }
  }
}

namespace {

// A device without resident groups, fully described so that every device plans the
// shapes of the split tests below alike.
constexpr const char* kSplitDevice =
    "local_mem=32768,max_wg=256,simd=32,compute_units=64,line=128,resident_groups=0";

// The plan of a call whose max_bytes is the matrix (no room past it: padding in scratch).
std::string tight_plan(std::size_t rows, std::size_t cols, std::size_t elem_size) {
  ipt_plan_options tight{};
  tight.max_bytes = rows * cols * elem_size;
  ipt_plan_info info;
  REQUIRE(ipt_plan(session().device(), rows, cols, elem_size, &tight, &info) == IPT_SUCCESS);
  return info.description;
}

// A random matrix `offset` elements into its buffer, 64 guard bytes after it, transposed
// with max_bytes the matrix and back: both results and the guards checked.
void transpose_tight_and_back(std::size_t rows, std::size_t cols, std::size_t elem_size,
                              std::size_t offset, std::uint64_t seed) {
  ipt_plan_options tight{};
  tight.max_bytes = rows * cols * elem_size;
  GuardedMatrix m(rows, cols, elem_size, offset, 64, seed);
  run(m, rows, cols, elem_size, &tight);
  CHECK(m.check_transposed() == "");
  run(m, cols, rows, elem_size, &tight);
  CHECK(m.check_unchanged() == "");
}

using Shapes = std::vector<std::tuple<std::size_t, std::size_t, std::size_t>>;

// A line the plan in words holds (present) or lacks.
struct PlanText {
  const char* text;
  bool present;
};

// Each shape's plan without room holds or lacks each text, and each shape goes there and
// back (transpose_tight_and_back, seeds from seed + 1).
void check_tight_shapes(const Shapes& shapes, std::uint64_t seed,
                        const std::vector<PlanText>& expected) {
  for (const auto& [rows, cols, elem_size] : shapes) {
    INFO(rows << " x " << cols << ", elem_size " << elem_size);
    const std::string plan = tight_plan(rows, cols, elem_size);
    INFO(plan);
    for (const PlanText& e : expected) {
      INFO("\"" << e.text << "\" " << (e.present ? "present" : "absent"));
      REQUIRE((plan.find(e.text) != std::string::npos) == e.present);
    }
    transpose_tight_and_back(rows, cols, elem_size, 3, ++seed);
  }
}

}  // namespace

TEST_CASE("padded plans without room move a stage's instances before the split apart",
          "[padding]") {
  // Without room past the matrix, a padded plan keeps its padding in scratch (a split
  // matrix); a BS 010! stage of 1- or 2-byte elements with 16 MiB or more before the split
  // runs those instances in a kernel of their own, in 4-byte words, which need one buffer,
  // and the others in a second. Guard bytes around the matrix, which max_bytes keeps the
  // plan from borrowing, stay as they were. The stage is in the middle of a 2.1 plan,
  // before a 100! and an unpad, or last (2.2: its second kernel zeroes the earlier steps'
  // flags).
  ScopedEnv env("IPT_OVERRIDES", kSplitDevice);
  check_tight_shapes({{19101, 1009, 1}, {503, 19101, 2}}, 6200,
                     {{"instances (in the buffer)", true}, {"(reaching past the buffer)", true}});
}

TEST_CASE("padded plans without room keep a BS stage of wider elements in one kernel",
          "[padding]") {
  // Its kernel takes each chunk of tiles on one side of the split as one array and only
  // the chunk across the split element by element: one group of tiles at a time (large
  // tiles), several (tiles of fewer than 512 elements), middle and last stages.
  ScopedEnv env("IPT_OVERRIDES", kSplitDevice);
  check_tight_shapes(
      {{19101, 263, 4}, {503, 19101, 4}, {1252829, 8, 4}, {7, 2391397, 4}}, 6250,
      {{"BS tiles", true}, {"padded to", true}, {"(reaching past the buffer)", false}});
}

TEST_CASE("padded plans without room split their stages on a word, the pad and unpad at the end",
          "[padding]") {
  // A split at the caller's rows * cols elements rarely falls on a word of 1- or 2-byte
  // elements: the matrix's last elements past a word go to scratch before the stages and
  // come back after them, so that a 100! stage moves words. The guard bytes around the
  // matrix stay as they were, and a second call brings the original back.
  ScopedEnv env("IPT_OVERRIDES", kSplitDevice);
  std::uint64_t seed = 6300;
  for (const auto& [rows, cols, elem_size] :
       std::vector<std::tuple<std::size_t, std::size_t, std::size_t>>{
           {19101, 1009, 1}, {9781, 5102, 1}, {19101, 1009, 2}}) {
    INFO(rows << " x " << cols << ", elem_size " << elem_size);
    const std::string plan = tight_plan(rows, cols, elem_size);
    INFO(plan);
    REQUIRE(plan.find("keep the matrix's last") != std::string::npos);
    // A 100! stage (a line "  100! on ..." or "  0100! on ...") in words.
    bool in_words = false;
    for (std::size_t at = plan.find("100! on"); at != std::string::npos;
         at = plan.find("100! on", at + 1))
      in_words |= plan.substr(at, plan.find('\n', at) - at).find("moved as") != std::string::npos;
    REQUIRE(in_words);
    transpose_tight_and_back(rows, cols, elem_size, 4, ++seed);
  }
  // A batch, each matrix padded in scratch in turn: the first keeps its last element (the
  // second starts a byte into a word and keeps none).
  const std::size_t batch = 2, rows = 19101, cols = 1009;
  ipt_plan_info info;
  REQUIRE(ipt_plan_batched(session().device(), batch, rows, cols, 1, nullptr, &info) ==
          IPT_SUCCESS);
  INFO(info.description);
  REQUIRE(std::string(info.description).find("keep the matrix's last") != std::string::npos);
  GuardedMatrix m(batch * rows, cols, 1, 4, 64, ++seed);
  cl_event done = nullptr;
  REQUIRE(ipt_transpose_batched(session().queue(), m.buffer(), 4, batch, rows, cols, 0, nullptr,
                                &done, 1) == IPT_SUCCESS);
  REQUIRE(clWaitForEvents(1, &done) == CL_SUCCESS);
  clReleaseEvent(done);
  CHECK(m.check_holds(ipt::support::permute_010(m.matrix_before(), batch, rows, cols, 1)) == "");
}

TEST_CASE("padded plans in a sub-buffer of exactly the matrix leave its parent untouched",
          "[padding]") {
  // The matrix is a sub-buffer of exactly rows * cols elements inside a larger parent of
  // random bytes: a padded plan must keep its extra elements in scratch, never in the
  // parent's bytes after (or before) the sub-buffer.
  cl_uint align_bits = 0;
  REQUIRE(clGetDeviceInfo(session().device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits,
                          &align_bits, nullptr) == CL_SUCCESS);
  const std::size_t origin = std::max<std::size_t>(align_bits / 8, 16);
  std::uint64_t seed = 6100;
  int padded = 0;
  for (const char* device : {"local_mem=49152", "local_mem=32768,max_wg=256,simd=64"}) {
    ScopedEnv env("IPT_OVERRIDES", device);
    for (const auto& [rows, cols] : std::vector<std::pair<std::size_t, std::size_t>>{
             {1009, 1013}, {997, 2003}, {4099, 61}, {3, 10007}, {10007, 5}, {1021, 1031}})
      for (std::size_t elem_size : {1, 4, 8, 16}) {
        INFO(device << ": " << rows << " x " << cols << ", elem_size " << elem_size);
        const std::size_t bytes = rows * cols * elem_size;
        GuardedMatrix parent(1, origin / elem_size + rows * cols + 4096 / elem_size, elem_size, 0,
                             0, ++seed);
        cl_buffer_region region{origin, bytes};
        cl_int code = CL_SUCCESS;
        cl_mem sub = clCreateSubBuffer(parent.buffer(), CL_MEM_READ_WRITE,
                                       CL_BUFFER_CREATE_TYPE_REGION, &region, &code);
        REQUIRE(code == CL_SUCCESS);
        // The plan a buffer of just the matrix gets: padded (in scratch) for most shapes.
        ipt_plan_options exact{};
        exact.max_bytes = bytes;
        ipt_plan_info info;
        REQUIRE(ipt_plan(session().device(), rows, cols, elem_size, &exact, &info) == IPT_SUCCESS);
        CHECK(info.borrowed_bytes == 0);
        if (info.padded_rows * info.padded_cols > rows * cols) ++padded;
        cl_event done = nullptr;
        const ipt_status status =
            ipt_transpose(session().queue(), sub, 0, rows, cols, 0, nullptr, &done, elem_size);
        INFO(ipt_last_error_message());
        REQUIRE(status == IPT_SUCCESS);
        REQUIRE(clWaitForEvents(1, &done) == CL_SUCCESS);
        clReleaseEvent(done);
        clReleaseMemObject(sub);
        // The whole parent: the sub-buffer's bytes transposed, every other byte as it was.
        const std::vector<unsigned char> now = parent.read_all();
        const std::vector<unsigned char>& before = parent.initial();
        const std::vector<unsigned char> matrix(before.begin() + origin,
                                                before.begin() + origin + bytes);
        const auto expected = ipt::support::transpose_reference(matrix, rows, cols, elem_size);
        CHECK(std::memcmp(now.data() + origin, expected.data(), bytes) == 0);
        CHECK(std::memcmp(now.data(), before.data(), origin) == 0);
        CHECK(std::memcmp(now.data() + origin + bytes, before.data() + origin + bytes,
                          now.size() - origin - bytes) == 0);
      }
  }
  CHECK(padded >= 12);  // most of the 24 runs take a padded plan
}

TEST_CASE("padding: bad input leaves the buffer unchanged", "[padding][bad_input]") {
  GuardedMatrix m(59, 83, 4, 2, 400, 7000);
  ipt_plan_options options{};
  options.padded_rows = 58;  // smaller than the matrix
  CHECK(ipt_transpose_with_options(session().queue(), m.buffer(), 2, 59, 83, 4, &options, 0,
                                   nullptr, nullptr) == IPT_INVALID_VALUE);
  options.padded_rows = 64;  // 5 rows of 83 floats: more than the 400 bytes of room
  CHECK(ipt_transpose_with_options(session().queue(), m.buffer(), 2, 59, 83, 4, &options, 0,
                                   nullptr, nullptr) == IPT_BUFFER_TOO_SMALL);
  options.padded_rows = 60;
  options.max_bytes = 59 * 83 * 4;  // room exists, but the caller forbids using it
  CHECK(ipt_transpose_with_options(session().queue(), m.buffer(), 2, 59, 83, 4, &options, 0,
                                   nullptr, nullptr) == IPT_BUFFER_TOO_SMALL);
  options.max_bytes = 0;
  const int no_such_padding = 2;  // stored as a C caller could
  std::memcpy(&options.padding, &no_such_padding, sizeof no_such_padding);
  CHECK(ipt_transpose_with_options(session().queue(), m.buffer(), 2, 59, 83, 4, &options, 0,
                                   nullptr, nullptr) == IPT_INVALID_VALUE);
  options.padding = IPT_PADDING_OFF;
  CHECK(ipt_transpose_with_options(session().queue(), m.buffer(), 2, 59, 83, 4, &options, 0,
                                   nullptr, nullptr) == IPT_INVALID_VALUE);
  CHECK(m.check_unchanged() == "");
}
