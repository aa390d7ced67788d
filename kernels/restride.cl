/* SPDX-License-Identifier: Apache-2.0 */
// In-place change of a row-major matrix's row stride: `rows` rows of `len` elements move
// from stride S_in to stride S_out, all in one direction. Padding (S_out > S_in: rows
// spread towards the end, gaps left as they were) and unpadding (S_out < S_in: rows
// close up towards the start) of TPDS 2015 §6.2.1 are both this.
//
// Chunks. Element k = r*len + c of the matrix (source address r*S_in + c, destination
// r*S_out + c) belongs to chunk k / CHUNK. One work-group moves one chunk: it reads the
// chunk into registers (each work-item writes back exactly the elements it read),
// publishes "read" in flags[chunk], waits until every chunk whose SOURCE its destination
// overlaps has published "read", then writes.
//
// Why this is safe. Destinations move away from sources monotonically: when spreading,
// dest(k) >= src(k), so a chunk's destination can only overlap the sources of itself and
// of LATER chunks; when closing up, only of itself and EARLIER chunks. A chunk's source
// is written by others only after they have seen its "read" flag, and the flag is set
// after the chunk's values are in registers (every work-item has stored a value that
// depends on all its loads before the barrier that precedes the flag, so no load is
// still in flight).
//
// Why it cannot deadlock. Chunks are taken in the order of a global counter, last chunk
// first when spreading and first chunk first when closing up, so a group waits only for
// chunks whose groups took their ids earlier: they are already running, and they never
// wait for a chunk taken later. No assumption is made on the order in which work-groups
// start (dynamic ids, TPDS Fig. 9), only that a running work-group keeps running.
//
// Unlike the original chain, in which each group waited for its predecessor's WRITE,
// groups here wait only for the READS of a few neighbouring chunks, so they all move
// data at the same time.
//
// A step that comes last may also transform the values it stores (TRANSFORMED,
// kernels/common.cl): ipt_imatcopy's alpha and conjugation cost no pass of their own.
//
// Host-defined: WG (work-items per group), PER_ITEM (elements per work-item), IPT_UNITS,
// IPT_RARE_ITEMS.
//
// Units (IPT_UNITS = U > 1). Rows closed up into a compact matrix (s_out == len) land on
// consecutive elements: a chunk's destinations are one run. From the first whose buffer
// index (offset + k) is a multiple of U, they are stored as U-element units of one wide
// word each; the fewer than U elements before and after those units (loose) move one by
// one, by the first 2(U - 1) work-items. Narrow elements stored one by one close rows up
// at a fraction of the speed of 8-byte ones. (The same words on the source side of rows
// spread from a compact matrix made the padding slower: a warp's element stores then land
// a word apart.) A split matrix's destinations lie before its split (the host checks), so
// they are plain memory; the sources go through AT.
//
// Source words (1- and 2-byte elements, little-endian devices). A unit's sources start
// anywhere, so they are loaded as the 4-byte words that hold them, one more than the unit
// has, each pair shifted together in registers. Loaded one by one, 1-byte rows closed up
// at 37% of the copy bandwidth and 2-byte ones at 80%; as 4-byte words at 69% and 95%.
// (Two aligned unit words and a run-time choice among their parts ran 1-byte rows at 57%
// and 2-byte ones at 75%: the choice cost more than the loads it saved.) The bytes around
// the unit in those words belong to other units (or to the gaps between rows) and are
// dropped: a work-item stores only what it read for its own unit, which no other group
// writes before this chunk is "read". A unit whose sources straddle a row's end, or whose
// words would reach past the matrix's last row or across a split, is rare: it loads
// element by element (below).
//
// Rare units (IPT_RARE_ITEMS = R, set by the host where rows are long enough). Loaded by
// their owners element by element, in a branch beside the word loads, they cost a 1-byte
// unpad a sixth of its time (19101 x 15761: 0.198 ms against 0.167): the branch keeps
// the compiler from issuing a work-item's word loads at once, and the kernel takes 40
// registers instead of 32. With R, owners load only the units whose words lie whole in
// the buffer or (past a split) in the tail, without a branch around the others, and
// store every unit; meanwhile the whole group loads the chunk's rare units' elements, R
// per work-item, into local memory, and stores them over the owners' words after a
// barrier. Rare units sit in slots: one per row end inside the chunk, three around the
// first source past a split, one for the matrix's last unit (the only one whose words
// can pass the end without crossing a row's end or the split); the host gives R so that
// a chunk's slots fit.

#define CHUNK ((idx_t)WG * PER_ITEM)

// The element index k of the last source element at or before `address`.
idx_t last_source_at_or_before(idx_t address, idx_t rows, idx_t len, idx_t s_in) {
  const idx_t r = address / s_in, c = address - r * s_in;
  if (r >= rows) return rows * len - 1;
  return c >= len ? r * len + len - 1 : r * len + c;
}

// The element index k of the first source element at or after `address`.
idx_t first_source_at_or_after(idx_t address, idx_t len, idx_t s_in) {
  const idx_t r = address / s_in, c = address - r * s_in;
  return c >= len ? (r + 1) * len : r * len + c;
}

void wait_read(volatile __global int *flags, idx_t chunk) {
  while (atomic_or(&flags[chunk], 0) == 0) {
  }
}

// One element of the work-item's share: EL(i) is the element at index i of the matrix.
// The work-item's elements are k0 + lid + p * WG (p < PER_ITEM; those with p * WG < mine
// lie below k1), at row r0 + dr, column c, so at index (r0 + dr) * stride + c; (dr, c)
// advances by WG through the precomputed (step_rows, step_cols), so no element costs a
// division (two per element held the unpadding of 100003 x 43003 floats to 43% of copy).
// With 64-bit indices the index itself advances too, by `step` = step_rows * stride +
// step_cols and `wrap` = stride - len more when c passes the row's end, instead of a
// 64-bit multiplication per element, which cost the unpadding of 100003 x 43003 floats 6%
// of its time. With 32-bit indices the multiplication is cheaper than the carried index
// (9091 x 6310 padded to 9120 rows: 0.146 against 0.172 ms).
#if IPT_INDEX_64
#define ELEMENT_INDEX_INIT(stride)                                     \
  idx_t at = (r0 + first_dr) * (stride) + first_c;                     \
  const idx_t step = step_rows * (stride) + step_cols, wrap = (stride) - len;
#define ELEMENT_INDEX(stride) at
#define ELEMENT_INDEX_STEP at += step;
#define ELEMENT_INDEX_WRAP at += wrap;
#else
#define ELEMENT_INDEX_INIT(stride)
#define ELEMENT_INDEX(stride) ((r0 + dr) * (stride) + c)
#define ELEMENT_INDEX_STEP
#define ELEMENT_INDEX_WRAP
#endif
#ifndef IPT_RELATIVE32
#define IPT_RELATIVE32 0
#endif
#if IPT_INDEX_64 && IPT_RELATIVE32
// 64-bit indices whose offsets within a chunk fit 32 bits (the host checks that a chunk's
// rows span less than 2^32 elements of either stride): the chunk's first row's index in 64
// bits, once, and each element's offset from it carried in 32 bits.
#define FOR_MY_ELEMENTS(stride, BODY)                                  \
  {                                                                    \
    const idx_t base_ = r0 * (stride);                                 \
    uint c_ = (uint)first_c, at_ = (uint)(first_dr * (stride) + first_c); \
    const uint step_ = (uint)(step_rows * (stride) + step_cols);       \
    const uint wrap_ = (uint)((stride) - len), len_ = (uint)len;       \
    const uint step_cols_ = (uint)step_cols;                           \
    UNROLL for (int p = 0; p < PER_ITEM; ++p) {                        \
      if ((uint)p * WG < mine) {                                       \
        const idx_t i = base_ + at_;                                   \
        BODY                                                           \
      }                                                                \
      at_ += step_;                                                    \
      c_ += step_cols_;                                                \
      if (c_ >= len_) {                                                \
        c_ -= len_;                                                    \
        at_ += wrap_;                                                  \
      }                                                                \
    }                                                                  \
  }
#else
#define FOR_MY_ELEMENTS(stride, BODY)                                  \
  {                                                                    \
    idx_t dr = first_dr, c = first_c;                                  \
    ELEMENT_INDEX_INIT(stride)                                         \
    UNROLL for (int p = 0; p < PER_ITEM; ++p) {                        \
      if ((uint)p * WG < mine) {                                       \
        const idx_t i = ELEMENT_INDEX(stride);                         \
        BODY                                                           \
      }                                                                \
      dr += step_rows;                                                 \
      c += step_cols;                                                  \
      ELEMENT_INDEX_STEP                                               \
      if (c >= len) {                                                  \
        c -= len;                                                      \
        ++dr;                                                          \
        ELEMENT_INDEX_WRAP                                             \
      }                                                                \
    }                                                                  \
  }
#endif
#define LOAD(EL) FOR_MY_ELEMENTS(s_in, v[p] = EL(i); consumed ^= ELEM_WORD(v[p]);)
#define STORE(EL) FOR_MY_ELEMENTS(s_out, EL(i) = TRANSFORMED(v[p]);)
#define MATRIX_AT(i) AT(m, i)

#ifndef IPT_UNITS
#define IPT_UNITS 1
#endif
#if IPT_UNITS > 1
#if PER_ITEM % IPT_UNITS != 0 || WG < 2 * (IPT_UNITS - 1)
#error "units need whole units per work-item and a work-item per loose element"
#endif
#if IPT_UNITS * IPT_ELEM_BYTES == 16
typedef uint4 unit_word_t;
#elif IPT_UNITS * IPT_ELEM_BYTES == 8
typedef uint2 unit_word_t;
#else
#error "a unit is an 8- or 16-byte word"
#endif
typedef union {
  elem_t e[IPT_UNITS];
  unit_word_t word;
} unit_t;
#if IPT_ELEM_BYTES < 4 && IPT_SCALAR == 0 && defined(__ENDIAN_LITTLE__)
#define IPT_SOURCE_WORDS 1
#define UNIT_UINTS (IPT_UNITS * IPT_ELEM_BYTES / 4)
#if UNIT_UINTS == 4
#define UINT_OF(x, i) VEC4_AT(x, i)
#define UNIT_OF(o) ((uint4)((o)[0], (o)[1], (o)[2], (o)[3]))
#else
#define UINT_OF(x, i) ((i) == 0 ? (x).s0 : (x).s1)
#define UNIT_OF(o) ((uint2)((o)[0], (o)[1]))
#endif
// The unit of U elements whose first byte lies `bits` / 8 bytes into the 4-byte word at
// `from`: UNIT_UINTS + 1 words loaded, each pair shifted together.
unit_word_t unit_from_uints(__global const uint *from, uint bits) {
  uint w[UNIT_UINTS + 1], o[UNIT_UINTS];
  UNROLL for (int i = 0; i <= UNIT_UINTS; ++i) w[i] = from[i];
  UNROLL for (int i = 0; i < UNIT_UINTS; ++i) o[i] = (uint)(upsample(w[i + 1], w[i]) >> bits);
  return UNIT_OF(o);
}
// The element-by-element fallback below is rare. Unrolled for 1-byte elements it holds
// a unit's 16 loads at once, and the registers it takes lower the occupancy of the whole
// kernel; so there each 4-byte word's elements are gathered in a rolled loop.
#if IPT_ELEM_BYTES == 1
#define FALLBACK_UNROLL _Pragma("unroll 1")
#else
#define FALLBACK_UNROLL UNROLL
#endif
#define PER_UINT (4 / IPT_ELEM_BYTES)
#if IPT_RARE_ITEMS
// Where a unit's words lie whole: in the buffer, below the end of the matrix's last row
// (and its split), or, past a split, in the tail, below its end. Neither, or across a
// row's end: rare.
#define IN_BUFFER(first_byte) ((first_byte) / 4 + UNIT_UINTS + 1 <= uints_below_end)
#if IPT_SPLIT
#define TAIL_BYTE(at) ((split_tail_at + (at)-m.split) * IPT_ELEM_BYTES)
#define IN_TAIL(at, tail_byte) \
  ((at) >= m.split && (tail_byte) / 4 + UNIT_UINTS + 1 <= tail_uints_end)
#else
#define TAIL_BYTE(at) 0
#define IN_TAIL(at, tail_byte) false
#endif
// In FOR_MY_UNITS: whether the unit's words lie whole in the buffer, or in the tail.
// (Loaded from neither, a rare unit's word is 0 until the group stores its elements.)
#define UNIT_PLACES                                                                       \
  const idx_t first_byte = (offset + at) * IPT_ELEM_BYTES, tail_byte = TAIL_BYTE(at);     \
  const bool words_in_buffer = c + IPT_UNITS <= len && IN_BUFFER(first_byte);            \
  const bool words_in_tail = c + IPT_UNITS <= len && IN_TAIL(at, tail_byte);
#define LOAD_UNIT_WORD                                                                    \
  UNIT_PLACES                                                                             \
  vw[p] = 0;                                                                              \
  if (words_in_buffer)                                                                    \
    vw[p] = unit_from_uints(buffer_uints + first_byte / 4, (uint)(first_byte % 4) * 8);   \
  else if (words_in_tail)                                                                 \
    vw[p] = unit_from_uints(tail_uints + tail_byte / 4, (uint)(tail_byte % 4) * 8);       \
  UNROLL for (int i = 0; i < UNIT_UINTS; ++i) consumed ^= UINT_OF(vw[p], i);
// Element u of the chunk's rare unit in slot `slot` (below): `held` where there is one,
// with its source index `from` and destination `to`.
#define RARE_ELEMENT(slot, u)                                                              \
  idx_t from = 0, to = 0;                                                                  \
  bool held = false;                                                                       \
  if (slot < rare_rows) {                                                                  \
    const idx_t r = rare_first_row + slot, end = (r + 1) * len;                            \
    const idx_t into = (offset + end) % IPT_UNITS;                                         \
    to = end - into + u;                                                                   \
    held = into != 0;                                                                      \
    from = to < end ? r * s_in + (to - r * len) : (r + 1) * s_in + (to - end);             \
  } else if (slot <= rare_rows + 3) {                                                      \
    const uint i = slot - rare_rows;                                                       \
    const bool exists =                                                                    \
        i < 3 ? IPT_SPLIT && k_split + i * IPT_UNITS >= 2 * IPT_UNITS : whole_end >= IPT_UNITS; \
    const idx_t k = i < 3 ? k_split + i * IPT_UNITS - 2 * IPT_UNITS : whole_end - IPT_UNITS; \
    if (exists && k >= a && k + IPT_UNITS <= b) {                                          \
      const idx_t r = k / len, c = k - r * len, at = r * s_in + c;                        \
      UNIT_PLACES                                                                          \
      held = c + IPT_UNITS <= len && !words_in_buffer && !words_in_tail;                   \
      from = at + u;                                                                       \
      to = k + u;                                                                          \
    }                                                                                      \
  }
#else
// A unit's loads in FOR_MY_UNITS, into its word vw[p]: from the 4-byte words around it
// where all end by the end of the matrix's last row and its sources lie in one row, else
// element by element, each shifted into its place in the word.
#define LOAD_UNIT_WORD                                                                    \
  const idx_t first_byte = (offset + at) * IPT_ELEM_BYTES;                                \
  if (c + IPT_UNITS <= len && first_byte / 4 + UNIT_UINTS + 1 <= uints_below_end) {       \
    vw[p] = unit_from_uints(buffer_uints + first_byte / 4, (uint)(first_byte % 4) * 8);   \
  } else {                                                                                \
    uint o[UNIT_UINTS];                                                                   \
    UNROLL for (int i = 0; i < UNIT_UINTS; ++i) {                                         \
      uint word = 0;                                                                      \
      FALLBACK_UNROLL for (int t = 0; t < PER_UINT; ++t) word |=                          \
          (uint)AT(m, UNIT_SOURCE(i * PER_UINT + t)) << (t * IPT_ELEM_BYTES * 8);         \
      o[i] = word;                                                                        \
    }                                                                                     \
    vw[p] = UNIT_OF(o);                                                                   \
  }                                                                                       \
  UNROLL for (int i = 0; i < UNIT_UINTS; ++i) consumed ^= UINT_OF(vw[p], i);
#endif
#else
#define IPT_SOURCE_WORDS 0
#undef IPT_RARE_ITEMS
#endif
#define UNITS_PER_ITEM (PER_ITEM / IPT_UNITS)
#define V(p, u) v[(p) * IPT_UNITS + (u)]
// The work-item's units are lid + p * WG: each stored at element k and loaded from row r,
// column c, source index `at`; (r, c) advances by WG units without a division.
#if IPT_INDEX_64 && IPT_RELATIVE32
// As FOR_MY_ELEMENTS: the first unit's row in 64 bits, the offsets from it in 32.
#define FOR_MY_UNITS(BODY)                                                  \
  {                                                                         \
    const idx_t r_ = first_k / len, at_base_ = r_ * s_in;                   \
    uint kk_ = 0, cc_ = (uint)(first_k - r_ * len), aa_ = cc_;              \
    const uint kstep_ = (uint)unit_step, cstep_ = (uint)unit_cols;          \
    const uint astep_ = (uint)(unit_rows * s_in + unit_cols);               \
    const uint awrap_ = (uint)(s_in - len), len_ = (uint)len;               \
    UNROLL for (int p = 0; p < UNITS_PER_ITEM; ++p) {                       \
      if ((uint)p * WG + (uint)lid < units) {                               \
        const idx_t k = first_k + kk_, c = cc_, at = at_base_ + aa_;        \
        BODY                                                                \
      }                                                                     \
      kk_ += kstep_;                                                        \
      aa_ += astep_;                                                        \
      cc_ += cstep_;                                                        \
      if (cc_ >= len_) {                                                    \
        cc_ -= len_;                                                        \
        aa_ += awrap_;                                                      \
      }                                                                     \
    }                                                                       \
  }
#else
#define FOR_MY_UNITS(BODY)                                       \
  {                                                              \
    idx_t k = first_k, r = first_k / len, c = first_k - r * len; \
    UNROLL for (int p = 0; p < UNITS_PER_ITEM; ++p) {            \
      if ((uint)p * WG + (uint)lid < units) {                    \
        const idx_t at = r * s_in + c;                           \
        BODY                                                     \
      }                                                          \
      k += unit_step;                                            \
      r += unit_rows;                                            \
      c += unit_cols;                                            \
      if (c >= len) {                                            \
        c -= len;                                                \
        ++r;                                                     \
      }                                                          \
    }                                                            \
  }
#endif
// The source index of element u of the unit at `at`, column c: rows are at least U
// elements long, so a unit crosses at most one row's end.
#define UNIT_SOURCE(u) (at + (u) + (c + (u) >= len ? s_in - len : 0))
#define UNIT_WORD(k) (*(__global unit_word_t *)(m.data + (k)))  // offset + k: a multiple of U
#endif
#define SRC_AT(i) src[(i)-src_first]
#define DST_AT(i) dst[(i)-first_dest]

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void ipt_restride(__global elem_t *buffer, idx_t offset, idx_t rows, idx_t len, idx_t s_in,
                  idx_t s_out, idx_t chunks, volatile __global int *scratch_base,
                  ulong scratch_word TRANSFORM_PARAMS SPLIT_PARAMS) {
  volatile __global int *scratch = scratch_base + scratch_word;  // this launch's region
  volatile __global int *counter = scratch;                      // dynamic chunk ids
  volatile __global int *flags = scratch + 1;                    // "read" flag per chunk
  __local idx_t chunk_of_group;
  // Each work-item's loads must be COMPLETE, not merely issued, before the chunk's flag
  // says "read": a GPU keeps a load in flight past a barrier until its register is used.
  // Storing a value that depends on every loaded element makes the work-item wait for
  // them (the values themselves stay in registers).
  __local volatile uint sink[WG];
  const matrix_t m = MATRIX(buffer, offset);
  const idx_t lid = get_local_id(0);
  const bool spread = s_out > s_in;

  if (lid == 0) {
    const idx_t id = (idx_t)atomic_inc(counter);
    chunk_of_group = spread ? chunks - 1 - id : id;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const idx_t j = chunk_of_group;
  const idx_t total = rows * len;
  const idx_t k0 = j * CHUNK;
  const idx_t k1 = min(k0 + CHUNK, total);

  const idx_t r0 = k0 / len, c0 = k0 - r0 * len;
  const idx_t r1 = (k1 - 1) / len, c1 = (k1 - 1) - r1 * len;
  const idx_t first_dr = (c0 + lid) / len, first_c = c0 + lid - first_dr * len;
  const idx_t step_rows = (idx_t)WG / len, step_cols = (idx_t)WG - step_rows * len;
  const uint mine = k1 - k0 > lid ? (uint)(k1 - k0 - lid) : 0u;  // <= CHUNK

  elem_t v[PER_ITEM];
  uint consumed = 0;
#if IPT_UNITS > 1
  // [k0, a): loose, [a, b): whole units, [b, k1): loose; fewer than U loose at each end.
  const idx_t a = min(k1, k0 + (IPT_UNITS - (offset + k0) % IPT_UNITS) % IPT_UNITS);
  const idx_t b = max(a, k1 - (offset + k1) % IPT_UNITS);
  const uint units = (uint)((b - a) / IPT_UNITS);
  const bool head = lid < IPT_UNITS - 1;
  const idx_t loose_k = head ? k0 + lid : b + (lid - (IPT_UNITS - 1));
  const bool loose = head ? loose_k < a : lid < 2 * (IPT_UNITS - 1) && loose_k < k1;
  elem_t loose_v = 0;
  if (loose) {
    const idx_t r = loose_k / len;
    loose_v = AT(m, r * s_in + (loose_k - r * len));
    consumed = ELEM_WORD(loose_v);
  }
  const idx_t unit_step = (idx_t)WG * IPT_UNITS;
  const idx_t unit_rows = unit_step / len, unit_cols = unit_step - unit_rows * len;
  const idx_t first_k = a + lid * IPT_UNITS;
#if IPT_SOURCE_WORDS
  // The buffer's 4-byte words that end at or before the end of the matrix's last row (and
  // of a split matrix's part in the buffer): a unit loads its words only where all of
  // them are among these. (32-bit indices: the host keeps offset + extent below 2^31
  // elements, so the byte index fits.)
  idx_t in_buffer = (rows - 1) * s_in + len;
#if IPT_SPLIT
  in_buffer = min(in_buffer, m.split);
#endif
  const idx_t uints_below_end = (offset + in_buffer) * IPT_ELEM_BYTES / 4;
  __global const uint *buffer_uints = (__global const uint *)buffer;
  unit_word_t vw[UNITS_PER_ITEM];
#if IPT_RARE_ITEMS
  // A chunk's rare units, by slot: the unit across each row's end inside [a, b), from
  // rare_first_row on; where the matrix is split, the three whole units before the first
  // source past the split (k_split, rounded down to a unit) and the one holding it; the
  // matrix's last whole unit. Slots without a rare unit stay unused.
  const idx_t rare_first_row = a / len;
  const idx_t rare_rows =
      b > a && (b - 1) / len > rare_first_row ? (b - 1) / len - rare_first_row : 0;
#if IPT_SPLIT
  __global const uint *tail_uints = (__global const uint *)split_tail;
  const idx_t tail_uints_end = TAIL_BYTE((rows - 1) * s_in + len) / 4;
  idx_t k_split = first_source_at_or_after(m.split, len, s_in);
  k_split -= (offset + k_split) % IPT_UNITS;
#else
  // No split: no tail, and those three slots stay unused.
  __global const uint *tail_uints = buffer_uints;
  const idx_t k_split = 0;
#endif
  const idx_t whole_end = total - (offset + total) % IPT_UNITS;  // of the matrix's units
  __local elem_t rare_elements[IPT_RARE_ITEMS * WG];
#endif
  FOR_MY_UNITS(LOAD_UNIT_WORD)
#if IPT_RARE_ITEMS
  // The group loads the rare units' elements into local memory, IPT_RARE_ITEMS per
  // work-item, while the owners' loads are in flight.
  UNROLL for (int q = 0; q < IPT_RARE_ITEMS; ++q) {
    const uint t = (uint)lid + (uint)q * WG, slot = t / IPT_UNITS, u = t % IPT_UNITS;
    RARE_ELEMENT(slot, u)
    if (held) rare_elements[t] = AT(m, from);
  }
#endif
#else
  FOR_MY_UNITS(UNROLL for (int u = 0; u < IPT_UNITS; ++u) {
    V(p, u) = AT(m, UNIT_SOURCE(u));
    consumed ^= ELEM_WORD(V(p, u));
  })
#endif
#elif IPT_SPLIT
  // The chunk's sources (and below, its destinations) as one array where they can be.
  const idx_t src_first = r0 * s_in + c0;
  __global elem_t *src = run_of(m, src_first, r1 * s_in + c1);
  if (src != 0)
    LOAD(SRC_AT)
  else
    LOAD(MATRIX_AT)
#else
  LOAD(MATRIX_AT)
#endif
  sink[lid] = consumed;
  barrier(CLK_LOCAL_MEM_FENCE);  // all of the chunk is in registers
  if (lid == 0) {
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    atomic_xchg(&flags[j], 1);  // "read": others may now overwrite this chunk's source
  }
  // The chunks to wait for: those whose sources the destination [first_dest, last_dest]
  // overlaps, other than this one. Only a few: waiting for every chunk between this one
  // and the farthest overlapped (as this kernel first did) made a work-group near the end
  // of a matrix padded by 52 columns test ~500 flags, and the pass ran at 41% of copy
  // instead of 78% (19935 x 13388 -> 13440). When rows spread by a large fraction of
  // their length (10 -> 11 elements), a destination still spans about two chunks'
  // sources; every work-item checks its share of the flags.
  const idx_t first_dest = r0 * s_out + (k0 - r0 * len);
  const idx_t last_dest = r1 * s_out + (k1 - 1 - r1 * len);
  idx_t first_wait = first_source_at_or_after(first_dest, len, s_in) / CHUNK;
  idx_t last_wait = last_source_at_or_before(last_dest, rows, len, s_in) / CHUNK;
  if (spread)
    first_wait = max(first_wait, j + 1);  // sources at or after the destination: later chunks
  else if (j == 0)
    first_wait = 1;  // the first chunk's destination is its own source: nothing to wait for
  else
    last_wait = min(last_wait, j - 1);
  for (idx_t jj = first_wait + lid; jj <= last_wait; jj += WG) wait_read(flags, jj);
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);  // the sources we cover are read

#if IPT_UNITS > 1
  if (loose) m.data[loose_k] = TRANSFORMED(loose_v);
#if IPT_SOURCE_WORDS
  FOR_MY_UNITS(UNIT_WORD(k) = vw[p];)
#if IPT_RARE_ITEMS
  // The owners stored their rare units' words as 0: the group's rare elements over them.
  barrier(CLK_GLOBAL_MEM_FENCE);
  UNROLL for (int q = 0; q < IPT_RARE_ITEMS; ++q) {
    const uint t = (uint)lid + (uint)q * WG, slot = t / IPT_UNITS, u = t % IPT_UNITS;
    RARE_ELEMENT(slot, u)
    if (held) m.data[to] = rare_elements[t];
  }
#endif
#else
  FOR_MY_UNITS(unit_t w; UNROLL for (int u = 0; u < IPT_UNITS; ++u) w.e[u] = TRANSFORMED(V(p, u));
               UNIT_WORD(k) = w.word;)
#endif
#elif IPT_SPLIT
  __global elem_t *dst = run_of(m, first_dest, last_dest);
  if (dst != 0)
    STORE(DST_AT)
  else
    STORE(MATRIX_AT)
#else
  STORE(MATRIX_AT)
#endif
}
