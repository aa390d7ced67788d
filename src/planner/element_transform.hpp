// SPDX-License-Identifier: Apache-2.0
// What a call does to each element's value besides moving it: ipt_imatcopy's scaling by
// alpha and complex conjugation. Kernels move elements as raw bits; only a step that
// carries a transform interprets them, as the scalar type says (kernels/common.cl,
// TRANSFORMED).
#pragma once

#include <cstdint>
#include <string>

namespace ipt::planner {

enum class Scalar { kNone, kF32, kF64, kC32, kC64 };

// The element size of a scalar type (0 for kNone: any size, no arithmetic).
inline std::size_t scalar_bytes(Scalar scalar) {
  switch (scalar) {
    case Scalar::kF32:
      return 4;
    case Scalar::kF64:
    case Scalar::kC32:
      return 8;
    case Scalar::kC64:
      return 16;
    case Scalar::kNone:
      break;
  }
  return 0;
}

inline bool is_complex(Scalar scalar) { return scalar == Scalar::kC32 || scalar == Scalar::kC64; }

struct ElementTransform {
  Scalar scalar = Scalar::kNone;
  bool multiply = false;   // by alpha (conjugation first, as op(A) = conj(A))
  bool conjugate = false;  // complex types only
  // alpha's bits: the real and the imaginary part, each in the low bits of its word (a
  // float's 32 bits, a double's 64); the imaginary part 0 for real types.
  std::uint64_t alpha[2] = {0, 0};

  bool identity() const { return !multiply && !conjugate; }
  // Whether the transform computes in double precision (needs cl_khr_fp64); conjugation
  // alone flips a sign bit and needs no arithmetic.
  bool needs_fp64() const { return multiply && (scalar == Scalar::kF64 || scalar == Scalar::kC64); }
  // The build options of a kernel that applies it ("" for the identity).
  std::string options() const {
    if (identity()) return "";
    return " -DIPT_SCALAR=" + std::to_string(static_cast<int>(scalar)) +
           " -DIPT_MULTIPLY=" + (multiply ? "1" : "0") + " -DIPT_CONJ=" + (conjugate ? "1" : "0");
  }
  // A short text for a step's description.
  std::string what() const {
    if (identity()) return "";
    if (multiply && conjugate) return "conjugated and scaled by alpha";
    return multiply ? "scaled by alpha" : "conjugated";
  }
};

}  // namespace ipt::planner
