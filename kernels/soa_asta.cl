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
// one unit moves one item at a time, lane i handling elements i, i + VW, ... of the
// chunk (VW = work-group size: one unit per group, for large C). Units share the
// group's barriers: a lane never reads what another lane wrote except through a
// barrier (never assuming lock-step lanes: the authors' warp-synchronous 100! failed on
// an H200 in 15 of 63 runs). Loop trip counts are uniform over the work-group (rounds
// over starts depend only on the group id; chain steps continue while the group-wide
// count of live units, read after a barrier, is non-zero), so no barrier is divergent;
// finished units idle through the remaining steps.
//
// Tiling: REGS > 0 keeps a lane's elements in registers (private arrays of REGS
// elements, L <= REGS * VW, checked by the host); REGS == 0 keeps them in local memory
// (`tiles`: 2 * L elements per unit, host-sized).
//
// Claim protocol (same as kernels/pttwac.cl, with flags in GLOBAL memory shared by all
// work-groups; bit q set = item q claimed, only its claimant writes it, after claiming):
//   (i)   every lane reads the start item, then mem_fence(global) and a barrier, and
//         only then does lane 0 test the start's flag: if unclaimed at the test, nobody
//         (in any group) had written it, so all lanes hold the original value;
//   (ii)  every lane reads item nxt, fence + barrier, then lane 0 claims nxt with
//         atomic_or: a successful claim means nobody else ever writes nxt;
//   (iii) lane 0 publishes the claim result in local memory and a barrier (with a global
//         fence) separates the claim from every lane's store to nxt.
// Each item of a non-trivial cycle is claimed once and written once, with the original
// value of its predecessor. No group waits for another (lock-free; any scheduling order
// of work-groups is fine). Stale cached lines are harmless: a stale read returns an
// original value, and a chain holding a value whose item is already written loses its
// claim. The flags are zeroed by the host before the launch (clEnqueueFillBuffer).

#define WG (VW * UNITS)

idx_t item_successor(idx_t g, idx_t A, idx_t B) {
  const idx_t a = g / B;
  return (g - a * B) * A + a;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void ipt_soa_100(__global elem_t *buffer, idx_t offset, idx_t A, idx_t B, idx_t C,
                 idx_t L, idx_t K, idx_t total_items, __global uint *flags,
                 __local elem_t *tiles) {
  __local int claimed[UNITS];  // written by a unit's lane 0, read by its lanes
  __local int live[2];         // units whose claim succeeded at step parity 0 / 1
#if REGS > 0
  __local volatile uint start_sink[WG];  // see (i) below
#endif
  __global elem_t *data = buffer + offset;
  const idx_t lid = get_local_id(0);
  const idx_t unit = lid / VW;
  const idx_t lane = lid - unit * VW;
  const idx_t AB = A * B;
  const idx_t round_stride = (idx_t)get_num_groups(0) * UNITS;
#if REGS > 0
  elem_t carry[REGS], next_value[REGS];
#else
  __local elem_t *carry = tiles + unit * 2 * L;
  __local elem_t *next_value = carry + L;
#endif
  if (lid == 0) {
    live[0] = 0;
    live[1] = 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint step = 0;
  for (idx_t first = (idx_t)get_group_id(0) * UNITS; first < total_items; first += round_stride) {
    const idx_t q = first + unit;
    bool active = q < total_items;
    idx_t g = 0, nxt = 0, len = 0, item_base = 0;
    __global elem_t *chunk = data;  // element 0 of this item's chunk in super-element 0
    if (active) {
      g = q % AB;
      const idx_t kj = q / AB;        // k*K + j
      const idx_t k = kj / K;
      const idx_t j = kj - k * K;
      item_base = q - g;
      chunk = data + k * AB * C + j * L;
      len = min(L, C - j * L);
      nxt = item_successor(g, A, B);
      active = nxt != g;              // fixed points stay
    }
    // A start already claimed is not read: late in the rounds most starts have been
    // written by some chain, and reading them anyway doubled the reads. Each lane decides
    // alone (`skip`), while `active` stays the same for all lanes of the unit. That is
    // safe because flags are only ever set: a lane that saw the bit set knows that lane
    // 0's test (i), after the barrier below, sees it set too, so the unit goes inactive
    // and nobody stores the elements that lane skipped.
    bool skip = false;
    if (active) {
      const idx_t f = item_base + g;
      skip = (((volatile __global uint *)flags)[f >> 5] & (1u << (uint)(f & 31))) != 0;
    }
    if (active && !skip) {
      __global const elem_t *src = chunk + g * C;
#if REGS > 0
      uint consumed = 0;
#pragma unroll
      for (int r = 0; r < REGS; ++r) {
        const idx_t e = lane + (idx_t)r * VW;
        if (e < len) {
          carry[r] = src[e];
          consumed ^= ELEM_WORD(carry[r]);
        }
      }
      // (i) needs each start read COMPLETE, not merely issued, before lane 0 tests the
      // flag: a GPU keeps a load in flight past a barrier until its register is used, so
      // the read could be served after another group claimed and rewrote the item. A
      // store of a value that depends on every loaded element makes the lane wait for
      // them here. (Seen on an H200: one super-element wrong in a register-tiled 100!
      // of 2^24 elements; local tiling stores the values and never failed.)
      start_sink[lid] = consumed;
#else
      for (idx_t e = lane; e < len; e += VW) carry[e] = src[e];
#endif
    }
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);  // (i) all reads, then the test
    if (lane == 0) {
      if (active) {
        const idx_t f = item_base + g;
        const int ok = !(atomic_or(&flags[f >> 5], 0u) & (1u << (uint)(f & 31)));
        claimed[unit] = ok;
        if (ok) atomic_inc(&live[step & 1]);
      }
      if (lid == 0) live[(step + 1) & 1] = 0;  // last read before the previous barrier
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (active) active = claimed[unit] != 0;
    int any = live[step & 1];
    ++step;
    while (any) {
      if (active) {
        __global const elem_t *src = chunk + nxt * C;
#if REGS > 0
#pragma unroll
        for (int r = 0; r < REGS; ++r) {
          const idx_t e = lane + (idx_t)r * VW;
          if (e < len) next_value[r] = src[e];
        }
#else
        for (idx_t e = lane; e < len; e += VW) next_value[e] = src[e];
#endif
      }
      mem_fence(CLK_GLOBAL_MEM_FENCE);
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);  // (ii) all reads, then the claim
      if (lane == 0) {
        if (active) {
          const idx_t f = item_base + nxt;
          const uint bit = 1u << (uint)(f & 31);
          const int ok = !(atomic_or(&flags[f >> 5], bit) & bit);
          claimed[unit] = ok;
          if (ok) atomic_inc(&live[step & 1]);
        }
        if (lid == 0) live[(step + 1) & 1] = 0;
      }
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);  // (iii) the claim, then stores
      if (active) active = claimed[unit] != 0;
      if (active) {
        __global elem_t *dst = chunk + nxt * C;
#if REGS > 0
#pragma unroll
        for (int r = 0; r < REGS; ++r) {
          const idx_t e = lane + (idx_t)r * VW;
          if (e < len) {
            dst[e] = carry[r];
            carry[r] = next_value[r];
          }
        }
#else
        for (idx_t e = lane; e < len; e += VW) {
          dst[e] = carry[e];
          carry[e] = next_value[e];
        }
#endif
        nxt = item_successor(nxt, A, B);
      }
      any = live[step & 1];
      ++step;
    }
  }
}
