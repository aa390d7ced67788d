/* SPDX-License-Identifier: Apache-2.0 */
// The element transform of ipt_imatcopy (TRANSFORMED, kernels/common.cl) as a pass of its
// own, in place: `rows` rows of `len` elements at row stride `stride`. A call runs it
// only when its last step cannot apply the transform while storing (no restride comes
// last); each work-item strides over the elements by the grid.
__kernel void ipt_scale(__global elem_t *buffer, idx_t offset, idx_t rows, idx_t len,
                        idx_t stride TRANSFORM_PARAMS) {
  __global elem_t *m = buffer + offset;
  const idx_t total = rows * len;
  const idx_t step = get_global_size(0);
  if (stride == len) {
    for (idx_t k = get_global_id(0); k < total; k += step) m[k] = TRANSFORMED(m[k]);
  } else {
    for (idx_t k = get_global_id(0); k < total; k += step) {
      const idx_t i = k + k / len * (stride - len);
      m[i] = TRANSFORMED(m[i]);
    }
  }
}
