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
