// SPDX-License-Identifier: Apache-2.0
// ipt_imatcopy and its typed forms against the host reference of MKL's mkl_?imatcopy
// (support/imatcopy_reference.hpp): every ordering, trans, scalar type, alpha of 1 and
// not, strides equal to and longer than the rows, on random values and alphas of full
// precision, compared bit for bit; the bytes before the matrix and past its extent checked
// unchanged, and the gaps between rows where the call keeps them. Bad input leaves the
// buffer unchanged. The values and alphas are checked to make a product rounded otherwise
// (in another precision, or fused into a multiply-add) differ from the reference.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "helpers/test_support.hpp"
#include "ipt/ipt.h"
#include "support/imatcopy_reference.hpp"
#include "support/random_data.hpp"

using ipt::support::ImatcopyCall;
using ipt::test::session;

namespace {

constexpr std::size_t kGuardElements = 5;

// An alpha whose parts have full mantissas in float and in double (the last bit of each
// is 1): Catalan's constant and -W(1), the omega constant. With fill_numeric's values of
// full precision, nearly every product rounds, so that a result computed in another
// precision, through a fused multiply-add or in another order differs in some bit.
constexpr double kAlphaRe = 0.915965594177219, kAlphaIm = -0.5671432904097838;

std::vector<unsigned char> read_buffer(cl_mem buffer, std::size_t bytes) {
  std::vector<unsigned char> out(bytes);
  REQUIRE(clEnqueueReadBuffer(session().queue(), buffer, CL_TRUE, 0, bytes, out.data(), 0, nullptr,
                              nullptr) == CL_SUCCESS);
  return out;
}

// A buffer of `offset` elements, the call's extent and kGuardElements more, random.
struct CallBuffer {
  CallBuffer(const ImatcopyCall& call, std::size_t offset_, std::uint64_t seed) : offset(offset_) {
    const std::size_t bytes = (offset + call.extent() + kGuardElements) * call.elem_size;
    before = ipt::support::random_bytes(bytes, seed);
    ipt::support::fill_numeric(call, offset, before, seed + 1);
    cl_int err = CL_SUCCESS;
    buffer = clCreateBuffer(session().context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                            before.data(), &err);
    REQUIRE(err == CL_SUCCESS);
  }
  ~CallBuffer() { clReleaseMemObject(buffer); }
  CallBuffer(const CallBuffer&) = delete;
  CallBuffer& operator=(const CallBuffer&) = delete;

  std::size_t offset;
  std::vector<unsigned char> before;
  cl_mem buffer = nullptr;
};

// Empty when the call succeeds and the buffer then holds the reference's bytes wherever
// they are specified; else the first mismatches.
std::string run_and_check(const ImatcopyCall& call, bool typed, std::uint64_t seed) {
  const std::size_t offset = seed % 4;
  CallBuffer b(call, offset, seed);
  cl_event done = nullptr;
  const ipt_status status =
      ipt::support::run_imatcopy(call, session().queue(), b.buffer, offset, typed, &done);
  if (status != IPT_SUCCESS)
    return call.text() + ": " + ipt_status_string(status) + ": " + ipt_last_error_message();
  REQUIRE(clWaitForEvents(1, &done) == CL_SUCCESS);
  clReleaseEvent(done);
  std::vector<bool> specified;
  const auto expected = ipt::support::imatcopy_expected(call, offset, b.before, specified);
  const auto now = read_buffer(b.buffer, b.before.size());
  std::string problems;
  int shown = 0;
  for (std::size_t i = 0; i < now.size() && shown < 4; ++i)
    if (specified[i] && now[i] != expected[i]) {
      const std::size_t element = i / call.elem_size;
      problems += "\n  byte " + std::to_string(i) + " (element " + std::to_string(element) +
                  (element < offset ? ", before the matrix" : "") + "): " + std::to_string(now[i]) +
                  ", expected " + std::to_string(expected[i]);
      ++shown;
    }
  return problems.empty() ? "" : call.text() + problems;
}

struct Type {
  ipt_scalar_type type;
  std::size_t elem_size;
};

}  // namespace

TEST_CASE("imatcopy: every ordering, trans, type, alpha and stride", "[imatcopy][api]") {
  // A small prime-sided matrix, a skinny one, a square one (the square kernel between the
  // restrides) and one row.
  struct Shape {
    std::size_t rows, cols;
  };
  const std::vector<Shape> shapes = {{13, 7}, {3, 41}, {24, 24}, {1, 9}};
  const std::vector<Type> types = {
      {IPT_SCALAR_F32, 4}, {IPT_SCALAR_F64, 8}, {IPT_SCALAR_C32, 8}, {IPT_SCALAR_C64, 16}};
  std::uint64_t seed = 31000;
  for (const Shape& shape : shapes)
    for (const Type& type : types)
      for (char ordering : {'R', 'C'})
        for (char trans : {'N', 'T', 'C', 'R'})
          for (int alpha = 0; alpha < 2; ++alpha)
            for (int longer_a = 0; longer_a < 2; ++longer_a)
              for (int longer_b = 0; longer_b < 2; ++longer_b) {
                ImatcopyCall call;
                call.ordering = ordering;
                call.trans = trans;
                call.rows = shape.rows;
                call.cols = shape.cols;
                call.type = type.type;
                call.elem_size = type.elem_size;
                call.has_alpha = alpha == 1;
                call.alpha_re = kAlphaRe;
                call.alpha_im = kAlphaIm;
                const bool column_major = ordering == 'C';
                const std::size_t a_len = column_major ? shape.rows : shape.cols;
                const std::size_t b_len =
                    call.transposes() == column_major ? shape.cols : shape.rows;
                call.lda = a_len + (longer_a ? 3 : 0);
                call.ldb = b_len + (longer_b ? 5 : 0);
                ++seed;
                // The typed forms and ipt_imatcopy alternate.
                CHECK(run_and_check(call, seed % 2 == 0, seed) == "");
              }
}

TEST_CASE("imatcopy: raw elements of every size, no alpha", "[imatcopy][api]") {
  std::uint64_t seed = 32000;
  for (std::size_t elem_size : {1, 2, 4, 8, 16})
    for (char ordering : {'R', 'C'})
      for (char trans : {'N', 'T', 'n', 't'})
        for (std::size_t extra_a : {0, 2})
          for (std::size_t extra_b : {0, 1}) {
            ImatcopyCall call;
            call.ordering = ordering;
            call.trans = trans;
            call.rows = 17;
            call.cols = 10;
            call.elem_size = elem_size;
            const bool column_major = ordering == 'C';
            call.lda = (column_major ? call.rows : call.cols) + extra_a;
            call.ldb = (call.transposes() == column_major ? call.cols : call.rows) + extra_b;
            CHECK(run_and_check(call, false, ++seed) == "");
          }
}

TEST_CASE("imatcopy: larger matrices take the transposition plans between restrides",
          "[imatcopy][api]") {
  // Shapes whose dense transposition takes stages, padding in the strides' room, or
  // (strides of exactly the rows: no room) padding split into scratch, whose last
  // kernel then transforms the values with the split's arguments after alpha's.
  std::uint64_t seed = 33000;
  struct Case {
    std::size_t rows, cols, lda, ldb;
    char trans;
  };
  for (const Case& c : std::vector<Case>{{300, 200, 200, 300, 'T'},
                                         {257, 131, 140, 257, 'C'},
                                         {509, 61, 61, 520, 'T'},
                                         {400, 600, 611, 603, 'C'},
                                         {1021, 17, 20, 1030, 'T'},
                                         {300, 200, 230, 210, 'N'},
                                         {300, 200, 210, 230, 'R'},
                                         {1009, 997, 997, 1009, 'C'},
                                         {2003, 1999, 1999, 2003, 'T'}}) {
    for (const Type& type : {Type{IPT_SCALAR_C32, 8}, Type{IPT_SCALAR_F32, 4}}) {
      ImatcopyCall call;
      call.rows = c.rows;
      call.cols = c.cols;
      call.lda = c.lda;
      call.ldb = c.ldb;
      call.trans = c.trans;
      call.type = type.type;
      call.elem_size = type.elem_size;
      call.has_alpha = true;
      call.alpha_re = 1.6449340668482264;   // pi^2 / 6, full mantissas in float and double
      call.alpha_im = -2.5029078750958926;  // -(Feigenbaum's alpha)
      CHECK(run_and_check(call, true, ++seed) == "");
    }
  }
}

TEST_CASE("imatcopy: the transform in each kind of last kernel", "[imatcopy][api]") {
  // Forced plans whose dense transposition ends in a SoA 100! (cycles over super-elements
  // and over single elements, with many fixed points: gcd(300, 200) + 1 = 101 in 301 x
  // 201), a BS 010!, the square kernel or the on-chip kernel (then a pass of its own).
  struct Case {
    const char* overrides;
    std::size_t rows, cols;
  };
  std::uint64_t seed = 34000;
  for (const Case& c : std::vector<Case>{{"sequence=2.1,m=10", 300, 200},
                                         {"sequence=3.2,m=10,n=20", 300, 200},
                                         {"sequence=1", 301, 201},
                                         {"sequence=1", 64, 64},
                                         {"sequence=2.2,n=20", 300, 200},
                                         {"sequence=square", 64, 64},
                                         {"local_mem=16384,sequence=2.2,n=100", 300, 200}}) {
    ipt::test::ScopedEnv env("IPT_OVERRIDES", c.overrides);
    for (const Type& type : {Type{IPT_SCALAR_C32, 8}, Type{IPT_SCALAR_F64, 8}})
      for (std::size_t extra : {0, 3}) {
        ImatcopyCall call;
        call.rows = c.rows;
        call.cols = c.cols;
        call.lda = c.cols;
        call.ldb = c.rows + extra;  // with a pitch, a restride comes last instead
        call.trans = 'C';
        call.type = type.type;
        call.elem_size = type.elem_size;
        call.has_alpha = true;
        call.alpha_re = kAlphaRe;
        call.alpha_im = kAlphaIm;
        INFO(c.overrides);
        CHECK(run_and_check(call, true, ++seed) == "");
      }
  }
}

TEST_CASE("imatcopy: the transform in the square kernel's vector rows",
          "[imatcopy][api][vectors]") {
  // Floats times alpha, stored as 16-byte vectors and as the rows' head and tail elements;
  // the offsets (seed % 4) start the rows at each element of a vector.
  ipt::test::ScopedEnv env("IPT_OVERRIDES", "sequence=square,square.vectors=on");
  std::uint64_t seed = 35000;
  for (const std::size_t n : {5, 64, 97, 130})
    for (int k = 0; k < 4; ++k) {
      ImatcopyCall call;
      call.rows = call.cols = call.lda = call.ldb = n;
      call.trans = 'T';
      call.type = IPT_SCALAR_F32;
      call.elem_size = 4;
      call.has_alpha = true;
      call.alpha_re = kAlphaRe;
      CHECK(run_and_check(call, true, ++seed) == "");
    }
}

namespace {

// The element (x, y) of a real or complex call times (a, b), each part rounded as `T`,
// the way a wrong kernel would compute it: every product in `P` (float for double: a
// single-precision path; double for float: a wider one), or fused into a multiply-add.
template <typename T, typename P>
void misrounded(const unsigned char* element, bool is_complex, bool fused, double alpha_re,
                double alpha_im, unsigned char* out) {
  T x[2] = {0, 0};
  std::memcpy(x, element, sizeof(T) * (is_complex ? 2 : 1));
  const P a = static_cast<P>(static_cast<T>(alpha_re)),
          b = static_cast<P>(static_cast<T>(alpha_im));
  const P xr = static_cast<P>(x[0]), xi = static_cast<P>(x[1]);
  T y[2] = {0, 0};
  if (!is_complex) {
    y[0] = static_cast<T>(a * xr);
  } else if (fused) {
    y[0] = static_cast<T>(std::fma(a, xr, -(b * xi)));
    y[1] = static_cast<T>(std::fma(a, xi, b * xr));
  } else {
    const P ax = a * xr, by = b * xi, ay = a * xi, bx = b * xr;
    y[0] = static_cast<T>(ax - by);
    y[1] = static_cast<T>(ay + bx);
  }
  std::memcpy(out, y, sizeof(T) * (is_complex ? 2 : 1));
}

}  // namespace

TEST_CASE("imatcopy: the values and alphas of these tests see a product rounded otherwise",
          "[imatcopy][reference]") {
  // The bit-for-bit comparisons above can catch a kernel that computes double products in
  // single precision, float ones in double, or fuses them into multiply-adds only if
  // fill_numeric's values and the alphas make such results differ from the reference's:
  // values exact in a narrower precision (short mantissas) would hide all three. Host
  // only: the reference against the same products rounded the wrong way.
  struct Wrong {
    ipt_scalar_type type;
    std::size_t elem_size;
    bool fused;
    const char* what;
  };
  for (const Wrong& w : std::vector<Wrong>{{IPT_SCALAR_F64, 8, false, "d through float"},
                                           {IPT_SCALAR_C64, 16, false, "z through float"},
                                           {IPT_SCALAR_C32, 8, false, "c through double"},
                                           {IPT_SCALAR_C32, 8, true, "c fused"},
                                           {IPT_SCALAR_C64, 16, true, "z fused"}}) {
    ImatcopyCall call;
    call.rows = call.cols = call.lda = call.ldb = 16;
    call.type = w.type;
    call.elem_size = w.elem_size;
    call.has_alpha = true;
    call.alpha_re = kAlphaRe;
    call.alpha_im = kAlphaIm;
    std::vector<unsigned char> before(call.extent() * call.elem_size);
    ipt::support::fill_numeric(call, 0, before, 35000);
    std::vector<bool> specified;
    const auto expected = ipt::support::imatcopy_expected(call, 0, before, specified);
    const bool is_complex = w.type == IPT_SCALAR_C32 || w.type == IPT_SCALAR_C64;
    std::size_t differ = 0;
    for (std::size_t i = 0; i < before.size(); i += call.elem_size) {
      unsigned char wrong[16];
      if (w.type == IPT_SCALAR_C32 && w.fused)
        misrounded<float, float>(&before[i], is_complex, w.fused, kAlphaRe, kAlphaIm, wrong);
      else if (w.type == IPT_SCALAR_C32)
        misrounded<float, double>(&before[i], is_complex, w.fused, kAlphaRe, kAlphaIm, wrong);
      else if (w.fused)
        misrounded<double, double>(&before[i], is_complex, w.fused, kAlphaRe, kAlphaIm, wrong);
      else
        misrounded<double, float>(&before[i], is_complex, w.fused, kAlphaRe, kAlphaIm, wrong);
      differ += std::memcmp(wrong, &expected[i], call.elem_size) != 0;
    }
    INFO(w.what << ": " << differ << " of 256 elements differ");
    CHECK(differ >= 64);  // measured: 90 to 256 (fused c 90, z 102; d through float 256)
  }
}

TEST_CASE("imatcopy: an empty matrix is a no-op with an event", "[imatcopy][api]") {
  ImatcopyCall call;
  call.rows = 0;
  call.cols = 5;
  call.lda = 5;
  call.ldb = 1;
  call.trans = 'T';
  call.type = IPT_SCALAR_F32;
  CallBuffer b(call, 0, 7);
  cl_event done = nullptr;
  REQUIRE(ipt::support::run_imatcopy(call, session().queue(), b.buffer, 0, true, &done) ==
          IPT_SUCCESS);
  REQUIRE(done != nullptr);
  CHECK(clWaitForEvents(1, &done) == CL_SUCCESS);
  clReleaseEvent(done);
}

TEST_CASE("imatcopy: bad input gets a clear status and leaves the buffer unchanged",
          "[imatcopy][bad_input]") {
  ImatcopyCall good;
  good.rows = 6;
  good.cols = 9;
  good.lda = 9;
  good.ldb = 6;
  good.trans = 'T';
  good.type = IPT_SCALAR_C32;
  good.elem_size = 8;
  good.has_alpha = true;
  good.alpha_re = 2;
  struct Bad {
    const char* what;
    ImatcopyCall call;
    ipt_status status;
  };
  std::vector<Bad> cases;
  const auto with = [&](const char* what, ipt_status status, auto change) {
    Bad bad{what, good, status};
    change(bad.call);
    cases.push_back(bad);
  };
  with("trans X", IPT_INVALID_VALUE, [](ImatcopyCall& c) { c.trans = 'X'; });
  with("ordering Q", IPT_INVALID_VALUE, [](ImatcopyCall& c) { c.ordering = 'Q'; });
  with("lda < cols", IPT_INVALID_VALUE, [](ImatcopyCall& c) { c.lda = 8; });
  with("ldb < rows", IPT_INVALID_VALUE, [](ImatcopyCall& c) { c.ldb = 5; });
  with("column-major lda < rows", IPT_INVALID_VALUE, [](ImatcopyCall& c) {
    c.ordering = 'C';
    c.lda = 5;
    c.ldb = 9;
  });
  with("column-major ldb < cols", IPT_INVALID_VALUE, [](ImatcopyCall& c) {
    c.ordering = 'C';
    c.lda = 6;
    c.ldb = 8;
  });
  with("'N' with ldb < cols", IPT_INVALID_VALUE, [](ImatcopyCall& c) {
    c.trans = 'N';
    c.ldb = 8;
  });
  with("lda 0 for an empty matrix", IPT_INVALID_VALUE, [](ImatcopyCall& c) {
    c.rows = 0;
    c.cols = 0;
    c.lda = 0;
  });
  with("alpha for raw elements", IPT_INVALID_VALUE,
       [](ImatcopyCall& c) { c.type = IPT_SCALAR_NONE; });
  with("conjugation of raw elements", IPT_INVALID_VALUE, [](ImatcopyCall& c) {
    c.type = IPT_SCALAR_NONE;
    c.has_alpha = false;
    c.trans = 'C';
  });
  with("elem_size not the type's", IPT_INVALID_ELEMENT_SIZE,
       [](ImatcopyCall& c) { c.elem_size = 16; });
  with("unknown type", IPT_INVALID_VALUE,
       [](ImatcopyCall& c) { c.type = static_cast<ipt_scalar_type>(7); });
  with("raw elements of 3 bytes", IPT_INVALID_ELEMENT_SIZE, [](ImatcopyCall& c) {
    c.type = IPT_SCALAR_NONE;
    c.has_alpha = false;
    c.elem_size = 3;
  });
  with("strides past the buffer", IPT_BUFFER_TOO_SMALL, [](ImatcopyCall& c) { c.ldb = 12; });
  with("an extent that overflows", IPT_SIZE_OVERFLOW,
       [](ImatcopyCall& c) { c.lda = ~std::size_t{0} / 4; });

  CallBuffer b(good, 1, 4242);  // room for `good` only
  for (const Bad& bad : cases) {
    INFO(bad.what << ": " << bad.call.text());
    cl_event done = nullptr;
    CHECK(ipt::support::run_imatcopy(bad.call, session().queue(), b.buffer, 1, false, &done) ==
          bad.status);
    CHECK(done == nullptr);
    CHECK(std::string(ipt_last_error_message()) != "");
    CHECK(read_buffer(b.buffer, b.before.size()) == b.before);
  }
  // The typed forms refuse the same way.
  CHECK(ipt_simatcopy(session().queue(), 'R', 'Z', 6, 9, 1.0f, b.buffer, 0, 9, 6, 0, nullptr,
                      nullptr) == IPT_INVALID_VALUE);
  CHECK(ipt_zimatcopy(session().queue(), 'R', 'T', 6, 9, ipt_complex_f64{1, 0}, b.buffer, 0, 9, 6,
                      0, nullptr, nullptr) == IPT_BUFFER_TOO_SMALL);
  CHECK(read_buffer(b.buffer, b.before.size()) == b.before);
}
