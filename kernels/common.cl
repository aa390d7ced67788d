/* SPDX-License-Identifier: Apache-2.0 */
// libipt kernel prelude: element and index types, prepended to every kernel family.
// The host defines IPT_ELEM_BYTES (1, 2, 4, 8 or 16) and IPT_INDEX_64 (0 or 1).
//
// Elements are moved as raw bits, never as floating-point values, so that NaN payloads
// and -0.0 survive and 8-byte elements need no cl_khr_fp64.

#if IPT_ELEM_BYTES == 1
typedef uchar elem_t;
#elif IPT_ELEM_BYTES == 2
typedef ushort elem_t;
#elif IPT_ELEM_BYTES == 4
typedef uint elem_t;
#elif IPT_ELEM_BYTES == 8
typedef ulong elem_t;
#elif IPT_ELEM_BYTES == 16
typedef uint4 elem_t;
#else
#error "IPT_ELEM_BYTES must be 1, 2, 4, 8 or 16"
#endif

// 32-bit indices are faster on GPUs; the host picks them only when every index of the
// launch (offset included) is below 2^32.
#if IPT_INDEX_64
typedef ulong idx_t;
#else
typedef uint idx_t;
#endif

// Loops over a work-item's registers are unrolled, so that a private array indexed by
// the loop stays in registers on a GPU. On a CPU device the host builds with
// IPT_UNROLL=0: its compiler keeps such arrays in memory either way, and unrolling made
// PoCL take 70 s instead of 2 s to build one on-chip kernel.
#ifndef IPT_UNROLL
#define IPT_UNROLL 1
#endif
#if IPT_UNROLL
#define UNROLL _Pragma("unroll")
#else
#define UNROLL _Pragma("unroll 1")
#endif

// Component i of a 4-component vector, i known when the kernel is compiled (an unrolled
// loop's counter): the choice folds away and the vector stays in registers.
#define VEC4_AT(v, i) ((i) == 0 ? (v).s0 : (i) == 1 ? (v).s1 : (i) == 2 ? (v).s2 : (v).s3)

// Helper functions in kernels are plain (not `inline`): under C99 rules an `inline`
// function has no external definition, and NVIDIA's compiler then fails at
// -cl-opt-disable with "Unresolved extern function".

// A 32-bit word that depends on every bit-carrying lane of an element (uint4: its x).
#if IPT_ELEM_BYTES == 16
#define ELEM_WORD(v) ((v).x)
#else
#define ELEM_WORD(v) ((uint)(v))
#endif

// A matrix whose last elements live in another buffer: a padded plan on a buffer that
// holds only the caller's matrix keeps the padded matrix's elements from `split` on in
// scratch (IPT_SPLIT=1; the host appends SPLIT_PARAMS to the kernel's arguments: the
// scratch buffer, the tail's first element in it, and `split`). Every access to the
// matrix goes through AT(m, i), i counted from the matrix's first element; without a
// split AT is plain indexing and costs nothing.
#ifndef IPT_SPLIT
#define IPT_SPLIT 0
#endif
#if IPT_SPLIT
typedef struct {
  __global elem_t *data;
  __global elem_t *tail;
  idx_t split;
} matrix_t;
#define SPLIT_PARAMS , __global elem_t *split_tail, ulong split_tail_at, idx_t split_at
#define MATRIX(buffer, offset) \
  ((matrix_t){(buffer) + (offset), split_tail + split_tail_at, split_at})
// Unit i of a split array: before `split` in data, from it on in tail (the on-chip
// kernel's blocks also index their words so).
#define SPLIT_AT(data, tail, split, i) (*((i) < (split) ? (data) + (i) : (tail) + ((i) - (split))))
#define AT(m, i) SPLIT_AT((m).data, (m).tail, (m).split, i)
// Elements first..last, when they all lie on one side of the split, as one array (its
// element 0 is `first`); else 0, and each access goes through AT. A kernel that indexes
// such a run directly saves choosing the buffer at every access, which cost the split
// builds 14-58% of a step's time.
__global elem_t *run_of(matrix_t m, idx_t first, idx_t last) {
  if (last < m.split) return m.data + first;
  if (first >= m.split) return m.tail + (first - m.split);
  return 0;
}
// OP(EL) on the `len` elements of m from `first` on, EL(e) being element first + e: as
// one array where they all lie on one side of the split (run_of), through AT where they
// straddle it. A kernel's runs of consecutive elements then choose the buffer once, and
// all but the one run across the split run as fast as without a split. Without a split,
// the run is a pointer to its first element too: unrolled accesses then address it with
// constant offsets, where indexing from the matrix's start (32-bit indices, which may
// wrap) cost address arithmetic at every access: the 100! steps of skinny matrices took
// a median of 0.81 of their time so (0.71-0.93).
#define ON_RUN(m, first, len, OP)                                                      \
  {                                                                                    \
    const matrix_t on_run_m = (m);                                                     \
    const idx_t on_run_first = (first), on_run_len = (len);                            \
    __global elem_t *on_run =                                                          \
        on_run_len > 0 ? run_of(on_run_m, on_run_first, on_run_first + on_run_len - 1) : 0; \
    if (on_run != 0) {                                                                 \
      OP(RUN_EL)                                                                       \
    } else {                                                                           \
      OP(SPLIT_EL)                                                                     \
    }                                                                                  \
  }
#define RUN_EL(e) on_run[e]
#define SPLIT_EL(e) AT(on_run_m, on_run_first + (e))
#else
typedef struct {
  __global elem_t *data;
} matrix_t;
#define SPLIT_PARAMS
#define MATRIX(buffer, offset) ((matrix_t){(buffer) + (offset)})
#define AT(m, i) ((m).data[i])
#define ON_RUN(m, first, len, OP)                        \
  {                                                      \
    __global elem_t *on_run = (m).data + (first);        \
    OP(RUN_EL)                                           \
  }
#define RUN_EL(e) on_run[e]
#endif

// Swizzled local tiles (IPT_SWIZZLE=1 in square.cl and onchip.cl): a tile of H rows of W
// elements, both powers of two, without the padding column. Element (r, c) sits in row r
// at column SWZ_COL(r, c, H, W) = c ^ g(r), g(r) < W: each row's columns permuted.
//
// Why it is conflict-free. Local memory has 32 banks of 4 bytes; lanes that hit distinct
// banks, or the same 4-byte word, are served at once. A request moves at most 128 bytes
// at a time, so lanes are served in groups of SWZ_LANES: 32 for 1-, 2- and 4-byte
// elements, a half-warp (16) for 8-byte ones, a quarter-warp (8) for 16-byte ones. A group
// whose elements lie in one run of 128 bytes (SWZ_LINE elements) is conflict-free,
// whatever their order.
//   - Row accesses (the kernels' loads into a tile; lanes along a row, or along several
//     whole consecutive rows when W is narrower than the group): the XOR with g(r) only
//     permutes the columns of row r. g(r) is a multiple of SWZ_WORD (elements per 4-byte
//     word), so 1- and 2-byte elements keep their words, and XOR maps an aligned block of
//     columns onto an aligned block: the group hits the same words as in an unpadded
//     row-major tile, one run.
//   - Column accesses (the stores from a tile; lanes down consecutive rows, and lanes / H
//     adjacent columns when H is shorter than the group): rows share a 128-byte line when
//     W is short (SWZ_LINE / W of them), and those already sit in different banks by their
//     place in the line. Rows of different lines, r / (SWZ_LINE / W) apart, would all put
//     column c in the same bank; g(r) moves each one by a different multiple of
//     max(SWZ_WORD, SWZ_LANES / H) columns: by whole words (so that 1- and 2-byte lanes of
//     one word keep sharing it), and by more than the lanes / H columns a group reads of
//     each row, so that no two (row, column) pairs of the group meet in one bank.
// For 4-byte elements in 32 x 32 tiles this is the classic c ^ r. The padded layout (rows
// of W + 1) is not conflict-free in several of these cases: column reads of 1- and 2-byte
// elements, and accesses to tiles narrower or shorter than a group of lanes (the square
// kernel's 16-wide tiles, the on-chip kernel's skinny ones) take up to twice, for some
// skinny tiles seven times, the passes of a conflict-free access.
// tests/planner/test_tile_layout.cpp counts them in a model of the banks (32 banks of 4
// bytes, NVIDIA's; AMD's LDS has 32 such banks too) for every access of both kernels,
// with the same function in C++ (planner/tile_layout.hpp: the two must stay the same).
#define SWZ_WORD (IPT_ELEM_BYTES < 4 ? 4 / IPT_ELEM_BYTES : 1)
#define SWZ_LANES (IPT_ELEM_BYTES > 4 ? 128 / IPT_ELEM_BYTES : 32)
#define SWZ_LINE (128 / IPT_ELEM_BYTES)
#define SWZ_COL(r, c, H, W)                                             \
  ((c) ^ ((((r) / (SWZ_LINE > (W) ? SWZ_LINE / (W) : 1)) *              \
           (SWZ_LANES / (H) > SWZ_WORD ? SWZ_LANES / (H) : SWZ_WORD)) & \
          ((W) - 1)))

// Element transforms (ipt_imatcopy): a step built with IPT_SCALAR (1 float, 2 double,
// 3 complex float, 4 complex double), IPT_MULTIPLY and IPT_CONJ stores TRANSFORMED(v)
// instead of v: conjugated (the imaginary part's sign bit flipped, bit-exact, no
// arithmetic), then multiplied by alpha, whose real and imaginary parts arrive as the raw
// bits of two ulong arguments (TRANSFORM_PARAMS, before SPLIT_PARAMS; TRANSFORM_ARGS
// hands them to a helper that declares TRANSFORM_PARAMS). Products are
// rounded one operation at a time (no contraction into fused multiply-adds), as the
// C reference computes them: (a + bi)(x + yi) = (ax - by) + (ay + bx)i.
#ifndef IPT_SCALAR
#define IPT_SCALAR 0
#endif
#if IPT_SCALAR == 0
#define TRANSFORM_PARAMS
#define TRANSFORM_ARGS
#define TRANSFORMED(v) (v)
#else
#if IPT_MULTIPLY && (IPT_SCALAR == 2 || IPT_SCALAR == 4)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#pragma OPENCL FP_CONTRACT OFF
#define TRANSFORM_PARAMS , ulong alpha_re, ulong alpha_im
#define TRANSFORM_ARGS , alpha_re, alpha_im  // passes them on to a helper function
#define TRANSFORMED(v) transformed((v), alpha_re, alpha_im)

// The sign bit of an element's imaginary part (its second half), as elem_t.
#if IPT_SCALAR == 3
#ifdef __ENDIAN_LITTLE__
#define IMAG_SIGN ((elem_t)1 << 63)
#else
#define IMAG_SIGN ((elem_t)1 << 31)
#endif
#elif IPT_SCALAR == 4
#ifdef __ENDIAN_LITTLE__
#define IMAG_SIGN ((elem_t)(0u, 0u, 0u, 0x80000000u))
#else
#define IMAG_SIGN ((elem_t)(0u, 0u, 0x80000000u, 0u))
#endif
#endif

elem_t transformed(elem_t v, ulong alpha_re, ulong alpha_im) {
#if IPT_CONJ
  v ^= IMAG_SIGN;
#endif
#if IPT_MULTIPLY
#if IPT_SCALAR == 1
  v = as_uint(as_float(v) * as_float((uint)alpha_re));
#elif IPT_SCALAR == 2
  v = as_ulong(as_double(v) * as_double(alpha_re));
#elif IPT_SCALAR == 3
  const float2 x = as_float2(v);
  const float ar = as_float((uint)alpha_re), ai = as_float((uint)alpha_im);
  v = as_ulong((float2)(ar * x.x - ai * x.y, ar * x.y + ai * x.x));
#elif IPT_SCALAR == 4
  const double2 x = as_double2(v);
  const double ar = as_double(alpha_re), ai = as_double(alpha_im);
  v = as_uint4((double2)(ar * x.x - ai * x.y, ar * x.y + ai * x.x));
#endif
#endif
  return v;
}
#endif
