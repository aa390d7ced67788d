/* SPDX-License-Identifier: Apache-2.0 */
// The whole transposition in one pass, for a matrix small enough to be held on chip:
// every work-group loads its share of the tiles into registers, all groups wait at a
// grid barrier until every element has been read, then each group writes its tiles back
// transposed (through local memory, so that both the loads and the stores move whole
// tile rows). One read and one write of the matrix, against three to five
// passes for the elementary-transposition sequences, whose kernels on a matrix of a few
// million elements run far below their large-matrix speed.
//
// Why it cannot deadlock. A grid barrier needs every group resident at once, which
// OpenCL does not promise. So the barrier is also the check that they are: each group
// takes a ticket (sync[0]), reads its tiles (reading clobbers nothing) and announces
// "loaded" (sync[2]); the group with ticket 0 waits, for at most `patience` polls, for
// `groups` announcements and decides:
//   GO     all groups announced: every one has read its tiles, so every group may write
//          (every group holds a ticket, so none can come late: the tickets stay open);
//   ABORT  otherwise: it closes the tickets (sets CLOSED in sync[0]); no group writes a
//          tile; the groups that took a ticket before the close transpose the matrices
//          by cycle following instead (below), waiting only for one another; those
//          arriving after the close (they see CLOSED in their ticket) only read, which
//          clobbers nothing, and write nothing.
// Every wait is bounded or waits for groups that are running (the ticket-0 group's
// decision; the barriers of later rounds after GO; the fallback's barrier among the
// groups that took a ticket before the close), so the kernel always ends, with the
// matrices transposed either way: a device that cannot run every group at once (a CPU, a
// GPU shared with other work) gets the slow path, not a hang. One grid-wide wait, not
// two: an earlier version decided on the tickets before any load and then waited again
// for the loads, and its groups' reads could not overlap the wait for late groups.
//
// What holds it near 70% of the copy bandwidth (floats). Measured on a GPU, in part with
// rounds built without the rest of the kernel (every word stored back where it was
// loaded, two groups of 512 per compute unit, 20 words per work-item):
//   - the grid-wide wait of each round: rounds of linear chunks streamed at 86-88% of
//     copy with a barrier per group, at 69-71% with the wait (about 1.4 us a round,
//     whether the groups wait on one counter, on a flag the last one sets or on eight);
//   - the short runs each group loads: rounds of 32 x 32 tiles with a barrier per group
//     ran at 67-72% with ten tiles along a tile row per group, 67-68% in blocks of 2 x 5
//     tiles, 58-59% of 5 x 2, 51% with the tiles dealt to the groups in turn (on matrices
//     whose rows do not start on cache lines, so the next cause is in these too);
//   - rows that do not start on a cache line: a tile row, and an output row's share of a
//     tile, are 32 elements that then touch two lines. Instances whose rows and columns
//     fill whole 128-byte lines ran this kernel at 76-80% of copy (288 x 13696, 704 x 7168,
//     320 x 14592 floats), 5-10 points above their neighbours 294 x 13709, 710 x 7167 and
//     310 x 14601; output rows on lines gave 3-7 of those points, input rows 2-3.
// Tried and not kept (floats unless said):
//   - the wait left out: results wrong, and no faster on 11 shapes;
//   - the transpose left out (every element stored back where it was loaded): 62-77% of
//     copy on 10 shapes against 66-80%;
//   - the next round's tiles loaded as this round's left the registers: no faster;
//   - a group's tiles down tile columns (4% slower), or in blocks of 2 x 10 or 5 x 4
//     instead of a run of 20 along a tile row (1-8 points slower on 8 instances; doubles
//     in 2 x 5, 2-3): its long runs of loads matter more than the longer shares it then
//     stores. Those shares stored in aligned windows of 32 elements took 82-89 registers,
//     more than two groups of a unit hold;
//   - the next round's lines fetched into the cache: rounds alone, slower during the
//     stores, 2 points faster during the wait with one group per compute unit; here, with
//     the values kept to the round's end, 96 registers;
//   - each share stored in aligned 16-byte vectors, its ends element by element: 65% of
//     copy against 71-72%, 63-64% against 68-70%, likely because a share's lines are then
//     written by two instructions, not one;
//   - 8 tiles staged at a time instead of 5: no faster (doubles, 5 instead of 2: 2%
//     slower);
//   - the first tiles staged in local memory while work-item 0 waits, and round 0 decided
//     by every group from the count of announcements (no decision published by one
//     group): a median of 0.6% faster on 10 instances of the random protocol, two runs
//     each (from 2% slower to 3% faster), the protocol's median no faster;
//   - two teams (even and odd groups), each with its own grid-wide wait over half of the
//     instances, one starting half a round later, so that one streams while the other
//     waits: 4-6% and 13-14% slower on 43 x 177 x 12568 and 9 x 284 x 7791, 0-4% faster
//     on 8 other instances, the protocol's median no faster (doubles: 0.4% slower);
//   - narrow waits (below) in other forms: the counter where a group's range held more
//     than 64 groups: 2-10% faster on 9 of 10 instances of the random protocol but 16%
//     slower on 33 x 5997 x 532, whose groups all kept the counter; doubles from 13% slower
//     to 6% faster; 2-byte elements 1-12% slower. With the flag a plain store after the
//     counter's increment and one warp polling: wrong results on the GPU (right on a CPU
//     device), and up to 11 points slower on 8 of 10 instances. Each group choosing flags
//     or the counter by its own range: wrong results on the GPU (see "Narrow waits").
//     Flags in every round after round 0: 1.04-1.09 of the time on tall instances such as
//     16 x 6861 x 796, where every group's stores span the whole instance and all groups
//     poll every flag;
//   - 2-byte elements in blocks where the columns are odd, the second row of each block
//     loaded as two words shifted together: a median of 47% of copy on 10 instances, as
//     one by one; with 8 tiles a group instead of 10 (64 registers, no spill), no faster;
//   - blocks of 1- and 2-byte elements at any alignment (an output row that starts inside
//     a word stored in words that each join two staged blocks, the ends of its share of a
//     tile element by element; loads shifted at run time): 1-byte elements ran as fast
//     as in word tiles where neither rows nor columns are multiples of 4 (a median of
//     25.8% of copy against 25.3% on 11 instances of the random protocol), at 36%
//     against 28% where only the columns are (11 x 5997 x 1596), but aligned blocks at
//     31-33% against 46-48%; 2-byte elements with odd rows as fast as one by one (45%);
//   - taller tiles of 1024 elements (64 x 16, 128 x 8, 256 x 4), each built for its shape
//     with held tiles, so that an output row's share of a tile takes 256-1024 bytes, not
//     128: 9-10 on-chip stages of the random protocol (floats) took a median of 2.5%, 12%
//     and 12% longer, and the protocol's median fell 1.6% (64 x 16) and 4% (128 x 8);
//   - each tile's elements addressed from a pointer to its corner, at offsets computed once
//     (as the 100! kernel's chunks, where that saved a fifth of small stages' time): the
//     on-chip steps of 40 random shapes took 2.5% longer (0.96-1.07), the protocol's
//     median fell 1.5%;
//   - 4- and 8-byte elements in 2 x 2 blocks of 8- and 16-byte words, as 2-byte ones move
//     in blocks of 4-byte words (tiles of 64 x 32 elements, so that a round held as many
//     elements; where rows and columns are even): the on-chip steps of the 58 random f32
//     shapes that took them ran in a median of 1.000 of the time on an H200 (0.84-1.10:
//     0.84-0.88 on small steps at 44-55% of copy, most of them a split's last instance, up
//     to 1.10 on the fastest, at 70-76%), 1.004 on an H100; in tiles of 32 x 64, 1.016; doubles
//     1.017-1.023 (blocks stage 16-byte slots one tile at a time, element tiles three); the
//     random protocol's medians as before.
//   - shares dealt by arrival: each round after round 0 left every group all but 3 of
//     its tiles and dealt the rest, in chunks of 6 from a counter per round, to the groups
//     that finished the previous round first, so that no round waits for a slow group's
//     full share: the random protocol's shapes took a median of 1.008 of the time (floats,
//     which lose the narrow waits with it), 0.999 (doubles) and 1.010 (2-byte elements) on
//     an H100: it did not shorten the waits timed below.
//   - the next round's tiles prefetched into the L2 cache (prefetch.global.L2 of each tile
//     row's lines, a build for NVIDIA only) while the round waits: loads took 3.6 us
//     instead of 4.6 but the waits twice as long (timed as below), the on-chip steps of 7
//     random shapes 1.11-1.38 of the time, the random protocol's shapes 1.13 (floats) and
//     1.09 (doubles) on an H100; prefetched as the stores begin instead, 1.17-1.38.
// Timed by round (work-item 0 of each group reading the GPU's global timer, in a build for
// the measurement only; 23 rounds of 294 x 13709 floats on an H100, narrow waits): a
// group's loads took a median of 4.6 us (the slowest group's 6.2-7.3), its wait 3.2-4.4
// us (up to 13) and its stores 5.2 us: a quarter of a group's time goes to waiting for the
// slowest loads.
// Larger rounds help a little: with tiles held in local memory as well (HELD, below),
// rounds 1.4 times larger ran floats 1-2 points of copy faster, doubles 3. Fewer, fuller
// rounds of one matrix (other factors of its side) barely: 6762 x 13709 floats in 14
// rounds of 483 x 13709 took 0.274 ms, in 23 of 294 x 13709 0.278; 5997 x 17556 in 15
// rounds of 5997 x 399 0.310 ms, in 28 of 5997 x 627 0.309. So the waits, taken one by
// one, are not what the rounds lose; the narrow waits below save 2-3% of their time.
//
// Narrow waits (4-byte element tiles; the host defines IPT_FLAG_WORDS and IPT_FLAGS_AT).
// After round 0, where every group is known to run, a round's stores need only the groups
// whose tiles they overwrite to have loaded, and that is few groups where a group's tiles
// lie within a tile row (its output rows' shares then lie in a band of input rows) or an
// instance is a small part of the round. In such rounds each group, once its loads have
// completed (as below), sets its flag to the round's number by atomic exchange and waits
// only for the range of groups that overwritten_groups bounds, a work-item polling each;
// in the others it waits on the counter. The choice is the round's, the same in every
// group (its shape decides): a group on the counter could see it raised by groups on
// flags that went on to the next round. And every round raises the counter, so that a
// round on it after rounds on flags counts every group's loads of every round.
// Measured with floats (the on-chip steps of 30 random shapes, padded and swizzled tiles,
// against the counter alone): a median of 0.973 and 0.984 of the time in two runs
// (0.91-1.08; tall instances, on the counter, 1.00-1.03), the random protocol's shapes
// 0.992 (0.987 where the plan takes an on-chip 010! stage). A round on the counter after
// rounds on flags that did not raise it never ended. Doubles and narrower elements keep
// the counter: narrow waits were not found faster for them (above), and
// overwritten_groups bounds element tiles only, not words or blocks.
//
// Why the writes cannot clobber unread data. A group announces "loaded" (sync[2]) only
// once every one of its loads has COMPLETED: a GPU keeps a load in flight past a barrier
// until its register is used (soa_asta.cl, (i)), so each work-item stores a value that
// depends on all of its loads to local memory first, then fences. No group writes
// before all `groups` have announced.
//
// One command per call. Every command a call enqueues costs microseconds of host time
// while the GPU sits idle, more than this kernel's own run on a few million elements; so
// the kernel needs no fill and no kernel after it:
//   - its scratch is zero when it starts and zero again when it ends: the last group to
//     leave (sync[3] counts the groups that left) clears the words; the host keeps
//     such buffers only for such kernels
//     (runtime/scratch_cache.hpp) and hands one back only after a run that completed;
//   - `zero` words of another buffer (the flags of the call's next kernel, or those its
//     earlier kernels left set) are cleared by all groups on the way, so that no fill
//     is needed for them either.
//
// Host-defined: WG (work-items per group, a divisor of 1024 and a multiple of 32), TR x
// TC (the tile: 32 x 32, or narrower and longer for a matrix with few columns or rows;
// TR * TC = 1024, both powers of two of at most WG; or, with IPT_WORDS, the word tiles
// below; or, with IPT_RUNTIME_TILE, a kernel argument), TILES (tiles each group can hold
// in its registers), HELD (tiles it can hold in local memory as loaded, for rounds of
// more tiles than its registers hold: its first tiles of such a round, stored straight
// from there after the wait; element tiles and blocks only), STAGE (local slots beyond
// those: STAGE + HELD tiles are staged in local memory per round of stores), IPT_SWIZZLE
// (0: staged tiles of TR x (TC + 1), the padding column keeping column reads off one
// bank; 1: of TR x TC, each row's columns permuted instead, SWZ_COL of common.cl, which is
// conflict-free also for the skinny tiles and small elements where the padding column is
// not), IPT_WORDS (see below), IPT_CYCLES_ONLY (1: no tiles, every group straight to the
// cycle following below: the undo of an on-chip step whose inverse would need a program
// of its own, which runs only when a later command of its call fails, and which a
// driver translates in a fraction of a tile program's time).
//
// Narrow and short tiles (IPT_RUNTIME_TILE=1): one build for every shape, TC = tile_width a
// kernel argument and TR = 1024 / TC, so that skinny matrices of every width need one
// program (a GPU driver takes about half a second to translate each). The tile is as narrow
// (short) as the matrix, whatever its width: k < 32 columns in tiles of 1024 / k rows,
// which the columns fill, where tiles a power of two wide left up to 44% of every tile empty
// (9 columns in 16) and so of the registers that hold the matrix on chip. A tile holds TR *
// TC <= 1024 elements, and element q = p * WG + lid of a work-item's pass p is at tile row
// q / TC, column q % TC as loaded (rows of the matrix, TC long) and at q % TR, q / TR as
// stored (rows of the output, TR long); a work-item computes the four once. A work-item
// moves the same 1024 / WG registers per tile whatever its shape, so the registers stay
// unrolled. The staged tiles take STAGE_SLOTS elements each, room for the largest of the
// shapes: by rows, a slot of padding after every PAD_EVERY elements (128 bytes), as a 32 x
// 32 tile of floats pads its rows to 33, so that a tile takes at most 1055 slots of floats
// where a padding column took up to 1536 (512 x 3) and left room for fewer tiles held
// (HELD). The padding spreads the reads down a tile's columns over the banks. Staged by
// columns of an odd length instead, narrow tiles ran their kernel 5-15% slower (the loads'
// writes to local memory met in banks). (Never swizzled: the swizzle needs powers of two.)
//
// Word tiles (IPT_WORDS = 4 / IPT_ELEM_BYTES, for 1- and 2-byte elements; plans use them
// for 1-byte ones, planner/families/onchip.cpp says why). Moved one per work-item and
// register, narrow elements ran the kernel at the time per element of floats: a quarter
// (half) of the bytes per load, store and register. With words, every load and store of
// a tile moves an aligned 4-byte word, a register holds one, and no element takes a
// register of its own. A tile row starts anywhere in a word (its matrix's rows need not
// be a multiple of the word long), so the tile is one word narrower than the words each
// row loads: TCW aligned words always hold the row's TC = (TCW - 1) * IPT_WORDS elements,
// whatever its first element's place in its word (`shift`, kept per tile row as it was
// loaded). Likewise TR = (TRW - 1) * IPT_WORDS rows, so that the TR elements an output
// row takes from a tile lie in TRW aligned words: their inner words are stored whole, the
// two at the ends element by element (a neighbouring tile writes the rest of those), so
// no word is written by two work-items. Staged rows keep a padding word.
// These tiles run at about a quarter of the copy bandwidth, against two thirds for floats,
// and what they spend is instructions per byte, not local-memory traffic or registers
// (63-64 registers without spills; fewer tiles per group ran no faster). Staged by
// columns (an element per local store, two aligned local words shifted into each stored
// word), the kernel ran as fast as staged by rows; built so with a part left out (wrong
// results, timing only), it ran 3-9% faster with plain loads, 10-19% with each word staged
// by one store, 24-48% with plain whole-word stores and no ends, and at 45-53% of copy
// with all three. The versions that kept the result right ran slower: columns placed so
// that stored words lie on local words by 10%, every word of an output row stored whole
// by the tile where it starts (ends only at the row's ends) by 20%. Staged by columns in
// tiles of 124 x 124 (output rows of whole 128-byte lines, half as many tiles per group),
// the 40 shapes' on-chip stages ran 5% faster in median but 12 of them 10-20% slower, and
// the random protocol's u8 median rose 2% while its p90 fell 5%. 2-byte elements: 26-35%
// of copy in word tiles, 45% one per register.
//
// Blocks (IPT_BLOCK = 4 / IPT_ELEM_BYTES, for 1- and 2-byte elements where the matrix's
// rows are a multiple of IPT_BLOCK and it starts on a 4-byte word, as a split and its tail
// do; or IPT_BLOCK = 2 for 1-byte elements, in 2-byte words, where the rows are only even).
// One per work-item and register, 2-byte elements ran the kernel at the time per element of
// floats, half the bytes per load and store. An IPT_BLOCK x IPT_BLOCK block is IPT_BLOCK
// aligned words, one in each of its rows, and its transpose is the same words with their
// elements exchanged (element k of word j goes to element j of word k); so the kernel moves
// blocks as it moves 8- or 16-byte elements (rows, cols, TR and TC count blocks), every
// load and store a whole word, and transposes each block in registers as it stores it. Rows
// of any length: the last block column is short by IPT_BLOCK_SHORT elements, so a block's
// rows start PHASE(k) elements into a word and load as two words shifted together; the rows
// of the output (the columns, a multiple of IPT_BLOCK) always start on a word. 2 x 2 blocks
// of bytes ran the kernel at a median of 48% of copy where word tiles ran 27% (27 instances
// of the random protocol's shapes with even rows and columns); with odd columns, whose
// every other block row loads as two words, at 27-33% against 24-28% (13 instances), so the
// host keeps word tiles there.

#ifndef IPT_SWIZZLE
#define IPT_SWIZZLE 0
#endif
#ifndef IPT_WORDS
#define IPT_WORDS 1
#endif
#ifndef IPT_RUNTIME_TILE
#define IPT_RUNTIME_TILE 0
#endif
#ifndef IPT_BLOCK
#define IPT_BLOCK 1
#endif
#ifndef IPT_BLOCK_SHORT
#define IPT_BLOCK_SHORT 0
#endif
#ifndef HELD
#define HELD 0
#endif
#ifndef IPT_CYCLES_ONLY
#define IPT_CYCLES_ONLY 0
#endif
#if IPT_CYCLES_ONLY && (HELD > 0 || IPT_WORDS > 1 || IPT_BLOCK > 1 || IPT_RUNTIME_TILE)
#error "cycles only: elements one by one, the staged tiles' local memory holding the heads"
#endif
#if HELD > 0 && IPT_WORDS > 1
#error "held tiles: element tiles or blocks"
#endif
#if IPT_BLOCK > 1 && (IPT_BLOCK * IPT_ELEM_BYTES != 4 && IPT_BLOCK * IPT_ELEM_BYTES != 2 || \
                      IPT_WORDS > 1 || IPT_RUNTIME_TILE)
#error "blocks are of 2- or 4-byte words"
#endif
#if IPT_BLOCK_SHORT < 0 || IPT_BLOCK_SHORT >= IPT_BLOCK
#error "IPT_BLOCK_SHORT: fewer elements than a block"
#endif
#if IPT_WORDS > 1 && IPT_SWIZZLE
#error "word tiles stage with a padding word, not swizzled"
#endif
#if IPT_WORDS > 1 && IPT_RUNTIME_TILE
#error "word tiles have one shape"
#endif
#if IPT_SWIZZLE && IPT_RUNTIME_TILE
#error "narrow and short tiles stage padded"
#endif
#if IPT_RUNTIME_TILE
#define TILE_AREA 1024u
#define TC tile_width  // the kernel's argument: valid in its body only
#define TR runtime_tr  // TILE_AREA / TC, computed once in the kernel's body
#endif
#if IPT_WORDS > 1 && IPT_WORDS * IPT_ELEM_BYTES != 4
#error "IPT_WORDS elements make one 4-byte word"
#endif
#if IPT_WORDS > 1
typedef uint reg_t;
#define REG_WORD(v) (v)
#define TCW (TC / IPT_WORDS + 1)              // aligned words a tile row loads
#define TRW (TR / IPT_WORDS + 1)              // aligned words of an output row's share of a tile
#define LR (TRW * IPT_WORDS)                  // rows loaded and staged (those from TR on: none)
#define STAGE_WORDS (TCW + 1)                 // words per staged row
#define STAGE_COLS (STAGE_WORDS * IPT_WORDS)  // elements per staged row
#define STAGED(r, c) (c)
#else
#if IPT_BLOCK == 2 && IPT_ELEM_BYTES == 1
typedef ushort2 reg_t;  // a 2 x 2 block of bytes: .x the word of its top row, .y of its bottom
#define REG_WORD(v) ((uint)((v).x ^ (v).y))
#elif IPT_BLOCK == 2
typedef uint2 reg_t;  // a 2 x 2 block: .x the word of its top row, .y of its bottom row
#define REG_WORD(v) ((v).x ^ (v).y)
#elif IPT_BLOCK == 4
typedef uint4 reg_t;  // a 4 x 4 block: .x, .y, .z, .w the words of its rows
#define REG_WORD(v) ((v).x ^ (v).y ^ (v).z ^ (v).w)
#else
typedef elem_t reg_t;
#define REG_WORD(v) ELEM_WORD(v)
#endif
#define TCW TC
#define TRW TR
#define LR TR
#if IPT_SWIZZLE
#define STAGE_COLS TC
#define STAGED(r, c) SWZ_COL(r, c, TR, TC)
#else
#define STAGE_COLS (TC + 1)
#define STAGED(r, c) (c)
#endif
#endif
#if IPT_RUNTIME_TILE
#define PASSES (TILE_AREA / WG)  // registers of a tile each work-item moves
#else
#define PASSES (LR * TCW / WG)
#define STAGE_SLOTS (LR * STAGE_COLS)  // elements of a staged tile
#endif
#define LOAD_ROWS (WG / TCW)    // tile rows per pass of loads
#define STORE_COLS (WG / TRW)   // tile columns (output rows) per pass of stores
// Where a work-item's element of pass p lies in a tile: at LOAD_ROW, LOAD_COL as loaded
// (a pass covers LOAD_ROWS whole tile rows), at STORE_ROW, STORE_COL as stored (STORE_COLS
// whole tile columns, which are rows of the output), if IN_TILE (narrow and short tiles:
// see above). Word tiles: LOAD_COL and STORE_ROW count words.
#if IPT_RUNTIME_TILE
#define LOAD_ROW(p) load_row[p]
#define LOAD_COL(p) load_col[p]
#define STORE_ROW(p) store_row[p]
#define STORE_COL(p) store_col[p]
#define IN_TILE(p) ((uint)(p) * WG + lid < tile_elements)
#else
#define LOAD_ROW(p) ((uint)(p) * LOAD_ROWS + lr)
#define LOAD_COL(p) lc
#define STORE_ROW(p) sr
#define STORE_COL(p) ((uint)(p) * STORE_COLS + sc)
#define IN_TILE(p) 1
#endif
#define REGS (TILES * PASSES)
// The fallback's heads per work-item: what the stage array holds (it keeps them there).
#define SLOTS (STAGE * STAGE_SLOTS / WG)
#define BATCH (STAGE + HELD)  // tiles staged at a time: the held ones are stored by then
#define CLOSED 0x80000000u
#define DECISION_GO 1u
#define DECISION_ABORT 2u
#define SYNC_WORDS 5  // tickets, decision, loaded, left, arrived at the fallback's barrier
// Narrow waits (4-byte element tiles; see "Narrow waits" above): IPT_FLAG_WORDS flags, one
// per group, from word IPT_FLAGS_AT of the scratch on (host-defined: past the line of the
// sync words, which the waits on the counter poll).
#ifndef IPT_FLAG_WORDS
#define IPT_FLAG_WORDS 0
#define IPT_FLAGS_AT SYNC_WORDS
#endif
#if IPT_FLAGS_AT < SYNC_WORDS
#error "the flags after the sync words"
#endif
#define NARROW_WAIT                                                                 \
  (IPT_ELEM_BYTES == 4 && IPT_WORDS == 1 && IPT_BLOCK == 1 && !IPT_RUNTIME_TILE && \
   !IPT_CYCLES_ONLY && IPT_FLAG_WORDS > 0)
#define FLAG_WORDS (NARROW_WAIT ? IPT_FLAG_WORDS : 0)

// Within an instance, element p = r * cols + c (row r, column c) goes to c * rows + r.
// An instance holds fewer than 2^32 elements (the host checks), so 32-bit arithmetic.
uint onchip_next(uint p, uint rows, uint cols) {
  const uint r = p / cols;
  return (p - r * cols) * rows + r;
}

#if IPT_WORDS > 1
// Word tiles: where element t of a word sits in it.
#ifdef __ENDIAN_LITTLE__
#define ELEM_SHIFT(t) ((t) * 8 * IPT_ELEM_BYTES)
#else
#define ELEM_SHIFT(t) ((IPT_WORDS - 1 - (t)) * 8 * IPT_ELEM_BYTES)
#endif
#if IPT_SPLIT
#define RUN(m, first, last) run_of(m, first, last)
#else
#define RUN(m, first, last) ((m).data + (first))
#endif
// Elements past a 4-byte boundary where p points.
#define MISALIGNED(p) ((uint)((size_t)(p) % 4) / IPT_ELEM_BYTES)

// Aligned word k of those around the tile row whose first element is e (k = 0: the word
// that holds e, `s` elements past its start): whole where it lies in the matrix and on
// one side of a split; else its elements that do, one by one, the others 0. Elements
// outside the tile row are read but never used (before the grid barrier nothing is
// written; after it, a word may hold elements another group writes, which nothing uses).
reg_t load_word(matrix_t m, idx_t e, uint s, uint k, idx_t end) {
  const idx_t from = e + k * IPT_WORDS;  // + s: the word's first element, e - s + k * WORDS
  if (from >= s && end - (from - s) >= IPT_WORDS) {
    __global const elem_t *run = RUN(m, from - s, from - s + IPT_WORDS - 1);
    if (run != 0 && MISALIGNED(run) == 0) return *(__global const uint *)run;
  }
  reg_t v = 0;
  for (uint t = 0; t < IPT_WORDS; ++t)
    if (from + t >= s && from + t - s < end) v |= (reg_t)AT(m, from + t - s) << ELEM_SHIFT(t);
  return v;
}

// Word q of the TRW aligned words around an output row's `valid` elements from element d
// (`s` elements past a word's start): the element at position i of the segment is that
// of staged row i, at element column[i * STAGE_COLS + shift[i]] (its row's place in its
// words). A whole word is stored as one; one at an end of the segment, element by element.
void store_word(matrix_t m, idx_t d, uint s, uint q, uint valid, __local const elem_t *column,
                __local const uchar *shift) {
  const int first = (int)(q * IPT_WORDS) - (int)s;
  if (first >= 0 && (uint)first + IPT_WORDS <= valid) {
    __global elem_t *run = RUN(m, d + (uint)first, d + (uint)first + IPT_WORDS - 1);
    if (run != 0 && MISALIGNED(run) == 0) {
      uint v = 0;
      for (uint t = 0; t < IPT_WORDS; ++t) {
        const uint i = (uint)first + t;
        v |= (uint)column[i * STAGE_COLS + shift[i]] << ELEM_SHIFT(t);
      }
      *(__global uint *)run = v;
      return;
    }
  }
  for (int t = 0; t < IPT_WORDS; ++t) {
    const int i = first + t;
    if (i >= 0 && (uint)i < valid) AT(m, d + (uint)i) = column[(uint)i * STAGE_COLS + shift[i]];
  }
}
#endif

#if IPT_BLOCK > 1
// The elements of each input row: rows, cols and TC count blocks.
#define BLOCK_ROW_ELEMENTS(cols) (IPT_BLOCK * (cols) - IPT_BLOCK_SHORT)
// Where row k of a block starts in its word: k * n % IPT_BLOCK for rows of n elements,
// known here since n = IPT_BLOCK * cols - IPT_BLOCK_SHORT and a block row starts on a word.
#define PHASE(k) ((k) * (IPT_BLOCK - IPT_BLOCK_SHORT) % IPT_BLOCK)
#define ELEM_BITS (8 * IPT_ELEM_BYTES)
// A block's row: a 4-byte word, or a 2-byte one for 2 x 2 blocks of bytes.
#if IPT_BLOCK * IPT_ELEM_BYTES == 2
typedef ushort word_t;
#else
typedef uint word_t;
#endif
#define LOW_ELEM ((1u << ELEM_BITS) - 1)  // the bits of a word's lowest element

// The matrix as words. Split (IPT_SPLIT): the host splits it on a word and starts the
// tail on one, so that every word lies on one side; the side is chosen per word.
#if IPT_SPLIT
typedef struct {
  __global word_t *data;
  __global word_t *tail;
  idx_t split;  // in words
} words_t;
#define WORDS_OF(m) ((words_t){(__global word_t *)(m).data, (__global word_t *)(m).tail, \
                               (m).split / IPT_BLOCK})
#define WORD(ws, w) SPLIT_AT((ws).data, (ws).tail, (ws).split, w)
#else
typedef __global word_t *words_t;
#define WORDS_OF(m) ((__global word_t *)(m).data)
#define WORD(ws, w) ((ws)[w])
#endif

// Row k of the block whose row 0 starts on word `top` and column c (elements), in rows of
// n elements: a word, or two shifted together; elements past the row's end are of the
// next row or 0, never loaded from past its last word (the store skips them).
word_t load_block_row(words_t words, idx_t top, uint n, uint k, uint c) {
  const uint s = PHASE(k);
  const idx_t w = top + (k * n - s) / IPT_BLOCK;
  if (s == 0) return WORD(words, w);
  const uint lo = WORD(words, w), hi = c + IPT_BLOCK - s < n ? WORD(words, w + 1) : 0;
#ifdef __ENDIAN_LITTLE__
  return (word_t)((lo >> (ELEM_BITS * s)) | (hi << (ELEM_BITS * (IPT_BLOCK - s))));
#else
  return (word_t)((lo << (ELEM_BITS * s)) | (hi >> (ELEM_BITS * (IPT_BLOCK - s))));
#endif
}

reg_t load_block(words_t words, idx_t top, uint n, uint c) {
#if IPT_BLOCK == 2
  return (reg_t)(load_block_row(words, top, n, 0, c), load_block_row(words, top, n, 1, c));
#else
  return (reg_t)(load_block_row(words, top, n, 0, c), load_block_row(words, top, n, 1, c),
                 load_block_row(words, top, n, 2, c), load_block_row(words, top, n, 3, c));
#endif
}

// The transpose of block v: its rows k < valid stored from `top`, `row` words apart.
void store_block(words_t words, idx_t top, uint row, reg_t v, uint valid) {
#if IPT_BLOCK == 2
  const uint x = v.x, y = v.y;
#if defined(__ENDIAN_LITTLE__)
  const word_t out[2] = {(word_t)((x & LOW_ELEM) | (y << ELEM_BITS)),
                         (word_t)((x >> ELEM_BITS) | (y & (LOW_ELEM << ELEM_BITS)))};
#else
  const word_t out[2] = {(word_t)((x & (LOW_ELEM << ELEM_BITS)) | (y >> ELEM_BITS)),
                         (word_t)((x << ELEM_BITS) | (y & LOW_ELEM))};
#endif
#elif defined(__ENDIAN_LITTLE__)
  // Bytes first exchanged within pairs of rows, then halves: b0 of each row to row 0, ...
  const uint t0 = (v.x & 0x00FF00FFu) | ((v.y << 8) & 0xFF00FF00u);
  const uint t1 = ((v.x >> 8) & 0x00FF00FFu) | (v.y & 0xFF00FF00u);
  const uint t2 = (v.z & 0x00FF00FFu) | ((v.w << 8) & 0xFF00FF00u);
  const uint t3 = ((v.z >> 8) & 0x00FF00FFu) | (v.w & 0xFF00FF00u);
  const uint out[4] = {(t0 & 0xFFFFu) | (t2 << 16), (t1 & 0xFFFFu) | (t3 << 16),
                       (t0 >> 16) | (t2 & 0xFFFF0000u), (t1 >> 16) | (t3 & 0xFFFF0000u)};
#else
  const uint in[4] = {v.x, v.y, v.z, v.w};
  uint out[4];
  for (uint k = 0; k < 4; ++k) {
    out[k] = 0;
    for (uint j = 0; j < 4; ++j) out[k] |= ((in[j] >> (24 - 8 * k)) & 0xFFu) << (24 - 8 * j);
  }
#endif
UNROLL
  for (uint k = 0; k < IPT_BLOCK; ++k)
    if (IPT_BLOCK_SHORT == 0 || k < valid) WORD(words, top + k * row) = out[k];
}
#endif

// The ABORT path: the permutation's cycles, followed by the groups that took a ticket
// before the close (the participants, numbered by their tickets): each of them runs, so
// they may wait for one another, though not for the groups that came too late (those
// only leave). No flag per element: the cycles are cut into segments at fixed heads,
// the positions of each instance that are multiples of `stride` (a power of two, as
// small as lets the participants' SLOTS slots per work-item hold every instance's heads,
// or a batch of whole instances at a time). For each batch:
//   1. every work-item reads the heads it holds (head k in slot k / items of work-item
//      k mod items); a barrier among the participants (the reads COMPLETED first:
//      stored to `sink`, as for the loads of round 0);
//   2. the work-item of head h moves the segment from h: h's value to its successor,
//      whose value to the next, ... until the next head, which takes the last carried
//      value (its own is held by its work-item). A segment's other elements are read
//      and written by this work-item alone.
// Batches touch different instances, so one needs nothing of another. Then
//   3. a cycle without a head is moved whole by the work-item whose start is its
//      smallest element (the test walks the cycle by arithmetic alone, stopping at a
//      smaller element or a head); a fixed point so "moves" onto itself.
// Each element is thus written by exactly one work-item, after its value was read, and
// no order between groups is needed beyond the barriers; no scratch beyond `arrived`.
void follow_cycles(matrix_t m, uint rows, uint cols, uint instances, uint participant,
                   uint participants, volatile __global uint *arrived,
                   __local volatile uint *sink, __local elem_t *held) {
  const uint n = rows * cols;
  const uint items = participants * WG;
  const uint me = participant * WG + get_local_id(0);
  const ulong capacity = (ulong)items * SLOTS;
  uint stride = 1;
  while (stride < n && (ulong)instances * ((n - 1) / stride + 1) > capacity) stride *= 2;
  const uint mask = stride - 1;
  const uint per_instance = (n - 1) / stride + 1;  // <= capacity
  const uint batch = (uint)min((ulong)instances, max(capacity / per_instance, (ulong)1));
  // `held`: SLOTS values per work-item, in the local memory that stages the tiles (free
  // now). Not registers: PoCL keeps a copy of what a work-item holds across barriers for
  // each of its 1024 work-items on one thread's stack, and a private array here, indexed
  // in a loop, took that stack from 1.3 to 10 MB (past the 8 MB of a thread). The loops
  // are not unrolled: unrolled, they doubled the time PoCL takes to build the kernel, for
  // a path GPUs seldom take.
  for (uint i0 = 0, round = 1; i0 < instances; i0 += batch, ++round) {
    const uint heads = min(batch, instances - i0) * per_instance;
    uint consumed = 0;
#pragma unroll 1
    for (uint j = 0; j < SLOTS; ++j) {
      const uint k = j * items + me;
      const uint i = i0 + k / per_instance, p = (k % per_instance) * stride;
      const elem_t v = k < heads ? AT(m, (idx_t)i * n + p) : (elem_t)(0);
      held[j * WG + get_local_id(0)] = v;
      consumed ^= ELEM_WORD(v);
    }
    *sink = consumed;  // (1) the reads completed
    mem_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
      atomic_inc(arrived);
      while (*arrived < participants * round) {  // every participant runs
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
#pragma unroll 1
    for (uint j = 0; j < SLOTS; ++j) {  // (2)
      const uint k = j * items + me;
      if (k < heads) {
        const uint i = i0 + k / per_instance;
        const idx_t base = (idx_t)i * n;
        elem_t carry = held[j * WG + get_local_id(0)];
        for (uint x = (k % per_instance) * stride;;) {
          const uint nxt = onchip_next(x, rows, cols);
          if ((nxt & mask) == 0) {
            AT(m, base + nxt) = carry;
            break;
          }
          const elem_t next_value = AT(m, base + nxt);
          AT(m, base + nxt) = carry;
          carry = next_value;
          x = nxt;
        }
      }
    }
  }
  if (stride == 1) return;  // every element is a head
  for (idx_t g = me; g < (idx_t)instances * n; g += items) {  // (3)
    const idx_t i = g / n;
    const uint p = (uint)(g - i * n);
    if ((p & mask) == 0) continue;
    uint x = p;
    do x = onchip_next(x, rows, cols);
    while (x > p && (x & mask) != 0);
    if (x != p) continue;  // not the smallest element of a cycle without heads
    const idx_t base = i * n;
    elem_t carry = AT(m, base + p);
    do {
      const uint nxt = onchip_next(x, rows, cols);
      const elem_t next_value = AT(m, base + nxt);
      AT(m, base + nxt) = carry;
      carry = next_value;
      x = nxt;
    } while (x != p);
  }
}

// Round 0's check that every group runs (run by work-item 0 of each group, after its
// group announced its loads in sync[2]): the ticket-0 group polls, at most `patience`
// times, for all `groups` announcements, closes the tickets unless all came, and
// publishes the decision; the others wait for it. Returns the decision, with the number of
// groups that run (all, or those whose tickets came before the close) in its bits from 2 on.
uint decide(volatile __global uint *sync, uint ticket, uint groups, uint patience) {
  if (ticket != 0) {
    uint d;
    while ((d = sync[1]) == 0) {  // the ticket-0 group is running: it decides soon
    }
    return d;
  }
  // Plain loads: atomics from every waiting group on one word serialise at that word and
  // slowed the kernel several-fold.
  uint loaded = 0;
  for (uint polls = 0; (loaded = sync[2]) < groups && polls < patience; ++polls) {
  }
  // Every group announced, so every group holds a ticket taken before this: no group can
  // arrive late, and closing the tickets (two more round trips to the word) is needless.
  if (loaded == groups) {
    const uint d = DECISION_GO | groups << 2;
    atomic_xchg(&sync[1], d);
    return d;
  }
  const uint running = atomic_or(&sync[0], CLOSED);  // from now on a ticket says CLOSED
  const uint d = (atomic_or(&sync[2], 0u) == groups ? DECISION_GO : DECISION_ABORT) |
                 running << 2;  // one word: the decision and the count arrive together
  atomic_xchg(&sync[1], d);
  return d;
}

// Every group's last step: the last one out (all others have made their last access to
// the scratch) zeroes it, so that the next kernel given this buffer finds it as this one
// did. Sets *last_out for the whole group.
void leave(volatile __global uint *sync, __local uint *last_out) {
  const uint lid = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);  // every work-item of the group done
  if (lid == 0) {
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    *last_out = atomic_inc(&sync[3]) == get_num_groups(0) - 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (*last_out == 0) return;
  if (lid < SYNC_WORDS) sync[lid] = 0;
  const uint flags = min((uint)get_num_groups(0), (uint)FLAG_WORDS);
  for (uint w = lid; w < flags; w += get_local_size(0)) sync[IPT_FLAGS_AT + w] = 0;
}

#if NARROW_WAIT
// The groups whose tiles hold what the stores of tile t (of the round's tiles, `per_group`
// a group) overwrite, as a range [*lo, *hi] of group ids that may hold more. The tile's
// output rows cover the elements [a, b] of its instance; in the input those lie in rows
// ra to rb, and so in tiles from tile row ra / TR to rb / TR (all of their columns where
// ra < rb).
void overwritten_groups(uint t, uint rows, uint cols, uint tile_cols, uint instance_tiles,
                        uint per_group, uint *lo, uint *hi) {
  const uint i = t / instance_tiles, u = t - i * instance_tiles;
  const uint ti = u / tile_cols, tj = u - ti * tile_cols;
  const uint a = tj * TC * rows + ti * TR;
  const uint b = (min(cols, tj * TC + TC) - 1) * rows + min(rows, ti * TR + TR) - 1;
  const uint ra = a / cols, rb = b / cols;
  const uint first = ra / TR * tile_cols + (ra == rb ? (a - ra * cols) / TC : 0);
  const uint last = rb / TR * tile_cols + (ra == rb ? (b - rb * cols) / TC : tile_cols - 1);
  *lo = (i * instance_tiles + first) / per_group;
  *hi = (i * instance_tiles + last) / per_group;
}
#endif

// In the kernel: the value (element or block) at row, col of the instance at `src`, and
// the store of v at output row orow, column ocol of the instance at `dst`.
#if IPT_BLOCK > 1
#define LOAD_AT(row, col)                                                             \
  load_block(words, src + (idx_t)((row) * row_elements + (col)), row_elements, \
             IPT_BLOCK * (col))
#define STORE_AT(orow, ocol, v)                                                          \
  store_block(words, dst + (idx_t)(IPT_BLOCK * (orow) * rows + (ocol)), rows, v, \
              row_elements - IPT_BLOCK * (orow))
#else
#define LOAD_AT(row, col) AT(m, src + (idx_t)((row) * cols + (col)))
#define STORE_AT(orow, ocol, v) AT(m, dst + (idx_t)((orow) * rows + (ocol))) = (v)
#endif
// The walk over a group's consecutive tiles: the next tile (ti, tj), of the next instance
// (`first` its first element) after the last tile of one.
#define NEXT_TILE(first)         \
  if (++tj == tile_cols) {       \
    tj = 0;                      \
    if (++ti == tile_rows) {     \
      ti = 0;                    \
      first += instance_elements; \
    }                            \
  }

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void ipt_onchip(__global elem_t *buffer, idx_t offset, uint rows, uint cols, uint instances,
                uint per_round, uint tile_width, volatile __global uint *scratch_base,
                ulong scratch_word, uint groups, uint patience, __global uint *zero_base,
                ulong zero_word, ulong zero_words, __global uint *report SPLIT_PARAMS) {
  volatile __global uint *sync = scratch_base + scratch_word;  // zero: see above
#if IPT_WORDS > 1
  __local uint stage[STAGE][LR][STAGE_WORDS];
  __local uchar shift[TILES][LR];  // where each tile row starts in its words, as loaded
#define STAGE_AT(jj, r, c) (((__local elem_t *)stage[jj][r])[c])
#define STAGE_SLOT(jj, r, c) stage[jj][r][c]  // word c of staged row r
#elif IPT_RUNTIME_TILE
  // Padded by 128 bytes (see above); the first HELD slots as below.
  __local elem_t stage[BATCH][STAGE_SLOTS];
#define PAD_EVERY (128 / IPT_ELEM_BYTES)
#define PADDED(x) ((x) + (x) / PAD_EVERY)
#define STAGE_SLOT(jj, r, c) stage[jj][PADDED((r) * TC + (c))]
#else
  // Padded or swizzled (see IPT_SWIZZLE); its first HELD slots hold tiles from their loads
  // to their stores, then all of them stage.
  __local reg_t stage[BATCH][TR][STAGE_COLS];
#define STAGE_SLOT(jj, r, c) stage[jj][r][STAGED(r, c)]
#endif
  __local volatile uint sink[WG];
  __local uint ticket_of_group, decision, running, last_out;
#if NARROW_WAIT
  // Round k's range of groups to wait for, in slot k % 2: filled by the round's loads,
  // read after their barrier, when work-item 0 clears the other slot for the next round.
  __local uint wait_lo[2], wait_hi[2];
  volatile __global uint *flags = sync + IPT_FLAGS_AT;  // group g's: the last round it loaded
#endif
  const matrix_t m = MATRIX(buffer, offset);  // every access: AT (common.cl)
#if IPT_BLOCK > 1
  const words_t words = WORDS_OF(m);  // on a word (host-checked)
#endif
  const uint lid = get_local_id(0);
#if IPT_RUNTIME_TILE
  const uint runtime_tr = TILE_AREA / tile_width, tile_elements = runtime_tr * tile_width;
  uint load_row[PASSES], load_col[PASSES], store_row[PASSES], store_col[PASSES];
UNROLL
  for (int p = 0; p < PASSES; ++p) {
    const uint q = (uint)p * WG + lid;
    load_row[p] = q / TC;
    load_col[p] = q - load_row[p] * TC;
    store_col[p] = q / TR;
    store_row[p] = q - store_col[p] * TR;
  }
#else
  // A pass's place in a tile (LOAD_ROW and the others above).
  const uint lr = lid / TCW, lc = lid - lr * TCW;
  const uint sc = lid / TRW, sr = lid - sc * TRW;
#endif

  // The ticket is taken on arrival, but its value is needed only once round 0's loads are
  // issued: work-item 0 reads it then, so that no group waits for the atomic's round trip
  // before loading. A group that finds CLOSED in it has only read (which clobbers nothing)
  // and then neither announces nor writes.
  uint my_ticket = 0;
  if (lid == 0) {
    my_ticket = atomic_inc(&sync[0]);
    decision = DECISION_ABORT;  // stays so for a group that arrives after the close
  }
#if IPT_CYCLES_ONLY
  // The permutation's cycles alone, by the groups whose tickets come before the ticket-0
  // group decides (all of them when all run), with no tile in registers or local memory.
  if (lid == 0) {
    ticket_of_group = my_ticket;
    if ((my_ticket & CLOSED) == 0) {
      atomic_inc(&sync[2]);
      running = decide(sync, my_ticket, groups, patience) >> 2;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if ((ticket_of_group & CLOSED) == 0)
    follow_cycles(m, rows, cols, instances, ticket_of_group, running, &sync[4], &sink[lid],
                  (__local elem_t *)stage);
#else
  {
    const uint tile_rows = (rows + TR - 1) / TR, tile_cols = (cols + TC - 1) / TC;
    const uint instance_tiles = tile_rows * tile_cols;
#if IPT_BLOCK > 1
    const uint row_elements = BLOCK_ROW_ELEMENTS(cols);
    const idx_t instance_elements = (idx_t)rows * row_elements;  // of words: src, dst
#else
    const idx_t instance_elements = (idx_t)rows * cols;
#endif
#if IPT_WORDS > 1
    const idx_t end = (idx_t)instances * instance_elements;  // the matrix's end
#endif
    reg_t reg[REGS];
UNROLL
    for (int r = 0; r < REGS; ++r) reg[r] = (reg_t)(0);  // no unset value reaches the sink
    // Round k moves instances [k * per_round, ...): whole instances, so that a round's
    // stores land only where that round's loads came from.
    for (uint k = 0, i0 = 0; i0 < instances; ++k, i0 += per_round) {
      const uint round_tiles = min(per_round, instances - i0) * instance_tiles;
      const uint per_group = (round_tiles + groups - 1) / groups;  // <= HELD + TILES (host)
      const uint first = get_group_id(0) * per_group;
      const uint mine = first >= round_tiles ? 0 : min(per_group, round_tiles - first);
#if NARROW_WAIT
      // After round 0, the round waits on flags or on the counter, the same way in every
      // group (see "Narrow waits" above): on flags where a group's tiles lie within a tile
      // row (tile rows of at least twice its tiles) or the round holds 4 instances or more.
      const bool flagged = k > 0 && get_num_groups(0) <= FLAG_WORDS &&
                           (tile_cols >= 2 * per_group || min(per_round, instances - i0) >= 4);
#else
      const bool flagged = false;
#endif
      // Of those, the first in_local are held in local memory: only what the registers do
      // not hold, so that rounds the registers hold (whole small matrices) go without.
#if HELD > 0
      const uint in_local = min(per_group > TILES ? per_group - TILES : 0u, mine);
#else
      const uint in_local = 0;
#endif
      // A group's tiles are consecutive: the walk from its first tile (instance i, tile
      // row ti, tile column tj) steps without divisions, which cost more than the moves.
      const uint i_first = first / instance_tiles, u_first = first - i_first * instance_tiles;
      const uint ti_first = u_first / tile_cols, tj_first = u_first - ti_first * tile_cols;

      uint consumed = 0;
      {
        // The current instance's first element; an index within an instance is a uint.
        idx_t src = (idx_t)(i0 + i_first) * instance_elements;
        uint ti = ti_first, tj = tj_first;
#if HELD > 0
        // The held tiles first, while `reg` holds nothing live (it is cleared after them):
        // their loads take registers of their own only until they land in local memory.
        {
          reg_t h[HELD * PASSES];
UNROLL
          for (int j = 0; j < HELD; ++j) {
UNROLL
            for (int p = 0; p < PASSES; ++p) {
              const uint row = ti * TR + LOAD_ROW(p), col = tj * TC + LOAD_COL(p);
              h[j * PASSES + p] = (reg_t)(0);
              if ((uint)j < in_local && IN_TILE(p) && row < rows && col < cols)
                h[j * PASSES + p] = LOAD_AT(row, col);
            }
            if ((uint)j < in_local) NEXT_TILE(src)
          }
UNROLL
          for (int j = 0; j < HELD; ++j)
            if ((uint)j < in_local) {
UNROLL
              for (int p = 0; p < PASSES; ++p)
                if (IN_TILE(p)) STAGE_SLOT(j, LOAD_ROW(p), LOAD_COL(p)) = h[j * PASSES + p];
            }
        }
UNROLL
        for (int r = 0; r < REGS; ++r) reg[r] = (reg_t)(0);
#endif
UNROLL
        for (int j = 0; j < TILES; ++j) {
          if (in_local + (uint)j < mine) {
UNROLL
            for (int p = 0; p < PASSES; ++p) {
#if IPT_WORDS > 1
              const uint trow = LOAD_ROW(p), row = ti * TR + trow;
              if (trow < TR && row < rows) {
                const idx_t e = src + (idx_t)(row * cols + tj * TC);
                const uint s = MISALIGNED(RUN(m, e, e));
                reg[j * PASSES + p] = load_word(m, e, s, LOAD_COL(p), end);
                if (LOAD_COL(p) == 0) shift[j][trow] = (uchar)s;
              }
#else
              const uint row = ti * TR + LOAD_ROW(p), col = tj * TC + LOAD_COL(p);
              if (IN_TILE(p) && row < rows && col < cols) reg[j * PASSES + p] = LOAD_AT(row, col);
#endif
            }
            NEXT_TILE(src)
          }
        }
      }
#if NARROW_WAIT
      // While the loads are in flight: the groups this round's stores wait for.
      if (flagged && lid < mine) {
        uint lo, hi;
        overwritten_groups(first + lid, rows, cols, tile_cols, instance_tiles, per_group, &lo,
                           &hi);
        atomic_min(&wait_lo[k & 1], lo);
        atomic_max(&wait_hi[k & 1], hi);
      }
#endif
      // Only now, with every load issued: a use right after each load would make the
      // work-item wait for one load before issuing the next.
UNROLL
      for (int r = 0; r < REGS; ++r) consumed ^= REG_WORD(reg[r]);
      sink[lid] = consumed;  // waits for every load (see above)
      mem_fence(CLK_GLOBAL_MEM_FENCE);
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
#if NARROW_WAIT
      // The range of groups to wait for in a round on flags, empty if this group stores
      // nothing.
      const uint wait_first = wait_lo[k & 1], wait_last = wait_hi[k & 1];
#endif
      if (lid == 0) {
        if (k == 0) {
          ticket_of_group = my_ticket;
          if ((my_ticket & CLOSED) == 0) {
            atomic_inc(&sync[2]);
            const uint d = decide(sync, my_ticket, groups, patience);
            decision = d & 3u;
            running = d >> 2;
          }
        } else {
          // Raised in every round, so that a round on the counter after rounds on flags
          // finds it counting every group's loads of every round.
          atomic_inc(&sync[2]);
          if (!flagged)
            while (sync[2] < groups * (k + 1)) {  // every group is running (GO)
            }
        }
#if NARROW_WAIT
        if (flagged) atomic_xchg(&flags[get_group_id(0)], k);
        wait_lo[(k + 1) & 1] = UINT_MAX;  // the next round's, last read in round k - 1
        wait_hi[(k + 1) & 1] = 0;
#endif
      }
#if NARROW_WAIT
      // Each group of the range polled by a work-item (this group's flag among them, set
      // above by work-item 0 before it polls).
      if (flagged && wait_first <= wait_last)
        for (uint g = wait_first + lid; g <= wait_last; g += WG)
          while (flags[g] < k) {
          }
#endif
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
      if (decision != DECISION_GO) break;  // only in round 0: nothing was written

      // Output element (orow, ocol) of an instance's cols x rows result is its input
      // (ocol, orow): tile (ti, tj) of the input is tile (tj, ti) of the output,
      // transposed in local memory.
      idx_t dst = (idx_t)(i0 + i_first) * instance_elements;  // as `src` above
      uint ti = ti_first, tj = tj_first;
#if HELD > 0
UNROLL
      for (int jj = 0; jj < HELD; ++jj) {
        if ((uint)jj < in_local) {
UNROLL
          for (int p = 0; p < PASSES; ++p) {
            const uint orow = tj * TC + STORE_COL(p), ocol = ti * TR + STORE_ROW(p);
            if (IN_TILE(p) && orow < cols && ocol < rows)
              STORE_AT(orow, ocol, STAGE_SLOT(jj, STORE_ROW(p), STORE_COL(p)));
          }
          NEXT_TILE(dst)
        }
      }
      // The staging below and the next round's loads write the slots read here.
      barrier(CLK_LOCAL_MEM_FENCE);
#endif
UNROLL
      for (int base = 0; base < TILES; base += BATCH) {
        if (in_local + (uint)base < mine) {
UNROLL
          for (int jj = 0; jj < BATCH; ++jj) {
            if (base + jj < TILES && in_local + (uint)(base + jj) < mine) {
UNROLL
              for (int p = 0; p < PASSES; ++p) {
                if (IN_TILE(p))
                  STAGE_SLOT(jj, LOAD_ROW(p), LOAD_COL(p)) =
                      reg[(base + jj < TILES ? base + jj : 0) * PASSES + p];
              }
            }
          }
          barrier(CLK_LOCAL_MEM_FENCE);
UNROLL
          for (int jj = 0; jj < BATCH; ++jj) {
            if (base + jj < TILES && in_local + (uint)(base + jj) < mine) {
UNROLL
              for (int p = 0; p < PASSES; ++p) {
#if IPT_WORDS > 1
                // Output row orow's segment of the tile: the tile's rows that lie in the
                // instance, from element d on; STORE_ROW counts its words.
                const uint c = STORE_COL(p), orow = tj * TC + c;
                if (c < TC && orow < cols) {
                  const uint valid = min((uint)TR, rows - ti * TR);
                  const idx_t d = dst + (idx_t)(orow * rows + ti * TR);
                  store_word(m, d, MISALIGNED(RUN(m, d, d)), STORE_ROW(p), valid,
                             &STAGE_AT(jj, 0, c), shift[base + jj < TILES ? base + jj : 0]);
                }
#else
                const uint orow = tj * TC + STORE_COL(p), ocol = ti * TR + STORE_ROW(p);
                if (IN_TILE(p) && orow < cols && ocol < rows)
                  STORE_AT(orow, ocol, STAGE_SLOT(jj, STORE_ROW(p), STORE_COL(p)));
#endif
              }
              NEXT_TILE(dst)
            }
          }
          barrier(CLK_LOCAL_MEM_FENCE);
        }
      }
    }
    const uint ticket = ticket_of_group;  // set in round 0, read after its barrier
    if (decision != DECISION_GO && (ticket & CLOSED) == 0)
#if IPT_BLOCK > 1
      follow_cycles(m, rows * IPT_BLOCK, row_elements, instances, ticket, running, &sync[4],
                    &sink[lid], (__local elem_t *)stage);
#else
      follow_cycles(m, rows, cols, instances, ticket, running, &sync[4], &sink[lid],
                    (__local elem_t *)stage);
#endif
  }
#endif
  // After the work, so that it delays no group's arrival at the ticket or the barrier.
  for (ulong w = get_global_id(0); w < zero_words; w += get_global_size(0))
    zero_base[zero_word + w] = 0;
  leave(sync, &last_out);
  if (last_out != 0 && report != 0 && lid == 0) *report = decision;  // tests, benchmarks
}
