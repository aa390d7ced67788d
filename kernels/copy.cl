/* SPDX-License-Identifier: Apache-2.0 */
// A plain element copy from one buffer to another (a padded plan saves the bytes it
// borrows beyond the caller's matrix to scratch, and restores them at the end). A kernel
// rather than clEnqueueCopyBuffer: a GPU driver can take two to three times as much host
// time to enqueue a buffer copy as to enqueue a kernel, and a call's host time is what
// bounds small transpositions. Grid-stride: any grid covers any count (the host keeps
// offset + count + the grid below the index type's range).
//
// The same launch also zeroes `zero_words` 32-bit words from word `zero_word` of `zero`
// (a range that overlaps neither src nor dst): the save of a padded call clears the flags
// and counters of the call's other kernels, one command instead of a copy and a fill
// (each command costs the host microseconds to enqueue).

__kernel void ipt_copy(__global const elem_t *src, idx_t src_offset, __global elem_t *dst,
                       idx_t dst_offset, idx_t count, __global uint *zero, ulong zero_word,
                       ulong zero_words) {
  const idx_t stride = (idx_t)get_global_size(0);
  for (idx_t i = (idx_t)get_global_id(0); i < count; i += stride)
    dst[dst_offset + i] = src[src_offset + i];
  for (ulong w = get_global_id(0); w < zero_words; w += get_global_size(0))
    zero[zero_word + w] = 0u;
}
