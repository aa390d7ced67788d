// The whole transposition in one pass, for a matrix small enough to be held on chip:
// every work-group loads its share of 32 x 32 tiles into registers, all groups wait at
// a grid barrier until every element has been read, then each group writes its tiles
// back transposed (through local memory, so that both the loads and the stores move
// whole 32-element rows). One read and one write of the matrix, against three to five
// passes for the elementary-transposition sequences, whose kernels on a matrix of a few
// million elements run far below their large-matrix speed.
//
// Why it cannot deadlock. A grid barrier needs every group resident at once, which
// OpenCL does not promise. So the groups first check that they are: each takes a ticket
// (arrivals, sync[0]); the group with ticket 0 waits, for at most `patience` polls, for
// `groups` tickets, then closes the poll (sets CLOSED in sync[0]) and decides:
//   GO     all groups took a ticket before the close: all are running now, and none
//          leaves before the barrier, so every one of them reaches it;
//   ABORT  otherwise: no group touches the matrix; groups arriving after the close see
//          CLOSED in their ticket and leave at once.
// Every wait is bounded or waits for a group that is running (the ticket-0 group's
// decision; the barrier after GO), so the kernel always ends. The host enqueues the
// regular plan after this kernel, each of its kernels skipping itself when sync[1] says
// GO (see `skip` in bs.cl, pttwac.cl and soa_asta.cl): a device that cannot run every
// group at once (a CPU, a GPU shared with other work) still gets its transposition.
//
// Why the writes cannot clobber unread data. A group announces "loaded" (sync[2]) only
// once every one of its loads has COMPLETED: a GPU keeps a load in flight past a barrier
// until its register is used (soa_asta.cl, (i)), so each work-item stores a value that
// depends on all of its loads to local memory first, then fences. No group writes
// before all `groups` have announced.
//
// Host-defined: WG (work-items per group, a divisor of 1024 and a multiple of 32),
// TILES (tiles each group can hold: TILES * 1024 / WG registers of elements per
// work-item) and STAGE (tiles staged in local memory per round of stores).

#define TS 32
#define PASSES (TS * TS / WG)  // rows of a tile each work-item covers
#define ROWS_PER_PASS (WG / TS)
#define REGS (TILES * PASSES)
#define CLOSED 0x80000000u
#define DECISION_GO 1u
#define DECISION_ABORT 2u

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void ipt_onchip(__global elem_t *buffer, idx_t offset, uint rows, uint cols, uint instances,
                uint per_round, volatile __global uint *scratch_base, ulong scratch_word,
                uint groups, uint patience) {
  volatile __global uint *sync = scratch_base + scratch_word;  // zeroed by the host
  __local elem_t stage[STAGE][TS][TS + 1];  // +1: column reads hit 32 different banks
  __local volatile uint sink[WG];
  __local uint decision;
  __global elem_t *data = buffer + offset;
  const uint lid = get_local_id(0);
  const uint r0 = lid / TS, c = lid - r0 * TS;

  if (lid == 0) {
    const uint ticket = atomic_inc(&sync[0]);
    uint d = DECISION_ABORT;
    if ((ticket & CLOSED) == 0) {
      if (ticket == 0) {
        // Polls with plain loads: atomics from every waiting group on one word slowed
        // the kernel several-fold on an H200.
        for (uint polls = 0; (sync[0] & ~CLOSED) < groups && polls < patience; ++polls) {
        }
        const uint arrived = atomic_or(&sync[0], CLOSED) & ~CLOSED;
        d = arrived == groups ? DECISION_GO : DECISION_ABORT;
        atomic_xchg(&sync[1], d);
      } else {
        while ((d = sync[1]) == 0) {  // the ticket-0 group is running: it decides soon
        }
      }
    }
    decision = d;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (decision != DECISION_GO) return;

  const uint tile_rows = (rows + TS - 1) / TS, tile_cols = (cols + TS - 1) / TS;
  const uint instance_tiles = tile_rows * tile_cols;
  const idx_t instance_elements = (idx_t)rows * cols;
  elem_t reg[REGS];
#pragma unroll
  for (int r = 0; r < REGS; ++r) reg[r] = (elem_t)(0);  // no unset value reaches the sink
  // Round k moves instances [k * per_round, ...): whole instances, so that a round's
  // stores land only where that round's loads came from.
  for (uint k = 0, i0 = 0; i0 < instances; ++k, i0 += per_round) {
    const uint total = min(per_round, instances - i0) * instance_tiles;
    const uint per_group = (total + groups - 1) / groups;  // <= TILES (checked by the host)
    const uint first = get_group_id(0) * per_group;
    const uint mine = first >= total ? 0 : min(per_group, total - first);
    // A group's tiles are consecutive: the walk from its first tile (instance i, tile
    // row ti, tile column tj) steps without divisions, which cost more than the moves.
    const uint i_first = first / instance_tiles, u_first = first - i_first * instance_tiles;
    const uint ti_first = u_first / tile_cols, tj_first = u_first - ti_first * tile_cols;

    uint consumed = 0;
    {
      __global const elem_t *src = data + (idx_t)(i0 + i_first) * instance_elements;
      uint ti = ti_first, tj = tj_first;
#pragma unroll
      for (int j = 0; j < TILES; ++j) {
        if ((uint)j < mine) {
#pragma unroll
          for (int p = 0; p < PASSES; ++p) {
            const uint row = ti * TS + (uint)p * ROWS_PER_PASS + r0, col = tj * TS + c;
            if (row < rows && col < cols) reg[j * PASSES + p] = src[row * cols + col];
          }
          if (++tj == tile_cols) {
            tj = 0;
            if (++ti == tile_rows) {
              ti = 0;
              src += instance_elements;
            }
          }
        }
      }
    }
    // Only now, with every load issued: a use right after each load would make the
    // work-item wait for one load before issuing the next.
#pragma unroll
    for (int r = 0; r < REGS; ++r) consumed ^= ELEM_WORD(reg[r]);
    sink[lid] = consumed;  // waits for every load (see above)
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (lid == 0) {
      atomic_inc(&sync[2]);
      while (sync[2] < groups * (k + 1)) {  // every group is running (GO)
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

    // Output element (orow, ocol) of an instance's cols x rows result is its input
    // (ocol, orow): tile (ti, tj) of the input is tile (tj, ti) of the output,
    // transposed in local memory.
    __global elem_t *dst = data + (idx_t)(i0 + i_first) * instance_elements;
    uint ti = ti_first, tj = tj_first;
#pragma unroll
    for (int base = 0; base < TILES; base += STAGE) {
      if ((uint)base < mine) {
#pragma unroll
        for (int jj = 0; jj < STAGE; ++jj) {
          if (base + jj < TILES && (uint)(base + jj) < mine) {
#pragma unroll
            for (int p = 0; p < PASSES; ++p)
              stage[jj][p * ROWS_PER_PASS + r0][c] =
                  reg[(base + jj < TILES ? base + jj : 0) * PASSES + p];
          }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int jj = 0; jj < STAGE; ++jj) {
          if (base + jj < TILES && (uint)(base + jj) < mine) {
#pragma unroll
            for (int p = 0; p < PASSES; ++p) {
              const uint orow = tj * TS + (uint)p * ROWS_PER_PASS + r0, ocol = ti * TS + c;
              if (orow < cols && ocol < rows)
                dst[orow * rows + ocol] = stage[jj][c][p * ROWS_PER_PASS + r0];
            }
            if (++tj == tile_cols) {
              tj = 0;
              if (++ti == tile_rows) {
                ti = 0;
                dst += instance_elements;
              }
            }
          }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
      }
    }
  }
}
