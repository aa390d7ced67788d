// SPDX-License-Identifier: Apache-2.0
#include "support/imatcopy_reference.hpp"

#include <cstring>

#include "support/random_data.hpp"

namespace ipt::support {
namespace {

bool complex_type(ipt_scalar_type type) { return type == IPT_SCALAR_C32 || type == IPT_SCALAR_C64; }

// One part of a scalar (float or double): conjugation flips the imaginary part's sign,
// then (a + bi)(x + yi) = (ax - by) + (ay + bx)i, each operation rounded on its own
// (volatile stops the compiler from fusing them).
template <typename T>
void transform_element(unsigned char* element, bool is_complex, bool conjugate, bool multiply,
                       double alpha_re, double alpha_im) {
  T x[2] = {0, 0};
  std::memcpy(x, element, sizeof(T) * (is_complex ? 2 : 1));
  if (conjugate) x[1] = -x[1];
  if (multiply) {
    const T a = static_cast<T>(alpha_re), b = static_cast<T>(alpha_im);
    if (is_complex) {
      volatile T ax = a * x[0], by = b * x[1], ay = a * x[1], bx = b * x[0];
      x[0] = ax - by;
      x[1] = ay + bx;
    } else {
      volatile T ax = a * x[0];
      x[0] = ax;
    }
  }
  std::memcpy(element, x, sizeof(T) * (is_complex ? 2 : 1));
}

}  // namespace

std::size_t ImatcopyCall::view_rows() const {
  return ordering == 'C' || ordering == 'c' ? cols : rows;
}
std::size_t ImatcopyCall::view_cols() const {
  return ordering == 'C' || ordering == 'c' ? rows : cols;
}
bool ImatcopyCall::transposes() const {
  return trans == 'T' || trans == 't' || trans == 'C' || trans == 'c';
}
bool ImatcopyCall::conjugates() const {
  return complex_type(type) && (trans == 'C' || trans == 'c' || trans == 'R' || trans == 'r');
}

std::size_t ImatcopyCall::extent() const {
  const std::size_t R = view_rows(), C = view_cols();
  if (R == 0 || C == 0) return 0;
  const std::size_t before = (R - 1) * lda + C;
  const std::size_t after = transposes() ? (C - 1) * ldb + R : (R - 1) * ldb + C;
  return before > after ? before : after;
}

std::string ImatcopyCall::text() const {
  static const char* names[] = {"raw", "s", "d", "c", "z"};
  const int t = static_cast<int>(type);
  return std::string("imatcopy ") + (t >= 0 && t <= 4 ? names[t] : "unknown type") + " (" +
         std::to_string(elem_size) + " bytes) '" + ordering + "' '" + trans + "' " +
         std::to_string(rows) + " x " + std::to_string(cols) + " lda " + std::to_string(lda) +
         " ldb " + std::to_string(ldb) +
         (has_alpha ? " alpha (" + std::to_string(alpha_re) + ", " + std::to_string(alpha_im) + ")"
                    : std::string(" alpha NULL"));
}

ipt_status run_imatcopy(const ImatcopyCall& call, cl_command_queue queue, cl_mem buffer,
                        std::size_t offset, bool typed, cl_event* event, cl_uint num_events,
                        const cl_event* wait) {
  const float f = static_cast<float>(call.alpha_re);
  const double d = call.alpha_re;
  const ipt_complex_f32 c{static_cast<float>(call.alpha_re), static_cast<float>(call.alpha_im)};
  const ipt_complex_f64 z{call.alpha_re, call.alpha_im};
  if (typed && call.type != IPT_SCALAR_NONE) {
    const char o = call.ordering, t = call.trans;
    switch (call.type) {
      case IPT_SCALAR_F32:
        return ipt_simatcopy(queue, o, t, call.rows, call.cols, call.has_alpha ? f : 1.0f, buffer,
                             offset, call.lda, call.ldb, num_events, wait, event);
      case IPT_SCALAR_F64:
        return ipt_dimatcopy(queue, o, t, call.rows, call.cols, call.has_alpha ? d : 1.0, buffer,
                             offset, call.lda, call.ldb, num_events, wait, event);
      case IPT_SCALAR_C32:
        return ipt_cimatcopy(queue, o, t, call.rows, call.cols,
                             call.has_alpha ? c : ipt_complex_f32{1.0f, 0.0f}, buffer, offset,
                             call.lda, call.ldb, num_events, wait, event);
      case IPT_SCALAR_C64:
        return ipt_zimatcopy(queue, o, t, call.rows, call.cols,
                             call.has_alpha ? z : ipt_complex_f64{1.0, 0.0}, buffer, offset,
                             call.lda, call.ldb, num_events, wait, event);
      case IPT_SCALAR_NONE:
        break;
    }
  }
  const void* alpha = nullptr;
  if (call.has_alpha) {
    switch (call.type) {
      case IPT_SCALAR_F32:
        alpha = &f;
        break;
      case IPT_SCALAR_F64:
        alpha = &d;
        break;
      case IPT_SCALAR_C32:
        alpha = &c;
        break;
      case IPT_SCALAR_C64:
        alpha = &z;
        break;
      case IPT_SCALAR_NONE:
        alpha = &d;  // refused: raw elements take no alpha
        break;
    }
  }
  return ipt_imatcopy(queue, call.ordering, call.trans, call.rows, call.cols, alpha, buffer, offset,
                      call.lda, call.ldb, num_events, wait, event, call.elem_size, call.type);
}

std::vector<unsigned char> imatcopy_expected(const ImatcopyCall& call, std::size_t offset,
                                             const std::vector<unsigned char>& before,
                                             std::vector<bool>& specified) {
  const std::size_t e = call.elem_size, R = call.view_rows(), C = call.view_cols();
  const std::size_t begin = offset * e, end = (offset + call.extent()) * e;
  std::vector<unsigned char> expected = before;
  specified.assign(before.size(), true);
  const bool keeps_gaps = !call.transposes() && call.lda == call.ldb;
  if (!keeps_gaps)
    for (std::size_t i = begin; i < end; ++i) specified[i] = false;
  const bool multiply = call.has_alpha && !(call.alpha_re == 1 && call.alpha_im == 0);
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) {
      const std::size_t from = (offset + r * call.lda + c) * e;
      const std::size_t to =
          (offset + (call.transposes() ? c * call.ldb + r : r * call.ldb + c)) * e;
      unsigned char element[16];
      std::memcpy(element, &before[from], e);
      if (call.type == IPT_SCALAR_F32 || call.type == IPT_SCALAR_C32)
        transform_element<float>(element, complex_type(call.type), call.conjugates(), multiply,
                                 call.alpha_re, call.alpha_im);
      else if (call.type == IPT_SCALAR_F64 || call.type == IPT_SCALAR_C64)
        transform_element<double>(element, complex_type(call.type), call.conjugates(), multiply,
                                  call.alpha_re, call.alpha_im);
      std::memcpy(&expected[to], element, e);
      for (std::size_t b = 0; b < e; ++b) specified[to + b] = true;
    }
  return expected;
}

void fill_numeric(const ImatcopyCall& call, std::size_t offset, std::vector<unsigned char>& bytes,
                  std::uint64_t seed) {
  if (call.type == IPT_SCALAR_NONE) return;
  const bool single = call.type == IPT_SCALAR_F32 || call.type == IPT_SCALAR_C32;
  const std::size_t part = single ? 4 : 8;
  const std::size_t begin = offset * call.elem_size;
  const std::size_t end = begin + call.extent() * call.elem_size;
  const std::size_t values = end > begin ? (end - begin) / part : 0;
  // Eight random bytes per value, built bit by bit: a random sign (bit 63), a random
  // mantissa (the low 23 or 52 bits: every bit of the significand in play, so that a
  // product or a sum rounds, and one rounded differently shows) and an exponent in
  // [-kExponents / 2, kExponents / 2], never that of a zero, a denormal, an Inf or a NaN.
  constexpr std::uint64_t kExponents = 17;
  const std::vector<unsigned char> random = random_bytes(8 * values, seed);
  for (std::size_t v = 0; v < values; ++v) {
    std::uint64_t r = 0;
    std::memcpy(&r, &random[8 * v], 8);
    const std::uint64_t sign = r >> 63;
    if (single) {
      const std::uint64_t exponent = 127 - kExponents / 2 + (r >> 32 & 0x7fffffff) % kExponents;
      const auto bits = static_cast<std::uint32_t>(sign << 31 | exponent << 23 | (r & 0x7fffff));
      std::memcpy(&bytes[begin + v * part], &bits, 4);
    } else {
      const std::uint64_t exponent = 1023 - kExponents / 2 + (r >> 52 & 0x7ff) % kExponents;
      const std::uint64_t bits = sign << 63 | exponent << 52 | (r & 0xfffffffffffff);
      std::memcpy(&bytes[begin + v * part], &bits, 8);
    }
  }
}

}  // namespace ipt::support
