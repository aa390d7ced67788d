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
// Host-defined: TILE, WG_ROWS (the work-group is TILE x WG_ROWS work-items; each one
// moves TILE / WG_ROWS elements of each tile); IPT_SWIZZLE (0 or 1; TILE a power of two).

#ifndef IPT_SWIZZLE
#define IPT_SWIZZLE 0
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

// One tile pair per work-group. The groups form a grid_x x grid_y rectangle (so that
// any pair count fits the NDRange limits); groups past the last pair move nothing.
__kernel __attribute__((reqd_work_group_size(TILE, WG_ROWS, 1)))
void ipt_square_swap(__global elem_t *buffer, idx_t offset, idx_t n,
                     idx_t num_pairs, idx_t matrices TRANSFORM_PARAMS SPLIT_PARAMS) {
  __local elem_t upper[TILE * TILE_STRIDE];
  __local elem_t lower[TILE * TILE_STRIDE];
  const matrix_t m = MATRIX(buffer, offset);  // every access: AT (common.cl)

  const idx_t k = (idx_t)get_group_id(1) * (idx_t)get_num_groups(0) + (idx_t)get_group_id(0);
  idx_t ti = 0, tj = 0, h = 0, w = 0, base = 0;
  if (k < num_pairs * matrices) {
    const idx_t matrix = k / num_pairs;
    base = matrix * n * n;
    pair_of_index(k - matrix * num_pairs, &ti, &tj);
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
