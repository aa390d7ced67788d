/* SPDX-License-Identifier: Apache-2.0 */
// Square in-place transpose: a tiled swap across the diagonal.
//
// The n x n matrix is cut into TILE x TILE tiles (the last row and column of tiles may
// be partial). Work-group k owns the tiles (ti, tj) and (tj, ti) with ti <= tj: it
// loads both into local memory, waits on a barrier, and writes each one transposed into
// the other's place. A diagonal tile (ti == tj) is loaded once and written back
// transposed. Every element belongs to exactly one pair, so work-groups never touch the
// same address and need no synchronisation between them. Every element is written once,
// so the kernel can transform the values it stores (TRANSFORMED).
//
// Local tiles, by default, have TILE + 1 columns: reading a tile column then walks the
// banks with an odd stride (in 4-byte words: 33 for 4-byte elements, 66 for 8-byte ones
// served by half-warps, 8.25 for 1-byte ones), the padding-column method of
// bank-conflict-free tiled transposes. With IPT_SWIZZLE=1 they have TILE columns, each
// row's permuted (SWZ_COL, common.cl): no padding, and conflict-free also where the odd
// stride is not (column reads of 1- and 2-byte elements; tiles 8 or 16 wide of 4-byte
// ones, 8 wide of 8-byte ones, whose warps span several tile rows).
//
// A batch of `matrices` n x n matrices back to back: the pairs of all of them are
// numbered in one sequence, matrix by matrix; a group finds its matrix with one division.
//
// The order of the pairs (`band`). Where rows do not start on cache lines, the two
// groups that own horizontally adjacent tiles each write part of the line (or sector)
// between them. Numbered down the tile columns (band = 0), the pairs of consecutive
// groups are vertical neighbours in the upper triangle and horizontal ones in the lower,
// and an upper tile's right-hand neighbour comes a whole tile column (of up to n / TILE
// pairs) later. Numbered in bands of `band` tile columns, row by row within a band, both
// neighbours come within `band` pairs, except across the edges of bands. Matrices whose
// tile columns hold more than a few MiB ran faster in bands, smaller ones slower
// (planner/families/square.cpp):
// likely the cache merges the two parts of a line when they come close together, and
// holds a whole tile column's pairs only for the smaller matrices.
//
// Host-defined: TILE, WG_ROWS (the work-group is TILE x WG_ROWS work-items; each one
// moves TILE / WG_ROWS elements of each tile); IPT_SWIZZLE (0 or 1; TILE a power of two);
// IPT_WORDS and IPT_VECTORS (0 or 1; see below).
//
// Word tiles (IPT_WORDS = 4 / IPT_ELEM_BYTES, for 1- and 2-byte elements where n is a
// multiple of IPT_WORDS and the matrix starts on a 4-byte boundary of one buffer: the host
// checks). Moved one per work-item, such elements took the global loads and stores of
// floats for a quarter (half) of the bytes. Here a work-item moves IPT_WORDS x IPT_WORDS
// blocks: it loads a word from each of IPT_WORDS consecutive rows, transposes the block
// in registers and keeps its words, now words of output rows, in a tile of words in local
// memory, from which the stores copy whole words of output rows. Every global and local
// access moves an aligned 4-byte word. The work-group is TILE / IPT_WORDS x WG_ROWS.

#ifndef IPT_SWIZZLE
#define IPT_SWIZZLE 0
#endif
#ifndef IPT_WORDS
#define IPT_WORDS 1
#endif
#ifndef IPT_VECTORS
#define IPT_VECTORS 0
#endif
#if IPT_WORDS > 1 && (IPT_SWIZZLE || IPT_SPLIT || IPT_SCALAR || IPT_WORDS * IPT_ELEM_BYTES != 4)
#error "word tiles: 1- or 2-byte elements in one buffer, padded tiles, no transform"
#endif
#if IPT_SWIZZLE
#define TILE_STRIDE TILE
// Local indices stay below TILE * TILE: 32-bit arithmetic whatever idx_t is.
#define SLOT(r, c) ((uint)(r) * TILE + SWZ_COL((uint)(r), (uint)(c), TILE, TILE))
#else
#define TILE_STRIDE (TILE + 1)
#define SLOT(r, c) ((r) * TILE_STRIDE + (c))
#endif

// Pair k -> (ti, tj), ti <= tj, in the order (0,0) (0,1) (1,1) (0,2) (1,2) (2,2) ...:
// tj is the largest integer with tj (tj + 1) / 2 <= k. The float estimate is off by at
// most one for any k below 2^62, and the two loops correct it exactly.
void pair_of_index(idx_t k, idx_t *ti, idx_t *tj) {
  idx_t j = (idx_t)((sqrt(8.0f * (float)k + 1.0f) - 1.0f) * 0.5f);
  while (j > 0 && j * (j + 1) / 2 > k) --j;
  while ((j + 1) * (j + 2) / 2 <= k) ++j;
  *tj = j;
  *ti = k - j * (j + 1) / 2;
}

// Pair k in bands of `band` tile columns of a matrix of `tiles` tile columns: the band
// of tile columns [first, first + w) holds the pairs of those columns, those with ti <
// first (w per row) and then the triangle (w - r pairs in its row r), row by row. The
// pairs before it are those of the columns before it, first (first + 1) / 2, so its
// first column is that of pair k in column order, rounded down to a band.
void pair_in_band(idx_t k, idx_t tiles, idx_t band, idx_t *ti, idx_t *tj) {
  idx_t column_ti, column_tj;
  pair_of_index(k, &column_ti, &column_tj);
  const idx_t first = column_tj / band * band, w = min(band, tiles - first);
  idx_t l = k - first * (first + 1) / 2;  // the pair's place in its band
  if (l < first * w) {
    *ti = l / w;
    *tj = first + l % w;
    return;
  }
  l -= first * w;
  idx_t r = 0;
  while (l >= w - r) {
    l -= w - r;
    ++r;
  }
  *ti = first + r;
  *tj = first + r + l;
}

// The pair of group k of a matrix, in the kernel's order.
void pair_of_group(idx_t k, idx_t n, idx_t band, idx_t *ti, idx_t *tj) {
  if (band == 0)
    pair_of_index(k, ti, tj);
  else
    pair_in_band(k, (n + TILE - 1) / TILE, band, ti, tj);
}

#if IPT_WORDS == 1 && IPT_VECTORS
// Vector rows (IPT_VECTORS=1: 4-byte elements in one buffer). Moved element by element, a
// warp's 128 bytes touch two lines wherever a row does not start on a line, and odd
// squares ran at 64-73% of the copy bandwidth against 88-96% for rows of whole lines.
// Here LANES = TILE / 4 work-items move a tile row: its whole aligned 16-byte vectors
// first, one per lane (at most LANES - 1 of them where the row does not start on a
// vector); then the whole work-group moves the up to 3 `head` elements before the first
// vector and the up to 3 after the last, in edge slots of 4 or 8 per row (EDGE_SHIFT), so
// that no lane works alone while the others wait. No work-group reads or writes an element
// of another's tile.
// A row whose width is a multiple of 4 (every row of a whole tile) has 0 or 4 such
// elements, so 4 slots per row suffice and the tile's edges take one pass of the work-group
// (6 slots took two, and 30011^2 floats ran at 67% of the copy bandwidth against 77-79%;
// 30012^2, whose rows have no edge elements, at 71% against 83%: the second pass cost
// where it moved nothing); a narrower tile at the matrix's edge takes up to 6 of 8 slots.
#define LANES (TILE / 4)
#define ROWS_PER_PASS (4 * WG_ROWS)
#define VECTOR_PASSES (TILE / ROWS_PER_PASS)
#if IPT_ELEM_BYTES != 4 || IPT_SPLIT || TILE % ROWS_PER_PASS != 0
#error "vector rows: 4-byte elements in one buffer, TILE a multiple of 4 * WG_ROWS"
#endif
#define ITEMS (TILE * WG_ROWS)
// Edge slots per row: 4 (log2: 2) where the row's width is a multiple of 4, else 8 (3).
// Passes enough for 8; with 4, the rows of the passes past the first lie below the tile.
#define EDGE_SHIFT(w) ((uint)(w) % 4 == 0 ? 2u : 3u)
#define EDGE_PASSES ((TILE * 8 + ITEMS - 1) / ITEMS)
// A row's elements before its first whole vector (at most w), from its first element.
#define HEAD(row, w) min((4 - (uint)(((size_t)(row) / 4) % 4)) % 4, (uint)(w))
// Column of edge slot t (0 .. edge slots - 1) of a row: slots below head hold the head
// elements; slot head and up the elements after the last of `whole` vectors (w or more:
// none).
#define EDGE_COLUMN(t, head, whole) ((uint)(t) < (head) ? (uint)(t) : (whole) * 4 + (uint)(t))

// The work-item's share of the tile's rows: BODY once for each whole vector it moves
// (its row `row`, r of the tile, whose first vector starts at column head), and once for
// each edge slot it moves (column c). Every loop recomputes the row's address, head and
// vector count inline: a helper that returned them in a struct compiled to code slower
// than moving the elements one by one.
#define FOR_MY_VECTORS(BODY)                                           \
  UNROLL for (int p = 0; p < VECTOR_PASSES; ++p) {                     \
    const uint r = r_first + (uint)p * ROWS_PER_PASS;                  \
    if (r < (uint)h) {                                                 \
      __global elem_t *row = m.data + base + (row0 + r) * n + col0;    \
      const uint head = HEAD(row, w), whole = ((uint)w - head) / 4;    \
      if (lane < whole) {                                              \
        BODY                                                           \
      }                                                                \
    }                                                                  \
  }
#define FOR_MY_EDGES(BODY)                                             \
  UNROLL for (int q = 0; q < EDGE_PASSES; ++q) {                       \
    const uint shift = EDGE_SHIFT(w);                                  \
    const uint slot = item + (uint)q * ITEMS, r = slot >> shift;       \
    if (r < (uint)h) {                                                 \
      __global elem_t *row = m.data + base + (row0 + r) * n + col0;    \
      const uint head = HEAD(row, w), whole = ((uint)w - head) / 4;    \
      const uint c = EDGE_COLUMN(slot - (r << shift), head, whole);    \
      if (c < (uint)w) {                                               \
        BODY                                                           \
      }                                                                \
    }                                                                  \
  }

void load_tile(__local elem_t *tile, matrix_t m, idx_t base, idx_t n, idx_t row0, idx_t col0,
               idx_t h, idx_t w) {
  const uint item = get_local_id(1) * TILE + get_local_id(0);
  const uint lane = item % LANES, r_first = item / LANES;
  // Every load of a work-item is issued before any value lands in local memory.
  elem_t v[VECTOR_PASSES][4], e[EDGE_PASSES];
  FOR_MY_VECTORS(const uint4 x = *(__global const uint4 *)(row + head + lane * 4);
                 UNROLL for (int t = 0; t < 4; ++t) v[p][t] = VEC4_AT(x, t);)
  FOR_MY_EDGES(e[q] = row[c];)
  FOR_MY_VECTORS(UNROLL for (int t = 0; t < 4; ++t)
                     tile[SLOT(r, head + lane * 4 + t)] = v[p][t];)
  FOR_MY_EDGES(tile[SLOT(r, c)] = e[q];)
}

// Writes the h x w block at (row0, col0) with the transpose of `tile` (a w x h tile).
void store_transposed(matrix_t m, __local const elem_t *tile, idx_t base, idx_t n, idx_t row0,
                      idx_t col0, idx_t h, idx_t w TRANSFORM_PARAMS) {
  const uint item = get_local_id(1) * TILE + get_local_id(0);
  const uint lane = item % LANES, r_first = item / LANES;
  FOR_MY_VECTORS(elem_t a[4];
                 UNROLL for (int t = 0; t < 4; ++t)
                     a[t] = TRANSFORMED(tile[SLOT(head + lane * 4 + t, r)]);
                 *(__global uint4 *)(row + head + lane * 4) = (uint4)(a[0], a[1], a[2], a[3]);)
  FOR_MY_EDGES(row[c] = TRANSFORMED(tile[SLOT(c, r)]);)
}
#elif IPT_WORDS == 1
// The loops below have no early exit and the kernel no early return: every work-item
// reaches the one barrier, which keeps the kernel in the simple shape every OpenCL
// compiler handles (PoCL 5 aborted on an earlier grid-stride form with early returns).
// `base`: the first element of the group's matrix.
void load_tile(__local elem_t *tile, matrix_t m, idx_t base, idx_t n, idx_t row0, idx_t col0,
               idx_t h, idx_t w) {
  const idx_t x = get_local_id(0);
  if (x < w)
    for (idx_t r = get_local_id(1); r < h; r += WG_ROWS)
      tile[SLOT(r, x)] = AT(m, base + (row0 + r) * n + col0 + x);
}

// Writes the h x w block at (row0, col0) with the transpose of `tile` (a w x h tile).
void store_transposed(matrix_t m, __local const elem_t *tile, idx_t base, idx_t n, idx_t row0,
                      idx_t col0, idx_t h, idx_t w TRANSFORM_PARAMS) {
  const idx_t x = get_local_id(0);
  if (x < w)
    for (idx_t r = get_local_id(1); r < h; r += WG_ROWS)
      AT(m, base + (row0 + r) * n + col0 + x) = TRANSFORMED(tile[SLOT(x, r)]);
}

#endif
#if IPT_WORDS == 1
// One tile pair per work-group. The groups form a grid_x x grid_y rectangle (so that
// any pair count fits the NDRange limits); groups past the last pair move nothing.
__kernel __attribute__((reqd_work_group_size(TILE, WG_ROWS, 1)))
void ipt_square_swap(__global elem_t *buffer, idx_t offset, idx_t n, idx_t num_pairs,
                     idx_t matrices, idx_t band TRANSFORM_PARAMS SPLIT_PARAMS) {
  __local elem_t upper[TILE * TILE_STRIDE];
  __local elem_t lower[TILE * TILE_STRIDE];
  const matrix_t m = MATRIX(buffer, offset);  // every access: AT (common.cl)

  const idx_t k = (idx_t)get_group_id(1) * (idx_t)get_num_groups(0) + (idx_t)get_group_id(0);
  idx_t ti = 0, tj = 0, h = 0, w = 0, base = 0;
  if (k < num_pairs * matrices) {
    const idx_t matrix = k / num_pairs;
    base = matrix * n * n;
    pair_of_group(k - matrix * num_pairs, n, band, &ti, &tj);
    h = min((idx_t)TILE, n - ti * TILE);  // upper tile's rows
    w = min((idx_t)TILE, n - tj * TILE);  // upper tile's columns
  }
  const idx_t r0 = ti * TILE, c0 = tj * TILE;  // upper tile's corner
  const bool mirrored = ti != tj;
  load_tile(upper, m, base, n, r0, c0, h, w);
  if (mirrored) load_tile(lower, m, base, n, c0, r0, w, h);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (mirrored) {
    store_transposed(m, lower, base, n, r0, c0, h, w TRANSFORM_ARGS);
    store_transposed(m, upper, base, n, c0, r0, w, h TRANSFORM_ARGS);
  } else {
    store_transposed(m, upper, base, n, r0, c0, h, w TRANSFORM_ARGS);
  }
}
#else
// The word tiles' kernel (IPT_WORDS > 1, see the top). Tiles of h x w elements, both
// multiples of IPT_WORDS; in words: hb = h / IPT_WORDS block rows, ww = w / IPT_WORDS
// words a row. `words`: the matrix as words; nw: words per matrix row.
#define TW (TILE / IPT_WORDS)  // words of a tile row
#define WSTRIDE (TW + 1)       // words of a local row: column writes spread over the banks

// The IPT_WORDS x IPT_WORDS block of words in[t] (row t) transposed: out[j] holds column
// j. Vector components are in memory order whatever the device's byte order.
void transpose_block(const uint *in, uint *out) {
#if IPT_WORDS == 4
  const uchar4 a = as_uchar4(in[0]), b = as_uchar4(in[1]), c = as_uchar4(in[2]),
               d = as_uchar4(in[3]);
  out[0] = as_uint((uchar4)(a.s0, b.s0, c.s0, d.s0));
  out[1] = as_uint((uchar4)(a.s1, b.s1, c.s1, d.s1));
  out[2] = as_uint((uchar4)(a.s2, b.s2, c.s2, d.s2));
  out[3] = as_uint((uchar4)(a.s3, b.s3, c.s3, d.s3));
#else
  const ushort2 a = as_ushort2(in[0]), b = as_ushort2(in[1]);
  out[0] = as_uint((ushort2)(a.s0, b.s0));
  out[1] = as_uint((ushort2)(a.s1, b.s1));
#endif
}

// Loads the tile at (row0, col0w words), hb block rows by ww words, and keeps its
// transpose: local row c (column c of the tile) holds that column's hb words.
void load_word_tile(__local uint *tile, __global const uint *words, idx_t base, idx_t nw,
                    idx_t row0, idx_t col0w, uint hb, uint ww) {
  const uint x = get_local_id(0);
  if (x < ww)
    for (uint br = get_local_id(1); br < hb; br += WG_ROWS) {
      uint in[IPT_WORDS], out[IPT_WORDS];
      const idx_t first = base + (row0 + (idx_t)br * IPT_WORDS) * nw + col0w + x;
      for (uint t = 0; t < IPT_WORDS; ++t) in[t] = words[first + (idx_t)t * nw];
      transpose_block(in, out);
      for (uint j = 0; j < IPT_WORDS; ++j) tile[(x * IPT_WORDS + j) * WSTRIDE + br] = out[j];
    }
}

// Writes the rows x ww-word block at (row0, col0w words) from a tile load_word_tile kept.
void store_word_tile(__global uint *words, __local const uint *tile, idx_t base, idx_t nw,
                     idx_t row0, idx_t col0w, uint rows, uint ww) {
  const uint x = get_local_id(0);
  if (x < ww)
    for (uint r = get_local_id(1); r < rows; r += WG_ROWS)
      words[base + (row0 + r) * nw + col0w + x] = tile[r * WSTRIDE + x];
}

__kernel __attribute__((reqd_work_group_size(TW, WG_ROWS, 1)))
void ipt_square_swap(__global elem_t *buffer, idx_t offset, idx_t n, idx_t num_pairs,
                     idx_t matrices, idx_t band) {
  __local uint upper[TILE * WSTRIDE];
  __local uint lower[TILE * WSTRIDE];
  __global uint *words = (__global uint *)(buffer + offset);  // 4-byte aligned (host)
  const idx_t nw = n / IPT_WORDS;

  const idx_t k = (idx_t)get_group_id(1) * (idx_t)get_num_groups(0) + (idx_t)get_group_id(0);
  idx_t ti = 0, tj = 0, base = 0;
  uint hb = 0, ww = 0;
  if (k < num_pairs * matrices) {
    const idx_t matrix = k / num_pairs;
    base = matrix * n * nw;
    pair_of_group(k - matrix * num_pairs, n, band, &ti, &tj);
    hb = (uint)min((idx_t)TW, nw - ti * TW);  // upper tile's rows, in blocks
    ww = (uint)min((idx_t)TW, nw - tj * TW);  // upper tile's columns, in words
  }
  const idx_t r0 = ti * TILE, c0 = tj * TILE;  // upper tile's corner, in elements
  const bool mirrored = ti != tj;
  load_word_tile(upper, words, base, nw, r0, c0 / IPT_WORDS, hb, ww);
  if (mirrored) load_word_tile(lower, words, base, nw, c0, r0 / IPT_WORDS, ww, hb);
  barrier(CLK_LOCAL_MEM_FENCE);
  // The upper tile's transpose goes to (c0, r0): ww * IPT_WORDS rows of hb words; the
  // lower's to (r0, c0): hb * IPT_WORDS rows of ww words.
  if (mirrored) store_word_tile(words, lower, base, nw, r0, c0 / IPT_WORDS, hb * IPT_WORDS, ww);
  store_word_tile(words, upper, base, nw, c0, r0 / IPT_WORDS, ww * IPT_WORDS, hb);
}
#endif
