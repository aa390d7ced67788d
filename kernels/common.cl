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
#define AT(m, i) (*((i) < (m).split ? (m).data + (i) : (m).tail + ((i) - (m).split)))
// Elements first..last, when they all lie on one side of the split, as one array (its
// element 0 is `first`); else 0, and each access goes through AT. A kernel that indexes
// such a run directly saves choosing the buffer at every access, which cost the split
// builds 14-58% of a step's time on an H200.
__global elem_t *run_of(matrix_t m, idx_t first, idx_t last) {
  if (last < m.split) return m.data + first;
  if (first >= m.split) return m.tail + (first - m.split);
  return 0;
}
#else
typedef struct {
  __global elem_t *data;
} matrix_t;
#define SPLIT_PARAMS
#define MATRIX(buffer, offset) ((matrix_t){(buffer) + (offset)})
#define AT(m, i) ((m).data[i])
#endif
