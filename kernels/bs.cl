/* SPDX-License-Identifier: Apache-2.0 */
// 010! (A, B, C) -> (A, C, B) by barrier synchronisation (BS, TPDS Fig. 1).
//
// A contiguous tiles of B x C elements are each transposed in place to C x B. A
// work-group owns `tiles_per_group` consecutive tiles at a time (a chunk, contiguous in
// memory), reads the chunk with coalesced loads and scatters every element straight to
// its transposed slot in local memory, waits on a barrier, then writes the chunk back
// linearly. Work-groups own disjoint chunks and never communicate. Every element is
// written once, so the kernel can transform the values it stores (TRANSFORMED).
//
// tiles_per_group == 1 is the classic one-tile-per-group BS kernel. tiles_per_group > 1
// is the small-tile variant ("virtual SIMD units", TPDS §5.2): several tiles share one
// work-group so that no lane idles on a 2..16-element tile. Unlike the authors'
// BS_marshal_vw, lanes are not bound to a tile and nothing assumes that the lanes of a
// warp run in lock-step: the whole group reads the whole chunk (even better coalescing
// than per-unit slices) and the exchange through local memory is ordered by a
// work-group barrier.
//
// The same launch also zeroes `zero_words` 32-bit words from word `zero_word` of `zero`
// (the flags of the call's next kernel, or of its earlier ones when this is its last), so
// that such a call needs no fill: each fill would be a command of its own, and every
// command costs the host microseconds to enqueue, which bounds the time of small calls.
//
// Local memory: `lds` (host-sized) holds PAD(tiles_per_group * B * C) elements. PAD adds
// one unused slot after every 32, so that the scatter (stride B between neighbouring
// lanes) does not hit one bank when B is a multiple of 32.

#define PAD(x) ((x) + ((x) >> 5))

// Word tiles (IPT_WORDS = 4 / IPT_ELEM_BYTES, for 1- and 2-byte elements where a tile's
// B * C elements fill whole words and the matrix starts on a 4-byte boundary of one
// buffer: the host checks). Moved one per work-item, such elements cost a global load
// and store each, for a quarter (half) of the bytes of a float. Here a work-item loads a
// word, scatters its elements to their transposed slots, and after the barrier stores a
// word of the chunk read whole from local memory, which PADW keeps word-aligned (an unused
// word after every 32).
#ifndef IPT_WORDS
#define IPT_WORDS 1
#endif
#if IPT_WORDS > 1 && (IPT_SPLIT || IPT_SCALAR || IPT_WORDS * IPT_ELEM_BYTES != 4)
#error "word tiles: 1- or 2-byte elements in one buffer, no transform"
#endif
#define PADW(x) ((x) + IPT_WORDS * ((x) / (32 * IPT_WORDS)))

// Loads each work-item issues before it stores any of them to local memory: one load at a
// time left a 100 x 100 tile at about half of the copy bandwidth (a 40 KB tile allows few
// work-groups per compute unit, so each needs several loads in flight to hide the latency
// of global memory).
#define LOADS 4

// (t, r, c) += (dt, dr, dc) with r < B and c < C kept by one carry each (dr < B, dc < C):
// a chunk's element index, digit by digit, advanced without a division.
void advance(idx_t *t, idx_t *r, idx_t *c, idx_t dt, idx_t dr, idx_t dc, idx_t B, idx_t C) {
  *t += dt;
  *r += dr;
  *c += dc;
  if (*c >= C) {
    *c -= C;
    ++*r;
  }
  if (*r >= B) {
    *r -= B;
    ++*t;
  }
}

#if IPT_WORDS == 1
// A chunk of `len` elements, EL(i) being its element i: every element loaded and scattered
// to its transposed slot, a barrier, every slot stored back in order. A split build
// (common.cl) indexes a chunk that lies on one side of the split as one array and only the
// chunk across it through AT, so that a split stage runs in one kernel at about the speed
// of one without the split. (In two kernels, the instance past the split took one group
// 7-16 us on its own, up to a tenth of the time of a padded skinny call.)
#define BS_CHUNK(EL)                                                             \
  {                                                                              \
    idx_t t = t_first, r = r_first, c = c_first;                                 \
    for (idx_t i = lid; i < len; i += LOADS * wg) {                              \
      elem_t v[LOADS];                                                           \
      UNROLL for (int k = 0; k < LOADS; ++k) {                                   \
        const idx_t j = i + (idx_t)k * wg;                                       \
        if (j < len) v[k] = EL(j);                                               \
      }                                                                          \
      UNROLL for (int k = 0; k < LOADS; ++k) {                                   \
        if (i + (idx_t)k * wg < len) lds[PAD(t * n + c * B + r)] = v[k];         \
        advance(&t, &r, &c, dt, dr, dc, B, C);                                   \
      }                                                                          \
    }                                                                            \
    /* Every load of the chunk has completed (and its value sits in local memory) \
       before any work-item overwrites the chunk. */                             \
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);                         \
    _Pragma("unroll 4") for (idx_t i = lid; i < len; i += wg) EL(i) = TRANSFORMED(lds[PAD(i)]); \
  }

__kernel void ipt_bs_010(__global elem_t *buffer, idx_t offset, idx_t A, idx_t B, idx_t C,
                         idx_t tiles_per_group, __local elem_t *lds, __global uint *zero,
                         ulong zero_word, ulong zero_words TRANSFORM_PARAMS SPLIT_PARAMS) {
  const matrix_t m = MATRIX(buffer, offset);
  const idx_t n = B * C;
  const idx_t lid = get_local_id(0);
  const idx_t wg = get_local_size(0);
  const idx_t stride = (idx_t)get_num_groups(0) * tiles_per_group;
  // Element i of a chunk is (tile t, row r, column c); it is tracked incrementally, i
  // advancing by wg: (dt, dr, dc) is wg in those digits (dr < B, dc < C), so one carry
  // each keeps r < B and c < C. No division per element.
  const idx_t dt = wg / n, dp = wg - dt * n;
  const idx_t dr = dp / C, dc = dp - dr * C;
  const idx_t t_first = lid / n, p_first = lid - t_first * n;
  const idx_t r_first = p_first / C, c_first = p_first - r_first * C;
  // The trip count depends on the group id only, so every barrier is reached by the
  // whole work-group (and so is each branch of ON_RUN, which depends on the chunk alone).
  for (idx_t t0 = (idx_t)get_group_id(0) * tiles_per_group; t0 < A; t0 += stride) {
    const idx_t tiles = min(tiles_per_group, A - t0);
    const idx_t len = tiles * n;
    ON_RUN(m, t0 * n, len, BS_CHUNK)
    barrier(CLK_LOCAL_MEM_FENCE);  // the next chunk reuses lds
  }
  for (ulong w = get_global_id(0); w < zero_words; w += get_global_size(0))
    zero[zero_word + w] = 0u;
}
#else
__kernel void ipt_bs_010(__global elem_t *buffer, idx_t offset, idx_t A, idx_t B, idx_t C,
                         idx_t tiles_per_group, __local uint *lds, __global uint *zero,
                         ulong zero_word, ulong zero_words) {
  __global const uint *src = (__global const uint *)(buffer + offset);  // aligned (host)
  __global uint *dst = (__global uint *)(buffer + offset);
  __local elem_t *slots = (__local elem_t *)lds;
  const idx_t n = B * C;  // a multiple of IPT_WORDS (host)
  const idx_t lid = get_local_id(0);
  const idx_t wg = get_local_size(0);
  const idx_t stride = (idx_t)get_num_groups(0) * tiles_per_group;
  // Word i of a chunk holds its elements IPT_WORDS * i ...; (t, r, c) tracks the first
  // of them, advancing by IPT_WORDS * wg elements as above.
  const idx_t step = (idx_t)IPT_WORDS * wg;
  const idx_t dt = step / n, dp = step - dt * n;
  const idx_t dr = dp / C, dc = dp - dr * C;
  const idx_t e_first = (idx_t)IPT_WORDS * lid;
  const idx_t t_first = e_first / n, p_first = e_first - t_first * n;
  const idx_t r_first = p_first / C, c_first = p_first - r_first * C;
  for (idx_t t0 = (idx_t)get_group_id(0) * tiles_per_group; t0 < A; t0 += stride) {
    const idx_t tiles = min(tiles_per_group, A - t0);
    const idx_t len = tiles * n / IPT_WORDS;  // words of the chunk
    const idx_t first = t0 * n / IPT_WORDS;   // its first word
    idx_t t = t_first, r = r_first, c = c_first;
    for (idx_t i = lid; i < len; i += LOADS * wg) {
      uint v[LOADS];
UNROLL
      for (int k = 0; k < LOADS; ++k) {
        const idx_t j = i + (idx_t)k * wg;
        if (j < len) v[k] = src[first + j];
      }
UNROLL
      for (int k = 0; k < LOADS; ++k) {
        if (i + (idx_t)k * wg < len) {
          elem_t e[IPT_WORDS];  // the word's elements in memory order
#if IPT_WORDS == 4
          vstore4(as_uchar4(v[k]), 0, e);
#else
          vstore2(as_ushort2(v[k]), 0, e);
#endif
          idx_t tt = t, rr = r, cc = c;
UNROLL
          for (int q = 0; q < IPT_WORDS; ++q) {
            slots[PADW(tt * n + cc * B + rr)] = e[q];
            if (++cc == C) {
              cc = 0;
              if (++rr == B) {
                rr = 0;
                ++tt;
              }
            }
          }
        }
        advance(&t, &r, &c, dt, dr, dc, B, C);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);  // as above
#pragma unroll 4
    for (idx_t i = lid; i < len; i += wg) dst[first + i] = lds[PADW(IPT_WORDS * i) / IPT_WORDS];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (ulong w = get_global_id(0); w < zero_words; w += get_global_size(0))
    zero[zero_word + w] = 0u;
}
#endif
