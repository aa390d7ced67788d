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
void ipt_onchip(__global elem_t *buffer, idx_t offset, uint rows, uint cols,
                volatile __global uint *scratch_base, ulong scratch_word, uint groups,
                uint patience) {
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

  const uint tile_cols = (cols + TS - 1) / TS;
  const uint total = ((rows + TS - 1) / TS) * tile_cols;
  const uint per_group = (total + groups - 1) / groups;  // <= TILES (checked by the host)
  const uint first = get_group_id(0) * per_group;
  const uint mine = first >= total ? 0 : min(per_group, total - first);

  elem_t reg[REGS];
  uint consumed = 0;
#pragma unroll
  for (int j = 0; j < TILES; ++j) {
    if ((uint)j < mine) {
      const uint t = first + (uint)j, ti = t / tile_cols, tj = t - ti * tile_cols;
#pragma unroll
      for (int p = 0; p < PASSES; ++p) {
        const uint row = ti * TS + (uint)p * ROWS_PER_PASS + r0, col = tj * TS + c;
        if (row < rows && col < cols) {
          reg[j * PASSES + p] = data[row * cols + col];
          consumed ^= ELEM_WORD(reg[j * PASSES + p]);
        }
      }
    }
  }
  sink[lid] = consumed;  // waits for every load (see above)
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (lid == 0) {
    atomic_inc(&sync[2]);
    while (sync[2] < groups) {  // every group is running (GO)
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

  // Output element (orow, ocol) of the cols x rows result is input (ocol, orow): tile
  // (ti, tj) of the input is tile (tj, ti) of the output, transposed in local memory.
#pragma unroll
  for (int base = 0; base < TILES; base += STAGE) {
    if ((uint)base < mine) {
#pragma unroll
      for (int jj = 0; jj < STAGE; ++jj) {
        if (base + jj < TILES && (uint)(base + jj) < mine) {
#pragma unroll
          for (int p = 0; p < PASSES; ++p)
            stage[jj][p * ROWS_PER_PASS + r0][c] = reg[(base + jj < TILES ? base + jj : 0) * PASSES + p];
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
      for (int jj = 0; jj < STAGE; ++jj) {
        if (base + jj < TILES && (uint)(base + jj) < mine) {
          const uint t = first + (uint)(base + jj), ti = t / tile_cols, tj = t - ti * tile_cols;
#pragma unroll
          for (int p = 0; p < PASSES; ++p) {
            const uint orow = tj * TS + (uint)p * ROWS_PER_PASS + r0, ocol = ti * TS + c;
            if (orow < cols && ocol < rows)
              data[orow * rows + ocol] = stage[jj][c][p * ROWS_PER_PASS + r0];
          }
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
}
