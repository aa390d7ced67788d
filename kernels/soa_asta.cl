/* SPDX-License-Identifier: Apache-2.0 */
// 100! (A, B, C) -> (B, A, C) by cycle following over super-elements (SoA-ASTA,
// TPDS 2015 §4.3/§5.2, PPoPP 2014 §5.2), with I instances (0100!: (I, A, B, C) ->
// (I, B, A, C)); 1000! is 100! with a super-element of C*D elements.
//
// Items. Super-element g = a*B + b of an instance moves to succ(g) = b*A + a. A
// super-element is moved in K chunks of at most L elements (chunk j covers elements
// [j*L, min(C, (j+1)*L))); chunk j of every super-element follows the same permutation,
// so (instance k, chunk j, super-element g) is an independent item with its own flag:
//   q = (k*K + j)*A*B + g,   flag bit q of `flags` (word q / 32, bit q mod 32).
// The chunking is what removes any cap on C: a unit never holds more than L elements,
// and a C much larger than the unit simply has more chunks (no element is ever dropped).
//
// Virtual SIMD units. A work-group of VW * UNITS work-items is UNITS units of VW lanes;
// one unit moves one item at a time, lane i handling elements i, i + VW, ... of the chunk
// (VW = work-group size: one unit per group, for large C). Lane 0 of a unit makes its
// decisions (flag tests, claims, the next start) and publishes them in local memory; a
// lane never reads what another lane wrote except across a barrier (never assuming
// lock-step lanes: on a GPU that schedules the lanes of a warp independently, the
// authors' warp-synchronous 100! failed in 15 of 63 runs).
//
// Transform (IPT_SCALAR, the call's last step: kernels/common.cl): every store writes
// TRANSFORMED values, and the super-elements that stay in place are transformed apart.
//
// Tiling: REGS > 0 keeps a lane's elements in registers (private arrays of REGS
// elements, L <= REGS * VW, checked by the host); REGS == 0 keeps them in local memory
// (`tiles`: 2 * L elements per unit, host-sized).
//
// Scheduling. Starts are handed out by slices of flag words: a unit takes the next slice
// index from a global counter (flags[words], zeroed with the flags; the started marks
// below, if any, follow it) and tries, as chain starts, the items of that slice whose
// bits were clear when it looked (a snapshot, only a hint: every start is tested again
// after its read). A word holds 2^slice_shift slices of 32 >> slice_shift items; the host
// cuts words into slices when there are fewer words than units, so that small stages
// start every unit at once instead of leaving a few units to walk every chain one step at
// a time. A unit whose chain ended takes its next start in the same step, so no unit
// idles while others of its group still follow chains (the previous version ran its units
// in lock-step rounds and waited for the longest chain of each round), and the dynamic
// counter balances work over groups. A start taken late cuts the chain that would have
// reached it, so long cycles split among all units.
//
// One barrier per step. Each step, every live unit is in one of three modes:
//   START s:  all lanes read item s into `carry`;
//   FIRST x:  (x = succ(s)) lanes read item x into `next_value`; lane 0 tests s's flag
//             and, if s is unclaimed, claims x;
//   CHAIN x:  lanes read item x into `next_value`; lane 0 claims x;
// then a barrier, after which the lanes of a unit whose claim of x succeeded store
// `carry` to x and take `next_value` as their new carry. Lane 0 publishes, before the
// barrier, the store decision and the next step's mode and item (double-buffered by
// step parity: lane 0 writes buffer t&1 again only in step t+2, after the barrier of
// step t+1 that every lane passes only once it has read buffer t&1 for step t).
//
// Claim protocol (bit q set = item q claimed: only its claimant writes it, after the
// claim). Memory-ordering argument:
//   (i)   START: every lane's read of s COMPLETES (see the sink below) and is fenced
//         before the barrier; lane 0 tests s's flag after the barrier (FIRST). If the
//         test finds s unclaimed, nobody had claimed s before the test, and a claimant
//         writes only after its claim, so every lane holds s's original value.
//   (ii)  FIRST/CHAIN: a successful claim of x means nobody else ever writes x, so the
//         value read from x is original whether the read is served before or after the
//         claim: the read and the claim may overlap, which is what saves a barrier.
//   (iii) the stores to x follow the claim of x across the barrier (with a global fence).
// Each item of a non-trivial cycle is claimed once and written once, with the original
// value of its predecessor; a chain whose claim fails stops, and the winner carries
// that value on. No group waits for another (lock-free; any scheduling order of
// work-groups is fine). Stale cached lines are harmless: a stale read of a start is
// caught by (i); a stale read of x is discarded unless the claim succeeds, and then it
// is original. The loop's trip count is uniform over the work-group: it continues
// while the group-wide count of live units, read after the barrier, is non-zero.
//
// Started marks (`marks` != 0: a second bitmap after the start counter, which the host
// keeps for chunks of 512 bytes and more). A chain's claim fails only at the successor
// of a start: only a unit holding s's original value claims succ(s), the chain that
// claimed s or the unit that started at s. So a unit whose start s passed its test sets
// s's mark, and a chain that claims a marked s stores into s and stops, instead of
// reading succ(s) only to lose it to the start's unit, which then carries s's value on.
// A chain that moves k items so reads k + 1 chunks (its start and the k) instead of
// k + 2; a mark read stale (clear) costs only that read.

//
// Narrow elements in words (SHIFTED_WORDS=1, host-defined: 1- and 2-byte elements of a
// matrix in one buffer, tiled in registers). Where C elements fill whole 4-byte words the
// host moves them as wider elements; elsewhere a chunk starts anywhere in a word, at one
// place at its source and another at its destination. One per lane and register, such
// elements filled a unit with a quarter (half) of a float's bytes, and a super-element
// took as many more chunks, each a dependent step of a chain: 100! steps of 1-byte
// elements ran at 21-27% of copy. So a lane moves the words of the DESTINATION: every
// value read from item y is stored at succ(y) (a start's and a chain's alike), lane 0
// publishes succ's element 0 with the item, and word w of the destination is the two
// aligned source words that hold its elements, shifted together. A register holds a word,
// and the host sizes chunks in words (planner/families/soa.hpp, SoaConfig::words). Inner
// words are stored whole, the two at the chunk's ends element by element: their other
// elements belong to neighbours that other units write. A word read past the chunk holds
// a neighbour's elements, read and never stored; the chunks whose words reach past the
// matrix's end (the buffer may end with it) or before the buffer read them element by
// element. In equal chunks as large as a float's, the same steps ran at 37-51%. (Loading
// the words of a chunk of the old size ran no faster than elements: the chain's steps,
// not the loads, set the pace.)
// 4- and 8-byte elements whose super-elements do not fill 16-byte words stay one per
// register: moved the same way in the 16-byte words of their destination (each picked by
// 4-byte granules from two aligned source words), the 9 such 100! steps of floats in one
// buffer among 40 random shapes (super-elements of 29-803) took a median of 17% longer on
// a GPU (one, 579, 8% less), the random protocol's f32 median fell from 1340 to 1280
// GB/s, and the steps of doubles took as long as before (0.99-1.02).
// Lanes rotated so that each chunk's stores fill whole 128-byte lines of its destination
// (register r of lane i holding element i + r * VW - rot, rot from where the destination
// starts in its line; the loads straddle lines instead) ran no faster: the 100! steps of
// 40 random f32 shapes took a median of 0.6% longer (one 12% longer), the random
// protocol's medians (f32, f64, 1- and 2-byte, primes) stayed within the spread of two
// runs without it or below, and the skinny protocol's fell 2-5%. Partly written lines
// are not what these steps lose.
// Nor are the fences: without the fence between a step's loads and lane 0's test and claim
// (which makes the claim wait for lane 0's own loads), the 100! steps of 40 random f32
// shapes took a median of 1.000 of the time (0.976-1.029), and as much without the step
// barrier's global fence as well (0.999; formally unsafe, for the measurement only); the
// random, skinny, 1- and 2-byte and primes protocols stayed within the spread of two runs
// with them.
// Nor the registers that hold a unit's chunks: with the carried chunk in local memory
// (each lane its own slots) and only the loaded one in registers, so that more units fit
// a compute unit, the random protocol's shapes took a median of 1.003 (f32) and 0.999
// (f64) of the time on an H100, the skinny protocol's 1.008.
// Nor the latency of a chain's next load, nor the number of units started at once (100!
// steps of 25 and 50 random f32 shapes, two runs each, on an H100):
//   - the successor's chunk fetched into the L2 cache a step ahead (prefetch.global.L2,
//     a build for NVIDIA only): a median of 1.028 of the time (0.91-1.16), two steps
//     ahead 1.085;
//   - start slices cut finer, so that a stage of fewer items starts more units: with
//     four times as many units allowed for, 1.000-1.009 (0.87-0.92 on stages of 70,000-
//     75,000 items of 256-288 floats, 1.45-1.50 on one of 29,000); slices of 8 items
//     everywhere, 1.045; of 16, with the change below, 1.015;
//   - a chain that will claim a marked start next not reading that start's chunk (lane 0
//     reads the successor's mark with its claim): 0.998-1.000 (0.88-1.08). A model of the
//     claims (two stages, units stepping together) counted 11-37% more chunk reads than
//     items, half to two thirds of them such reads; but the start's own unit has just
//     read that chunk, so the read is likely served by the cache.

#define WG (VW * UNITS)
// Item indices (q, g, the starts, the flag words): 32-bit where the host finds that every
// item index fits (IPT_ITEMS32), even when element offsets need 64 bits; an element offset
// is then computed from an item once per step, in 64 bits.
#if IPT_INDEX_64 && IPT_ITEMS32
typedef uint item_t;
#else
typedef idx_t item_t;
#endif
#ifndef SHIFTED_WORDS
#define SHIFTED_WORDS 0
#endif
#if SHIFTED_WORDS && (IPT_ELEM_BYTES >= 4 || REGS == 0 || IPT_SPLIT || IPT_SCALAR)
#error "words of 1- or 2-byte elements, in registers, of a matrix in one buffer"
#endif
#if SHIFTED_WORDS
#define WE (4 / IPT_ELEM_BYTES)  // elements per word
typedef uint reg_t;
// Element j of a word (its bits from ELEM_BITS(j)), and the word that starts `s` bits
// into the pair of words lo, hi (lo first in memory).
#ifdef __ENDIAN_LITTLE__
#define ELEM_BITS(j) (8 * IPT_ELEM_BYTES * (j))
#define FUNNEL(lo, hi, s) (((lo) >> (s)) | ((hi) << (32 - (s))))
#else
#define ELEM_BITS(j) (8 * IPT_ELEM_BYTES * (WE - 1 - (j)))
#define FUNNEL(lo, hi, s) (((lo) << (s)) | ((hi) >> (32 - (s))))
#endif
#else
typedef elem_t reg_t;
#endif
#define MODE_DONE 0
#define MODE_START 1
#define MODE_FIRST 2
#define MODE_CHAIN 3
// A unit's published state: mode in bits 0-1, the store decision in bit 2, the chunk
// length above (the host keeps L below 2^28).
#define STATE(mode, store, len) ((uint)(mode) | ((uint)(store) << 2) | ((uint)(len) << 3))

// The loads and stores of a super-element's chunk (`len` elements from `base`), written
// once for each way to reach its elements, EL(e) being element e of the chunk. A split
// build (common.cl) indexes a chunk that lies on one side of the split as one array and
// goes through AT only for the chunk that straddles it: choosing the buffer at every
// access cost the split 100! 14-58% of its time.
//
// LOAD_START: (i) needs each start read COMPLETE, not merely issued, before lane 0 tests
// the flag: a GPU keeps a load in flight past a barrier until its register is used. A
// store of a value that depends on every loaded element makes the lane wait for them
// here. (Without it a GPU left one super-element wrong in a register-tiled 100! of 2^24
// elements; local tiling stores the values.)
#if REGS > 0
#define LOAD_START(EL)                                 \
  {                                                    \
    uint consumed = 0;                                 \
    UNROLL for (int r = 0; r < REGS; ++r) { \
      const uint e = lane + (uint)r * VW;              \
      if (e < len) {                                   \
        carry[r] = EL(e);                              \
        consumed ^= ELEM_WORD(carry[r]);               \
      }                                                \
    }                                                  \
    start_sink[lid] = consumed;                        \
  }
#define LOAD_NEXT(EL)                                  \
  UNROLL for (int r = 0; r < REGS; ++r) {   \
    const uint e = lane + (uint)r * VW;                \
    if (e < len) next_value[r] = EL(e);                \
  }
#define STORE(EL)                                      \
  UNROLL for (int r = 0; r < REGS; ++r) {   \
    const uint e = lane + (uint)r * VW;                \
    if (e < len) {                                     \
      EL(e) = TRANSFORMED(carry[r]);                   \
      carry[r] = next_value[r];                        \
    }                                                  \
  }
#else
#define LOAD_START(EL) \
  for (uint e = lane; e < len; e += VW) carry[e] = EL(e);
#define LOAD_NEXT(EL) \
  for (uint e = lane; e < len; e += VW) next_value[e] = EL(e);
#define STORE(EL)                         \
  for (uint e = lane; e < len; e += VW) { \
    EL(e) = TRANSFORMED(carry[e]);        \
    carry[e] = next_value[e];             \
  }
#endif
#define ON_CHUNK(OP) ON_RUN(m, base, len, OP)

#if SHIFTED_WORDS
// Word k of the buffer (kp1 = k + 1; 0: the word before the buffer, never stored), its
// elements from `end` on read as zero: for the chunks at the matrix's ends only.
uint buffer_word(__global elem_t *buffer, idx_t kp1, idx_t end) {
  if (kp1 == 0) return 0;
  const idx_t k = kp1 - 1;
  if (k < end / WE) return ((__global uint *)buffer)[k];
  uint v = 0;
  for (uint j = 0; j < WE; ++j)
    if (k * WE + j < end) v |= (uint)buffer[k * WE + j] << ELEM_BITS(j);
  return v;
}

// A chunk of `len` elements, element 0 at `from` in the buffer, read into `regs` as the
// words its destination (element 0 at `to`) takes: word w of the destination is element
// w * WE - (to % WE) of the chunk on, in source words kp1 - 1 + w and the next, `shift`
// bits apart. The loads of a chunk away from the matrix's ends are plain and unbranched,
// so that a lane has all of them in flight at once.
#define LOAD_WORDS(regs, from, to, SINK)                                                  \
  {                                                                                       \
    const uint sub = (uint)((to) % WE);                                                   \
    const uint nwords = (sub + len + WE - 1) / WE;                                        \
    const idx_t lead = (from) + WE - sub; /* chunk element -sub, plus a word */           \
    const idx_t kp1 = lead / WE;                                                          \
    const uint shift = (uint)(lead % WE) * 8 * IPT_ELEM_BYTES;                            \
    if (kp1 == 0 || kp1 + nwords >= end / WE) {                                           \
      UNROLL for (int r = 0; r < REGS; ++r) {                                             \
        const uint w = lane + (uint)r * VW;                                               \
        if (w < nwords) {                                                                 \
          const uint lo = buffer_word(buffer, kp1 + w, end);                              \
          const uint hi = buffer_word(buffer, kp1 + w + 1, end);                          \
          regs[r] = shift == 0 ? lo : FUNNEL(lo, hi, shift);                              \
          SINK(regs[r]);                                                                  \
        }                                                                                 \
      }                                                                                   \
    } else {                                                                              \
      __global const uint *at = (__global const uint *)buffer + (kp1 - 1);                \
      if (shift == 0) {                                                                   \
        UNROLL for (int r = 0; r < REGS; ++r) {                                           \
          const uint w = lane + (uint)r * VW;                                             \
          if (w < nwords) regs[r] = at[w];                                                \
        }                                                                                 \
      } else {                                                                            \
        UNROLL for (int r = 0; r < REGS; ++r) {                                           \
          const uint w = lane + (uint)r * VW;                                             \
          if (w < nwords) regs[r] = FUNNEL(at[w], at[w + 1], shift);                      \
        }                                                                                 \
      }                                                                                   \
      UNROLL for (int r = 0; r < REGS; ++r) {                                             \
        if (lane + (uint)r * VW < nwords) SINK(regs[r]);                                  \
      }                                                                                   \
    }                                                                                     \
  }
#define NO_SINK(v)
#define TO_SINK(v) consumed ^= (v)
// The carried words stored at the chunk whose element 0 is at `to` in the buffer: whole
// words inside it, its end words element by element.
#define STORE_WORDS(to)                                                                   \
  {                                                                                       \
    const uint sub = (uint)((to) % WE);                                                   \
    const uint nwords = (sub + len + WE - 1) / WE;                                        \
    /* the chunk's first word as a pointer: the stores below at constant offsets */       \
    __global uint *to_words = (__global uint *)buffer + (to) / WE;                        \
    UNROLL for (int r = 0; r < REGS; ++r) {                                               \
      const uint w = lane + (uint)r * VW;                                                 \
      if (w < nwords) {                                                                   \
        if (w * WE >= sub && w * WE + WE <= sub + len) {                                  \
          to_words[w] = carry[r];                                                         \
        } else {                                                                          \
          UNROLL for (uint j = 0; j < WE; ++j) {                                          \
            const uint e = w * WE + j; /* chunk element e - sub */                        \
            if (e >= sub && e < sub + len)                                                \
              ((__global elem_t *)to_words)[e] = (elem_t)(carry[r] >> ELEM_BITS(j));      \
          }                                                                               \
        }                                                                                 \
      }                                                                                   \
      carry[r] = next_value[r]; /* its words: as many as its destination's, not x's */    \
    }                                                                                     \
  }
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void ipt_soa_100(__global elem_t *buffer, idx_t offset, item_t A, item_t B, idx_t C,
                 idx_t L, item_t K, item_t total_items, __global uint *scratch,
                 ulong flags_word, __local elem_t *tiles,
                 uint slice_shift, uint marks TRANSFORM_PARAMS SPLIT_PARAMS) {
  // Published by a unit's lane 0 in step t (buffer t & 1), read by its lanes after the
  // barrier of step t: the store decision for step t, and the mode, chunk length and
  // first element (index in the matrix `m`) of the item the unit reads in step t + 1.
  __local idx_t pub_base[2][UNITS];
  __local uint pub_state[2][UNITS];
#if SHIFTED_WORDS
  __local idx_t pub_to[2][UNITS];  // element 0 of the successor's chunk
#endif
  __local int live[3];  // units live after step t: live[t % 3] (see the reset below)
#if REGS > 0
  __local volatile uint start_sink[WG];  // see (i)
#endif
  const matrix_t m = MATRIX(buffer, offset);  // every access: AT (common.cl)
  __global uint *flags = scratch + flags_word;  // this launch's region of the scratch
  const uint lid = get_local_id(0);
  const uint unit = lid / VW;
  const uint lane = lid - unit * VW;
  const item_t AB = A * B;
  const uint words = (uint)((total_items + 31) / 32);
  const uint slices = words << slice_shift;
  const uint slice_items = 32u >> slice_shift;
  __global uint *next_slice = flags + words;
  __global uint *started = next_slice + 1;  // the started marks
#if SHIFTED_WORDS
  // Elements from `end` on lie past the matrix: the buffer may end there.
  const idx_t end = offset + total_items / (K * AB) * AB * C;
#endif
#if REGS > 0
  reg_t carry[REGS], next_value[REGS];
#else
  __local elem_t *carry = tiles + unit * 2 * L;
  __local elem_t *next_value = carry + L;
#endif
  // Lane 0's private state: its mode; its item q = q0 + g (q0: the instance and chunk,
  // g: the super-element), the index in `m` of element 0 of the chunk in
  // super-element 0 and the chunk's length; the start being tested (FIRST); the flag
  // word its starts come from and the bits of that word still to try.
  int my_mode = MODE_DONE;
  item_t q0 = 0, g = 0, my_start = 0;
  idx_t chunk = 0;
  uint my_len = 0, word = 0, candidates = 0;

#if IPT_SCALAR
  // A transforming step (TRANSFORMED: the call's last) must store every element once, and
  // the cycles skip the super-elements that stay in place: g with g * (A - 1) a multiple
  // of AB - 1, that is g = i * (AB - 1) / d for i = 0 .. d, d = gcd(A - 1, B - 1).
  // Nothing else touches them, so the units transform them first, in place.
  {
    idx_t x = A - 1, y = B - 1;
    while (y != 0) {
      const idx_t r = x % y;
      x = y;
      y = r;
    }
    const idx_t fixed = x + 1, stride = (AB - 1) / x;
    const idx_t per_instance = K * fixed, items = total_items / AB * fixed;
    for (idx_t f = (idx_t)get_group_id(0) * UNITS + unit; f < items;
         f += (idx_t)get_num_groups(0) * UNITS) {
      const idx_t k = f / per_instance, rest = f - k * per_instance;
      const idx_t j = rest / fixed, i = rest - j * fixed;
      const idx_t first = k * AB * C + j * L + i * stride * C;
      const idx_t n = min(L, C - j * L);
      for (idx_t e = lane; e < n; e += VW) AT(m, first + e) = TRANSFORMED(AT(m, first + e));
    }
  }
#endif
  if (lid < 3) live[lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint t = 0;; ++t) {
    const uint p = t & 1;
    uint state = MODE_DONE;
    idx_t base = 0;
    if (t > 0) {
      if (lid == 0) live[(t + 1) % 3] = 0;  // last read in step t - 2, next used in t + 1
      // The item published for this step (in step t - 1).
      state = pub_state[p ^ 1][unit];
      base = pub_base[p ^ 1][unit];
    }
    const uint mode = state & 3;
    const uint len = state >> 3;
#if SHIFTED_WORDS
    if (mode == MODE_START) {
      // (i): the sink, as LOAD_START's.
      uint consumed = 0;
      LOAD_WORDS(carry, offset + base, offset + pub_to[p ^ 1][unit], TO_SINK)
      start_sink[lid] = consumed;
    } else if (mode != MODE_DONE) {
      LOAD_WORDS(next_value, offset + base, offset + pub_to[p ^ 1][unit], NO_SINK)
    }
#else
    if (mode == MODE_START) {
      ON_CHUNK(LOAD_START)
    } else if (mode != MODE_DONE) {
      ON_CHUNK(LOAD_NEXT)
    }
#endif
    mem_fence(CLK_GLOBAL_MEM_FENCE);

    if (lane == 0) {
      int store = 0, stop = 0;
      int test = my_mode;
      if (test == MODE_FIRST) {
        const uint bit = 1u << (uint)(my_start & 31);
        const uint w = atomic_or(&flags[my_start >> 5], 0u);
        if (!(w & bit)) {
          test = MODE_CHAIN;
          if (marks) atomic_or(&started[my_start >> 5], bit);  // nothing waits for it
        }
        if ((my_start >> 5) == word) candidates &= ~w;  // fresher than the snapshot
      }
      if (test == MODE_CHAIN) {
        const item_t q = q0 + g;
        const uint bit = 1u << (uint)(q & 31);
        const uint seen = marks ? ((volatile __global uint *)started)[q >> 5] : 0u;
        store = !(atomic_or(&flags[q >> 5], bit) & bit);
        stop = store && (seen & bit);
      }
      if ((store && !stop) || my_mode == MODE_START) {
        if (my_mode == MODE_START) my_start = q0 + g;
        const item_t a = g / B;
        g = (g - a * B) * A + a;  // the successor
        my_mode = store ? MODE_CHAIN : MODE_FIRST;
      } else if (my_mode != MODE_DONE || t == 0) {
        // The next start: the lowest untried bit of the current word that was clear,
        // else the next word from the global counter. Fixed points are never starts.
        my_mode = MODE_DONE;
        for (;;) {
          while (candidates == 0) {
            const uint slice = atomic_inc(next_slice);
            if (slice >= slices) break;
            word = slice >> slice_shift;
            const uint first = (slice - (word << slice_shift)) * slice_items;
            const uint seen = ((volatile __global uint *)flags)[word];
            const item_t left = total_items - (item_t)word * 32;
            const uint in_matrix = left >= 32 ? 0xffffffffu : ((1u << (uint)left) - 1u);
            const uint in_slice =
                slice_items == 32 ? 0xffffffffu : ((1u << slice_items) - 1u) << first;
            candidates = ~seen & in_matrix & in_slice;
          }
          if (candidates == 0) break;
          const uint bit = 31 - clz(candidates & (0u - candidates));
          candidates &= candidates - 1;
          const item_t s = (item_t)word * 32 + bit;
          const item_t kj = s / AB;  // k*K + j
          const item_t gs = s - kj * AB;
          const item_t a = gs / B;
          if ((gs - a * B) * A + a == gs) continue;
          const item_t k = kj / K;
          const item_t j = kj - k * K;
          q0 = s - gs;
          g = gs;
          chunk = (idx_t)(k * AB) * C + (idx_t)j * L;
          my_len = (uint)min(L, C - j * L);
          my_mode = MODE_START;
          break;
        }
      }
      pub_state[p][unit] = STATE(my_mode, store, my_mode == MODE_DONE ? 0 : my_len);
      pub_base[p][unit] = chunk + (idx_t)g * C;
#if SHIFTED_WORDS
      if (my_mode != MODE_DONE) {
        const item_t a = g / B;
        pub_to[p][unit] = chunk + (idx_t)((g - a * B) * A + a) * C;
      }
#endif
      if (my_mode != MODE_DONE) atomic_inc(&live[t % 3]);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);  // (i), (iii)

#if SHIFTED_WORDS
    if (pub_state[p][unit] & 4) STORE_WORDS(offset + base)
#else
    if (pub_state[p][unit] & 4) ON_CHUNK(STORE)
#endif
    if (live[t % 3] == 0) break;
  }
}
