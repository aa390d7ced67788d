/* SPDX-License-Identifier: Apache-2.0 */
// 010! (A, B, C) -> (A, C, B) by PTTWAC: cycle following inside one tile with one flag
// bit per tile position in local memory (PPoPP 2014 §5.1, TPDS 2015 §4.2).
//
// One work-group per tile (grid-stride over the A tiles). Position p = r*C + c of a
// B x C tile moves to succ(p) = c*B + r. Every work-item tries every position s = lid,
// lid + wg, ... as a chain start, so long cycles are cut into many concurrent pieces.
//
// Flag layout (host-defined LOG2_SPREAD = log2 R, R in 1..32, and FLAG_PADDING 0/1):
//   word(p) = floor(p * R / 32) = p >> (5 - log2 R)    (PPoPP eq. 3, "spreading")
//   word'   = word + FLAG_PADDING * floor(word / 32)   (one unused word after every 32,
//                                                       PPoPP §5.1.2)
//   bit(p)  = p mod 32
// Collision-free: two positions with the same bit differ by a multiple of 32, hence
// their p*R differ by at least 32*R >= 32 and their words differ; padding is a strictly
// increasing map of words. Each word holds the flags of at most 32 / R positions, and 32
// consecutive positions (a warp's starts) spread over R words: fewer lanes contend for
// one word's lock. The host computes the same word count (planner/families/pttwac.cpp).
//
// Claim protocol. Bit p set = "position p is claimed: its original value is being
// carried by the claimant, and only the claimant writes p (after claiming it)".
//   (i)   the start value is read BEFORE the flag test of the start: if the test finds s
//         unclaimed, nobody has written s yet (writes follow claims), so the value read
//         is the original one;
//   (ii)  the value at nxt is read BEFORE the claim of nxt: if the claim succeeds,
//         nobody else ever writes nxt, so the value read is the original one;
//   (iii) the store to nxt comes AFTER the successful claim of nxt.
// A chain stops at its first failed claim: the winner of that position carries its value
// on. Every position of a non-trivial cycle is claimed exactly once (by the chain that
// reaches it first, from its start or from its predecessor) and written exactly once,
// with its predecessor's original value. mem_fence(global | local) enforces (i)-(iii)
// against compiler and hardware reordering: without them the authors' kernel failed in
// every run on a GPU that reorders this way (the start read sank below the test). All
// work-items of the tile are in one work-group, so work-group scope fences suffice. No
// work-item ever waits for another: the loop is lock-free and needs no barrier.
//
// Tiles whose flags do not fit local memory are not handled here: the host runs them as
// 0100! on (A, B, C, 1) with global flags (kernels/soa_asta.cl).

#define FLAG_SHIFT (5 - LOG2_SPREAD)

idx_t flag_word(idx_t p) {
  const idx_t w = p >> FLAG_SHIFT;
#if FLAG_PADDING
  return w + (w >> 5);
#else
  return w;
#endif
}

uint flag_bit(idx_t p) { return 1u << (uint)(p & 31); }

// Position r*C + c of a B x C tile -> c*B + r; never exceeds B*C (no overflow).
idx_t tile_successor(idx_t p, idx_t B, idx_t C) {
  const idx_t r = p / C;
  return (p - r * C) * B + r;
}

__kernel void ipt_pttwac_010(__global elem_t *buffer, idx_t offset, idx_t A, idx_t B,
                             idx_t C, idx_t flag_words, __local uint *flags SPLIT_PARAMS) {
  const matrix_t m = MATRIX(buffer, offset);
  const idx_t n = B * C;
  const idx_t lid = get_local_id(0);
  const idx_t wg = get_local_size(0);
  for (idx_t t = get_group_id(0); t < A; t += get_num_groups(0)) {
    const idx_t first = t * n;  // the tile's first element
    for (idx_t w = lid; w < flag_words; w += wg) flags[w] = 0;
    // Flags cleared for everyone; the previous tile's chains are all finished.
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (idx_t s = lid; s < n; s += wg) {
      idx_t nxt = tile_successor(s, B, C);
      if (nxt == s) continue;  // fixed point
      elem_t carry = AT(m, first + s);
      mem_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // (i) read, then test
      if (atomic_or(&flags[flag_word(s)], 0u) & flag_bit(s)) continue;
      for (;;) {
        const elem_t next_value = AT(m, first + nxt);
        mem_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // (ii) read, then claim
        const uint bit = flag_bit(nxt);
        if (atomic_or(&flags[flag_word(nxt)], bit) & bit) break;  // claimed by another
        mem_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // (iii) claim, then store
        AT(m, first + nxt) = carry;
        carry = next_value;
        nxt = tile_successor(nxt, B, C);
      }
    }
    // Every chain of this tile has ended before the flags are cleared for the next one.
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  }
}
