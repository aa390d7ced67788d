/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libipt: in-place matrix transposition on OpenCL devices.
 *
 * The only header a C program needs. Every function returns an ipt_status (0 on success,
 * a negative value on error; ipt_status_string() names it) and never throws, aborts or
 * prints. Transposition calls are asynchronous: they enqueue work on the caller's command
 * queue and return without waiting for it.
 *
 * Row-major and column-major data: the functions transpose a ROW-MAJOR rows x cols matrix.
 * A column-major M x N matrix (Fortran, LAPACK) has the same bytes as a row-major N x M
 * matrix, so to transpose it call with rows = N, cols = M; afterwards the buffer holds the
 * column-major N x M transpose.
 *
 * Thread safety: every function may be called concurrently from several threads, on the
 * same or on different contexts, queues and buffers. Two calls that touch the same buffer
 * must be ordered by the caller (events or an in-order queue), as for any OpenCL command.
 */
#ifndef IPT_IPT_H
#define IPT_IPT_H

#include <stddef.h>

/* The OpenCL header as the caller configures it. This header needs only OpenCL 1.0 types,
 * so it sets CL_TARGET_OPENCL_VERSION only where the caller set no version: to
 * CL_HPP_TARGET_OPENCL_VERSION when that is set (as <CL/opencl.hpp> would), else to the
 * OpenCL headers' own default, 300. Either way <CL/cl.h> declares what it would without
 * libipt, in any include order, and notes no missing version on libipt's account. */
#if !defined(CL_TARGET_OPENCL_VERSION)
#if defined(CL_HPP_TARGET_OPENCL_VERSION)
#define CL_TARGET_OPENCL_VERSION CL_HPP_TARGET_OPENCL_VERSION
#else
#define CL_TARGET_OPENCL_VERSION 300
#endif
#endif
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif

#if defined(_WIN32)
#if defined(IPT_BUILDING_LIBRARY)
#define IPT_API __declspec(dllexport)
#else
#define IPT_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define IPT_API __attribute__((visibility("default")))
#else
#define IPT_API
#endif

#define IPT_VERSION_MAJOR 1
#define IPT_VERSION_MINOR 0
#define IPT_VERSION_PATCH 0
/* IPT_VERSION is MAJOR * 10000 + MINOR * 100 + PATCH, as returned by ipt_version(). */
#define IPT_VERSION (IPT_VERSION_MAJOR * 10000 + IPT_VERSION_MINOR * 100 + IPT_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Status codes. Where an OpenCL error code exists for the condition, the value is that
 * code; libipt's own conditions live in -1000 .. -1999. Any other negative value in
 * -1 .. -999 is an OpenCL error returned by the runtime and passed through unchanged
 * (ipt_last_error_message() says which call failed). After a transposition call, every
 * status but IPT_SUCCESS, IPT_ROLLED_BACK and IPT_BUFFER_UNDEFINED means that the
 * buffer is unchanged and nothing that touches it was enqueued; IPT_ROLLED_BACK that it
 * is unchanged once the commands enqueued complete; IPT_BUFFER_UNDEFINED that the
 * matrix's bytes are undefined.
 */
typedef enum ipt_status {
  IPT_SUCCESS = 0,
  IPT_OUT_OF_RESOURCES = -5,       /* CL_OUT_OF_RESOURCES */
  IPT_OUT_OF_HOST_MEMORY = -6,     /* CL_OUT_OF_HOST_MEMORY */
  IPT_BUILD_PROGRAM_FAILURE = -11, /* a kernel failed to compile; see ipt_last_error_message() */
  IPT_INVALID_VALUE = -30,         /* CL_INVALID_VALUE: a required output pointer is NULL, an
                                      ipt_plan_options field is out of range, a forced plan
                                      cannot work, or IPT_OVERRIDES is malformed */
  IPT_INVALID_DEVICE = -33,        /* CL_INVALID_DEVICE: NULL or invalid cl_device_id */
  IPT_INVALID_CONTEXT = -34,       /* CL_INVALID_CONTEXT: buffer and queue in different contexts */
  IPT_INVALID_COMMAND_QUEUE = -36, /* CL_INVALID_COMMAND_QUEUE: NULL or invalid queue */
  IPT_INVALID_MEM_OBJECT = -38,    /* CL_INVALID_MEM_OBJECT: NULL or invalid buffer, or one
                                      created CL_MEM_READ_ONLY or CL_MEM_WRITE_ONLY */
  IPT_INVALID_EVENT_WAIT_LIST = -57, /* CL_INVALID_EVENT_WAIT_LIST: count and pointer disagree,
                                        or an event is invalid or has already failed */
  IPT_INVALID_ELEMENT_SIZE = -1001,  /* elem_size is not 1, 2, 4, 8 or 16 */
  IPT_SIZE_OVERFLOW = -1002,         /* (offset + rows * cols) * elem_size overflows size_t */
  IPT_BUFFER_TOO_SMALL = -1003,      /* offset + matrix reaches past the buffer's CL_MEM_SIZE */
  IPT_FP64_NOT_SUPPORTED = -1004,    /* ipt_transpose_f64 on a device without double support */
  IPT_MATRIX_TOO_LARGE = -1005,      /* the matrix (or its batch) is larger than the device
                                        can hold: past CL_DEVICE_MAX_MEM_ALLOC_SIZE, or 4 times
                                        that in a buffer that holds it; nothing ran, and
                                        ipt_last_error_message() names both sizes */
  IPT_ROLLED_BACK = -1006,           /* a command failed after part of the transposition was
                                        enqueued; the library enqueued the inverse of that part:
                                        once the commands enqueued complete (the event, if asked
                                        for, says when) the buffer holds its original bytes. The
                                        cause is in ipt_last_error_message() */
  IPT_BUFFER_UNDEFINED = -1007,      /* a command failed part-way and undoing the part already
                                        enqueued failed too: the matrix's bytes are undefined
                                        (the bytes beyond it are untouched unless borrowed) */
  IPT_EXTERNAL_MEMORY_UNSUPPORTED = -1008, /* ipt_import_memory_fd on a device or OpenCL
                                              loader that cannot import the handle
                                              (cl_khr_external_memory_opaque_fd, OpenCL 3.0),
                                              or a call on an imported buffer where the
                                              platform has no acquire/release commands */
  IPT_INTERNAL_ERROR = -1999               /* a bug in libipt; please report it with the message */
} ipt_status;

/* A static, human-readable name and explanation of a status; never NULL. */
IPT_API const char* ipt_status_string(ipt_status status);

/*
 * Details of the last error returned to the calling thread (thread-local): which check
 * or OpenCL call failed and, for IPT_BUILD_PROGRAM_FAILURE, the compiler's build log.
 * An empty string after a successful call. The pointer stays valid until the calling
 * thread's next libipt call.
 */
IPT_API const char* ipt_last_error_message(void);

/*
 * For language bindings that check arguments before calling the C API (a negative
 * Fortran size, which size_t cannot hold): records `message` (NULL: none) as the calling
 * thread's ipt_last_error_message() and returns `status`, so that the binding's status
 * comes with its message as the C API's do.
 */
IPT_API ipt_status ipt_set_last_error(ipt_status status, const char* message);

/* IPT_VERSION of the library actually loaded (compare with the header's IPT_VERSION). */
IPT_API unsigned ipt_version(void);
/* The same as a string, "MAJOR.MINOR.PATCH". */
IPT_API const char* ipt_version_string(void);

/*
 * Transposes, in place, the row-major rows x cols matrix of elem_size-byte elements that
 * starts `offset` ELEMENTS into `buffer`; afterwards those rows * cols elements hold the
 * row-major cols x rows transpose. Elements are moved bit for bit (NaN payloads, -0.0 and
 * integer data are preserved), so any type of 1, 2, 4, 8 or 16 bytes can be transposed,
 * e.g. complex float as elem_size 8, complex double as 16.
 *
 * queue         the command queue the work is enqueued on; its context must own `buffer`.
 *               In-order and out-of-order queues both work.
 * buffer        a buffer that kernels may read and write: created with neither
 *               CL_MEM_READ_ONLY nor CL_MEM_WRITE_ONLY (else IPT_INVALID_MEM_OBJECT). The
 *               CL_MEM_HOST_* flags restrict only the host's access and are accepted: the
 *               library never reads, writes or maps the buffer from the host.
 * offset        where the matrix starts, in elements (not bytes).
 * rows, cols    the matrix shape before the call. rows == 0 or cols == 0 is a successful
 *               no-op (BLAS quick return); queue and buffer are still checked.
 * num_events_in_wait_list, event_wait_list
 *               the first command enqueued waits for these events; count 0 with NULL, or
 *               count > 0 with a non-NULL list, as in clEnqueue* calls. An event that has
 *               already failed (a negative CL_EVENT_COMMAND_EXECUTION_STATUS) is refused
 *               with IPT_INVALID_EVENT_WAIT_LIST: the call's commands could never run.
 * event         if not NULL, receives a new event that completes when the transposition
 *               (all of its kernels) has completed; the caller releases it. Also returned
 *               for the no-op shapes.
 *
 * The call does not block: it validates, compiles the kernels on first use for this
 * (context, device, variant) - which may take some time once - and enqueues. Square
 * matrices take a tiled swap across the diagonal (one pass, near copy bandwidth). Other
 * shapes take the 2- or 3-stage sequences of elementary transpositions of Sung et al.
 * (TPDS 2015) when their sides have factors whose tiles fit local memory. The
 * cycle-following stages need a flag bit per moved super-element (a row segment of the
 * matrix; a typical call's scratch is 0.01% of the matrix: ipt_plan_info's
 * scratch_bytes), allocated once and kept for reuse by later calls.
 *
 * Small matrices. On NVIDIA and AMD GPUs, a non-square matrix small enough for the
 * registers and local memory of the work-groups all compute units run at once (about 7.6
 * million 4-byte elements on a GPU of 132 compute units; half as many 8-byte ones) is
 * transposed in one pass instead: one kernel reads every element, waits until all are
 * read, and writes them back transposed (IPT_SEQUENCE_ON_CHIP). That needs every
 * work-group running at once; the kernel checks that they are before it writes anything,
 * and when they are not (the GPU busy with other work) the same kernel transposes by
 * cycle following instead (slower). Either way the event completes with the matrix
 * transposed. The same kernel also runs the 010! stage of most large matrices' plans
 * (instances of m x N rows at a time), which turns three passes into two; its fallback
 * needs no flags (128 bytes of scratch, and for 4-byte elements 4 bytes per work-group:
 * about 1 KiB on a GPU of 132 compute units).
 *
 * Padding. A side without good factors (a prime, say) would leave only slow plans, so
 * the call may transpose a slightly larger matrix instead: at most 0.5% more elements, a
 * few extra rows and columns. In a buffer of exactly the matrix the extra elements live
 * in device scratch (counted in ipt_plan_info's scratch_bytes), and no byte of the
 * buffer beyond the matrix is read or written. When the buffer holds more than the
 * matrix (CL_MEM_SIZE beyond offset + rows * cols elements; ipt_padded_size says how
 * much), the extra elements use that room instead, unless the room and its copy would
 * pass 0.6% of a matrix of 10^6 elements or more: those bytes are BORROWED, copied to
 * scratch before the first kernel, used as workspace, and restored after the last, so
 * that when the event completes the whole buffer beyond the matrix is as it was. Do not
 * read or write them while the call runs; options->max_bytes (see
 * ipt_transpose_with_options) caps what may be borrowed, and IPT_PADDING_OFF forbids
 * padding: the call then runs the best unpadded plan, for prime sides the one-stage
 * cycle following, correct for every shape but much slower than a copy.
 *
 * Returns IPT_SUCCESS or: IPT_INVALID_COMMAND_QUEUE, IPT_INVALID_MEM_OBJECT,
 * IPT_INVALID_CONTEXT, IPT_INVALID_EVENT_WAIT_LIST, IPT_INVALID_ELEMENT_SIZE,
 * IPT_SIZE_OVERFLOW, IPT_BUFFER_TOO_SMALL, IPT_INVALID_VALUE (a malformed IPT_OVERRIDES),
 * IPT_MATRIX_TOO_LARGE (past 4 allocations of the device, see ipt_plan),
 * IPT_BUILD_PROGRAM_FAILURE, IPT_OUT_OF_RESOURCES, IPT_OUT_OF_HOST_MEMORY, an OpenCL error
 * code, or IPT_INTERNAL_ERROR: for all of these nothing that touches the buffer has been
 * enqueued and the buffer is unchanged (byte for byte, beyond the matrix too).
 *
 * A failure part-way. Every resource a call needs (kernels, scratch) is acquired before
 * its first command. Should enqueueing a later command still fail (the device out of
 * resources, say), the call enqueues the inverse of the commands already enqueued and
 * returns IPT_ROLLED_BACK: when those commands complete, the buffer holds its original
 * bytes; `event`, if not NULL, receives an event that completes then. Only if undoing
 * fails too does it return IPT_BUFFER_UNDEFINED: the matrix's contents are then
 * undefined, and no event is returned although commands of the call may still be queued
 * (on an in-order queue only a call's last command carries an event, and a marker to
 * stand for the others would be one more enqueue after enqueues failed): wait for the
 * queue (clFinish, or a marker of your own without a wait list) before writing the
 * buffer again. A command that fails while it runs (its event ends with a negative status:
 * a device fault or a lost device) also leaves the buffer undefined.
 */
IPT_API ipt_status ipt_transpose(cl_command_queue queue, cl_mem buffer, size_t offset, size_t rows,
                                 size_t cols, cl_uint num_events_in_wait_list,
                                 const cl_event* event_wait_list, cl_event* event,
                                 size_t elem_size);

/* ipt_transpose with elem_size = sizeof(cl_float). */
IPT_API ipt_status ipt_transpose_f32(cl_command_queue queue, cl_mem buffer, size_t offset,
                                     size_t rows, size_t cols, cl_uint num_events_in_wait_list,
                                     const cl_event* event_wait_list, cl_event* event);

/* ipt_transpose with elem_size = sizeof(cl_double). Returns IPT_FP64_NOT_SUPPORTED on a
 * device that does not report double support (ipt_transpose with elem_size 8 moves 8-byte
 * elements on any device). */
IPT_API ipt_status ipt_transpose_f64(cl_command_queue queue, cl_mem buffer, size_t offset,
                                     size_t rows, size_t cols, cl_uint num_events_in_wait_list,
                                     const cl_event* event_wait_list, cl_event* event);

/*
 * Transposes `batch` matrices in place, in one call: rows x cols matrices of elem_size-byte
 * elements stored back to back from element `offset` of `buffer` (matrix k starts at
 * element offset + k * rows * cols) each become their cols x rows transpose in the same
 * place. The batch is the instance dimension of the call's kernels, not a loop of calls:
 * a batch of matrices that one work-group's local memory holds (64 x 100 floats) takes
 * one kernel that reads and writes every element once; so does a batch of matrices that
 * fit the device's registers, on NVIDIA and AMD GPUs. A batch never uses the buffer's
 * bytes past its last matrix. Where one plan over the batch would take more than 0.6% of
 * a batch of 10^6 elements or more in scratch (matrices whose sides have no usable
 * factor), the call transposes the batch in parts, one after the other on one scratch:
 * one matrix a part, padded in scratch as ipt_transpose pads it, when the matrices hold
 * 10^6 elements or the batch at most 64; else as many as fit that budget (docs/batches.md).
 * batch 1 is ipt_transpose;
 * batch, rows or cols 0 returns at once. Events, statuses and the guarantee of a failed
 * call as for ipt_transpose; IPT_SIZE_OVERFLOW also when batch * rows * cols overflows.
 */
IPT_API ipt_status ipt_transpose_batched(cl_command_queue queue, cl_mem buffer, size_t offset,
                                         size_t batch, size_t rows, size_t cols,
                                         cl_uint num_events_in_wait_list,
                                         const cl_event* event_wait_list, cl_event* event,
                                         size_t elem_size);

/* ipt_transpose_batched with elem_size = sizeof(cl_float). */
IPT_API ipt_status ipt_transpose_batched_f32(cl_command_queue queue, cl_mem buffer, size_t offset,
                                             size_t batch, size_t rows, size_t cols,
                                             cl_uint num_events_in_wait_list,
                                             const cl_event* event_wait_list, cl_event* event);

/* ipt_transpose_batched with elem_size = sizeof(cl_double); IPT_FP64_NOT_SUPPORTED as for
 * ipt_transpose_f64. */
IPT_API ipt_status ipt_transpose_batched_f64(cl_command_queue queue, cl_mem buffer, size_t offset,
                                             size_t batch, size_t rows, size_t cols,
                                             cl_uint num_events_in_wait_list,
                                             const cl_event* event_wait_list, cl_event* event);

/*
 * Permutes the axes of a tensor in place: the row-major tensor of `rank` axes (1 to
 * IPT_MAX_RANK; the last axis fastest) of sizes dims[0..rank-1], of elem_size-byte
 * elements (1, 2, 4, 8 or 16) at element `offset` of `buffer`, becomes the tensor whose
 * axis i is the input's axis perm[i], in the same memory: numpy.transpose(x, perm), and
 * PyTorch's x.permute(perm).contiguous(), without a second tensor. NCHW -> NHWC of
 * images is perm {0, 2, 3, 1}; [B][S][H][D] -> [B][H][S][D] is {0, 2, 1, 3}. Rank 2 with
 * perm {1, 0} is ipt_transpose.
 *
 * The call is made of block swaps [P][A][B][S] -> [P][B][A][S] of adjacent groups of
 * axes, each one transposition of P matrices of A x B (S = 1) or one pass over
 * super-elements of S elements: axes of size 1 and axes that stay adjacent cost nothing,
 * and a permutation that keeps the last axis in place moves whole rows of it
 * (ipt_plan_permute shows the plan). The extra device memory is bounded as for
 * ipt_transpose; the tensor's own bytes past its end are never touched (its padding, if
 * a transposition pads, is kept in scratch), except that a permutation that is one
 * matrix transposition uses the buffer's room as ipt_transpose does.
 *
 * Returns IPT_SUCCESS, IPT_INVALID_VALUE (rank 0 or past IPT_MAX_RANK, dims or perm NULL,
 * perm not a permutation of 0 .. rank - 1), IPT_INVALID_ELEMENT_SIZE, IPT_SIZE_OVERFLOW
 * (the tensor's bytes, or the offset's, overflow size_t), IPT_BUFFER_TOO_SMALL, and the
 * statuses of ipt_transpose for the queue, buffer, events and device; a tensor with an
 * axis of size 0 returns at once. Events and the guarantee of a failed call as for
 * ipt_transpose: the buffer is unchanged or, for a failure part-way, restored.
 */
#define IPT_MAX_RANK 8
IPT_API ipt_status ipt_permute(cl_command_queue queue, cl_mem buffer, size_t offset, size_t rank,
                               const size_t* dims, const size_t* perm, size_t elem_size,
                               cl_uint num_events_in_wait_list, const cl_event* event_wait_list,
                               cl_event* event);

/*
 * MKL's in-place matrix copy, mkl_?imatcopy, on a device buffer:
 *
 *   MKL:    mkl_simatcopy(ordering, trans, rows, cols, alpha, AB, lda, ldb)
 *   libipt: ipt_simatcopy(queue, ordering, trans, rows, cols, alpha, buffer, offset, lda, ldb,
 *                         num_events_in_wait_list, event_wait_list, event)
 *
 * The rows x cols matrix A stored from element `offset` of `buffer` with leading dimension
 * lda becomes B = alpha * op(A) stored there with leading dimension ldb.
 *
 * ordering  'R' (row-major: lda and ldb are row pitches) or 'C' (column-major: column
 *           pitches); lower case too.
 * trans     'N': op(A) = A; 'T': A^T; 'C': conj(A^T); 'R': conj(A). For the real types
 *           (s, d) 'C' is 'T' and 'R' is 'N', as in MKL. Lower case too.
 * rows, cols  A's shape. 0 is a successful no-op (lda and ldb are still checked).
 * alpha     the scale (alpha = 1 leaves the values bit for bit as they were).
 * lda       row-major: >= cols; column-major: >= rows.
 * ldb       row-major: >= cols for 'N'/'R', >= rows for 'T'/'C'; column-major: >= rows
 *           for 'N'/'R', >= cols for 'T'/'C'.
 *
 * The call reads and writes only the elements from `offset` up to the end of A's last row
 * (column) or of B's, whichever ends later; the buffer must hold them. Between rows, the
 * gaps' bytes (lda or ldb beyond the row) keep their values in a call that neither
 * transposes nor changes the stride; in the others they are unspecified afterwards, as in
 * MKL. Scaling and conjugation happen in the last kernel of the call as it stores (a pass
 * of their own when that kernel follows cycles); products are rounded one operation at a
 * time, complex ones as (ar*xr - ai*xi) + (ar*xi + ai*xr)i.
 * Events, asynchrony, statuses and the guarantee of a failed call (nothing enqueued, or
 * rolled back to the original bytes) as for ipt_transpose; also IPT_INVALID_VALUE for an
 * ordering or trans that is not one of the letters above, or lda or ldb too small;
 * IPT_BUFFER_TOO_SMALL when the extent passes the buffer; IPT_FP64_NOT_SUPPORTED for d and
 * z on a device without double precision.
 */
IPT_API ipt_status ipt_simatcopy(cl_command_queue queue, char ordering, char trans, size_t rows,
                                 size_t cols, float alpha, cl_mem buffer, size_t offset, size_t lda,
                                 size_t ldb, cl_uint num_events_in_wait_list,
                                 const cl_event* event_wait_list, cl_event* event);
IPT_API ipt_status ipt_dimatcopy(cl_command_queue queue, char ordering, char trans, size_t rows,
                                 size_t cols, double alpha, cl_mem buffer, size_t offset,
                                 size_t lda, size_t ldb, cl_uint num_events_in_wait_list,
                                 const cl_event* event_wait_list, cl_event* event);

/* Complex scalars, laid out as MKL_Complex8 / MKL_Complex16 and C99's float _Complex /
 * double _Complex (the real part first). */
typedef struct ipt_complex_f32 {
  float real, imag;
} ipt_complex_f32;
typedef struct ipt_complex_f64 {
  double real, imag;
} ipt_complex_f64;

IPT_API ipt_status ipt_cimatcopy(cl_command_queue queue, char ordering, char trans, size_t rows,
                                 size_t cols, ipt_complex_f32 alpha, cl_mem buffer, size_t offset,
                                 size_t lda, size_t ldb, cl_uint num_events_in_wait_list,
                                 const cl_event* event_wait_list, cl_event* event);
IPT_API ipt_status ipt_zimatcopy(cl_command_queue queue, char ordering, char trans, size_t rows,
                                 size_t cols, ipt_complex_f64 alpha, cl_mem buffer, size_t offset,
                                 size_t lda, size_t ldb, cl_uint num_events_in_wait_list,
                                 const cl_event* event_wait_list, cl_event* event);

/* The element types of ipt_imatcopy: raw elem_size-byte elements, or a numeric type. */
typedef enum ipt_scalar_type {
  IPT_SCALAR_NONE = 0, /* any elem_size (1, 2, 4, 8, 16): moved bit for bit, no alpha */
  IPT_SCALAR_F32 = 1,  /* float; elem_size 4 */
  IPT_SCALAR_F64 = 2,  /* double; elem_size 8 */
  IPT_SCALAR_C32 = 3,  /* complex float (ipt_complex_f32); elem_size 8 */
  IPT_SCALAR_C64 = 4   /* complex double (ipt_complex_f64); elem_size 16 */
} ipt_scalar_type;

/*
 * ipt_?imatcopy for any element: `alpha` points to the type's scalar (float, double,
 * ipt_complex_f32 or ipt_complex_f64), or is NULL for alpha = 1; it must be NULL for
 * IPT_SCALAR_NONE, which also takes no conjugation ('C' and 'R'). Returns
 * IPT_INVALID_ELEMENT_SIZE when elem_size is not the type's, IPT_INVALID_VALUE for an
 * unknown type, an alpha or a conjugation given for IPT_SCALAR_NONE, and otherwise what
 * ipt_?imatcopy return.
 */
IPT_API ipt_status ipt_imatcopy(cl_command_queue queue, char ordering, char trans, size_t rows,
                                size_t cols, const void* alpha, cl_mem buffer, size_t offset,
                                size_t lda, size_t ldb, cl_uint num_events_in_wait_list,
                                const cl_event* event_wait_list, cl_event* event, size_t elem_size,
                                ipt_scalar_type type);

/*
 * Stores in *bytes how many bytes, counted from the matrix's offset, a buffer needs so
 * that the fastest plan for this shape can pad into the room past the matrix (borrowed,
 * see ipt_transpose) on this device: rows * cols * elem_size, or up to 0.5% more where
 * that pays. From 10^6 elements the room and the scratch of the call together stay
 * within 0.6% of the matrix (the call keeps a copy of the room in scratch); where they
 * would not, the plan keeps its padding in scratch and *bytes is the matrix's size.
 * Never more than CL_DEVICE_MAX_MEM_ALLOC_SIZE unless the matrix itself is: where the
 * padded size would be, the matrix's size.
 *
 * Returns IPT_SUCCESS, IPT_INVALID_DEVICE, IPT_INVALID_VALUE (bytes is NULL),
 * IPT_INVALID_ELEMENT_SIZE, IPT_SIZE_OVERFLOW or IPT_MATRIX_TOO_LARGE (the matrix is
 * larger than one allocation of the device holds).
 */
IPT_API ipt_status ipt_padded_size(cl_device_id device, size_t rows, size_t cols, size_t elem_size,
                                   size_t* bytes);

/*
 * Plans (for tests, tuning and curious users). A transposition is a sequence of
 * elementary transpositions (Sung et al., TPDS 2015); ipt_plan tells which one libipt
 * picks for a shape on a device, and ipt_transpose_with_options runs a caller-adjusted
 * one. Everything else about a call is as for ipt_transpose.
 */
typedef enum ipt_sequence {
  IPT_SEQUENCE_AUTO = 0,      /* the planner chooses (ipt_plan_options only) */
  IPT_SEQUENCE_SQUARE = 1,    /* tiled swap across the diagonal; rows == cols */
  IPT_SEQUENCE_ONE_STAGE = 2, /* cycle following over single elements: any shape, slow */
  IPT_SEQUENCE_2_1 = 3,       /* 010! (M', m, N) then 100! (M', N, m): needs m x N tiles */
  IPT_SEQUENCE_2_2 = 4,       /* 100! (M, N', n) then 010! (N', M, n): needs M x n tiles */
  IPT_SEQUENCE_3_1 = 5,       /* 100!, 0010! (m x n tiles), 0100!: best when m < n */
  IPT_SEQUENCE_3_2 = 6,       /* 0100!, 0010! (m x n tiles), 100!: best when m >= n */
  IPT_SEQUENCE_4_1 = 7,       /* Gustavson's 0100!, 0010!, 1000!, 0100!: for comparison */
  IPT_SEQUENCE_4_2 = 8,       /* 0100!, 1000!, 0010!, 0100!: for comparison */
  IPT_SEQUENCE_ON_CHIP = 9    /* one pass with the whole matrix held on chip (small */
                              /* matrices), one kernel that falls back to cycle */
                              /* following when the device cannot run all its */
                              /* work-groups at once; see ipt_transpose */
} ipt_sequence;

/* A static, short name of a sequence: "auto", "square", "1", "2.1", "2.2", "3.1", "3.2",
 * "4.1", "4.2" or "on-chip", and "unknown" for any other value; never NULL. */
IPT_API const char* ipt_sequence_name(ipt_sequence sequence);

typedef enum ipt_padding {
  IPT_PADDING_AUTO = 0, /* pad when the buffer has room and it is expected to be faster */
  IPT_PADDING_OFF = 1   /* never pad: nothing beyond the matrix is used */
} ipt_padding;

typedef struct ipt_plan_options {
  ipt_sequence sequence; /* IPT_SEQUENCE_AUTO, or the sequence to use */
  size_t m;              /* rows factor (m divides the padded rows) for 2.1/3.x/4.x; 0: auto */
  size_t n;              /* cols factor (n divides the padded cols) for 2.2/3.x/4.x; 0: auto */
  ipt_padding padding;   /* automatic padding (for IPT_SEQUENCE_AUTO), or none */
  size_t padded_rows;    /* a padded shape to use (>= rows, >= cols; 0: the caller's), with */
  size_t padded_cols;    /* any sequence; the buffer must have room for it */
  size_t max_bytes;      /* bytes from the offset a padded plan may borrow (beyond: its */
                         /* extra elements in scratch); 0: the buffer's */
                         /* size for a call, no limit for ipt_plan */
} ipt_plan_options;

typedef struct ipt_plan_info {
  ipt_sequence sequence;  /* never IPT_SEQUENCE_AUTO */
  size_t m, n;            /* factors the sequence uses (1 where unused) */
  size_t padded_rows;     /* rows and cols of the matrix actually transposed (the */
  size_t padded_cols;     /* caller's unless the plan pads) */
  unsigned num_stages;    /* kernels enqueued per call (padding, unpadding and the copies */
                          /* of borrowed bytes included; an on-chip plan: 1) */
  size_t scratch_bytes;   /* device scratch allocated per call (flags, borrowed bytes) */
  size_t borrowed_bytes;  /* bytes past the matrix in the caller's buffer that a call */
                          /* uses as workspace and gives back (a padded plan) */
  char description[1024]; /* the plan in words, NUL-terminated, possibly truncated */
} ipt_plan_info;

/*
 * Fills *info with the plan for transposing rows x cols elem_size-byte elements on
 * `device` with `options` (NULL: automatic). IPT_OVERRIDES applies as for a call. The
 * plan is the one a call gets when its buffer has room for any padding (ipt_padded_size
 * bytes); options->max_bytes gives the room of a smaller buffer. An empty matrix (rows
 * or cols 0), which a call returns at once for, has the plan of no kernel: num_stages 0.
 * ipt_plan compiles nothing: where the device refuses a compiled kernel's work-group size
 * or the on-chip kernel, a call plans again within what the device accepts, and runs a
 * plan ipt_plan did not describe.
 * Returns IPT_SUCCESS, IPT_INVALID_DEVICE, IPT_INVALID_VALUE (info NULL, an unknown
 * sequence or padding, or options that cannot work for this shape: a factor that does not
 * divide, tiles that do not fit, IPT_SEQUENCE_SQUARE for rows != cols, a padded shape
 * smaller than the matrix or with padding off), IPT_BUFFER_TOO_SMALL (a padded shape
 * beyond max_bytes), IPT_INVALID_ELEMENT_SIZE, IPT_SIZE_OVERFLOW, IPT_MATRIX_TOO_LARGE
 * (the matrix or the padded shape is larger than one allocation of the device holds;
 * where options->max_bytes holds the matrix, up to 4 allocations, as in a call on a
 * buffer that a driver allocated past CL_DEVICE_MAX_MEM_ALLOC_SIZE: docs/guide.md) or
 * IPT_OUT_OF_RESOURCES (the plan's scratch would be larger than one allocation).
 */
IPT_API ipt_status ipt_plan(cl_device_id device, size_t rows, size_t cols, size_t elem_size,
                            const ipt_plan_options* options, ipt_plan_info* info);

/*
 * ipt_plan for a call of ipt_transpose_batched: the plan of `batch` matrices of rows x cols
 * (padded_rows and padded_cols are the matrix's, or, for a batch in parts of one matrix,
 * the shape each matrix is padded to in scratch; the description names the parts and
 * lists the first part's kernels; num_stages counts every part's).
 * Options apply to every matrix; a padded shape is refused with IPT_INVALID_VALUE.
 */
IPT_API ipt_status ipt_plan_batched(cl_device_id device, size_t batch, size_t rows, size_t cols,
                                    size_t elem_size, const ipt_plan_options* options,
                                    ipt_plan_info* info);

/* The plan of a permutation (ipt_plan_permute). */
typedef struct ipt_permute_info {
  size_t rank;               /* axes of the permutation as carried out: those of size 1 */
  size_t dims[IPT_MAX_RANK]; /* dropped, adjacent ones that stay adjacent merged, and a */
  size_t perm[IPT_MAX_RANK]; /* last axis that stays last folded into the element */
  size_t elem_size;          /* the element the kernels move (elem_size or larger) */
  unsigned num_swaps;        /* block swaps [P][A][B][S] -> [P][B][A][S] */
  unsigned num_stages;       /* kernels enqueued per call */
  size_t scratch_bytes;      /* device scratch allocated per call */
  size_t borrowed_bytes;     /* bytes past the tensor used and given back (one transposition) */
  char description[2048];    /* the plan in words, NUL-terminated, possibly truncated */
} ipt_permute_info;

/*
 * Fills *info with the plan of ipt_permute for this tensor on `device`, in a buffer with
 * room for any padding. Statuses as ipt_permute's for the arguments it takes, and
 * IPT_INVALID_DEVICE, IPT_INVALID_VALUE (info NULL), IPT_MATRIX_TOO_LARGE. An empty
 * tensor has the plan of no kernel.
 */
IPT_API ipt_status ipt_plan_permute(cl_device_id device, size_t rank, const size_t* dims,
                                    const size_t* perm, size_t elem_size, ipt_permute_info* info);

/*
 * ipt_transpose with a caller-adjusted plan (`options`, NULL: automatic; an explicit
 * sequence takes precedence over IPT_OVERRIDES). Returns what ipt_transpose returns, and
 * IPT_INVALID_VALUE for options that cannot work (see ipt_plan); the buffer is then
 * unchanged.
 */
IPT_API ipt_status ipt_transpose_with_options(cl_command_queue queue, cl_mem buffer, size_t offset,
                                              size_t rows, size_t cols, size_t elem_size,
                                              const ipt_plan_options* options,
                                              cl_uint num_events_in_wait_list,
                                              const cl_event* event_wait_list, cl_event* event);

/* How ipt_transpose_host moves a matrix. */
typedef enum ipt_host_scheme {
  IPT_HOST_AUTO = 0,   /* the CPU without a queue, for a square matrix or one of */
                       /* fewer than 256 KiB; else the device */
  IPT_HOST_DEVICE = 1, /* upload, transpose in place on the queue's device, download */
  IPT_HOST_CPU = 2     /* the native CPU path, on threads of the calling process */
} ipt_host_scheme;

/* Whether the device path may let the driver pin the host memory for its transfers. */
typedef enum ipt_host_pinning {
  IPT_HOST_PIN_AUTO = 0, /* for matrices of 4 MiB and more (pinning costs each call */
                         /* more than it saves below) */
  IPT_HOST_PIN_OFF = 1,  /* plain reads and writes of the host memory */
  IPT_HOST_PIN_ON = 2    /* the host memory wrapped in a CL_MEM_USE_HOST_PTR buffer for */
                         /* the upload and the download, whatever its size */
} ipt_host_pinning;

/* The most slices (queues) of the device path's asynchronous scheme. */
#define IPT_HOST_MAX_SLICES 16

typedef struct ipt_host_options {
  ipt_host_scheme scheme;   /* IPT_HOST_AUTO, or the way to use */
  unsigned threads;         /* host threads of the CPU path and of the asynchronous */
                            /* scheme's copies; 0: one per hardware thread; fewer for a */
                            /* small matrix, and the copies at most 4 per hardware thread */
  ipt_host_pinning pinning; /* the synchronous scheme's transfers */
  unsigned slices;          /* the device path's Q: 0 the library's choice (4 from 16 MiB */
                            /* on, else 1), 1 the synchronous scheme, 2 to */
                            /* IPT_HOST_MAX_SLICES the asynchronous scheme on Q queues */
} ipt_host_options;

/*
 * Transposes, in place, the rows x cols row-major matrix of elem_size-byte elements (1,
 * 2, 4, 8 or 16) at `host`, in host memory: afterwards `host` holds the cols x rows
 * row-major transpose. Blocks until it does. `options` NULL: automatic. Given a queue,
 * every way (the CPU's too) first waits for the queue's earlier commands, so a read into
 * `host` still pending there is transposed, not what `host` held before it.
 *
 * Through the device (`queue`'s): the matrix is uploaded into a device buffer of exactly
 * its size, transposed there in place with the library's usual scratch beside it (never
 * a second matrix on the device), and downloaded. The host memory needs no alignment and
 * no pinning; `host` is read by the upload and written only by the download, once the
 * transposition has completed, so a call that fails before leaves it unchanged; a
 * download that fails is done again as a plain read of the device's transpose, and when
 * that fails too the call returns IPT_BUFFER_UNDEFINED (the host matrix is then partly
 * written). For matrices of 4 MiB and more (options->pinning: see ipt_host_pinning),
 * the host memory is wrapped in a CL_MEM_USE_HOST_PTR buffer for the call's transfers,
 * which lets the driver pin it instead of staging it. Memory you allocate pinned (mapped
 * from a CL_MEM_ALLOC_HOST_PTR buffer) moves fastest either way. That is the synchronous
 * scheme (options->slices 1). The asynchronous scheme (slices Q from 2; by default Q = 4
 * for matrices of 16 MiB and more) moves the matrix in chunks through pinned staging
 * buffers of the library's (16 MiB per slice, kept for later calls; options->pinning does
 * not apply), copied on options->threads host threads (0: one per hardware thread, at
 * most one per 4 MiB) while the driver moves the chunks before, and transposes it in
 * phases on Q queues of its own, each slice's first phase starting as soon as its rows
 * are up (docs/guide.md). It too writes the host memory only after the whole transposition has
 * completed on the device.
 * A matrix larger than one allocation of the device (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is
 * streamed through it in parts of half an allocation: blocks of rows transposed part by
 * part on the device, then blocks of elements swapped across the matrix on the host,
 * then blocks of the transpose's rows transposed part by part (docs/guide.md). The host
 * memory is written part by part: a part whose device work fails is done on the CPU
 * instead (the call succeeds), and a failure that leaves the matrix half-way (a download
 * that fails twice, host work that cannot start even on one thread) returns
 * IPT_BUFFER_UNDEFINED.
 * On the CPU (no queue, IPT_HOST_CPU, a square or a small matrix): square matrices swap
 * tiles across the diagonal on `threads` threads (fewer for a small matrix); other shapes
 * take two passes of runs of elements where a side has a usable factor, else Catanzaro
 * et al.'s row and column permutations, both slower than tiles (docs/guide.md).
 * `queue` may be NULL for the CPU path. Nothing outside the matrix's rows * cols *
 * elem_size bytes is read or written.
 *
 * Returns IPT_SUCCESS, IPT_INVALID_VALUE (host NULL with a non-empty matrix, an unknown
 * scheme or pinning, slices above IPT_HOST_MAX_SLICES), IPT_INVALID_COMMAND_QUEUE (IPT_HOST_DEVICE
 * without a valid queue), IPT_INVALID_ELEMENT_SIZE, IPT_SIZE_OVERFLOW, IPT_OUT_OF_HOST_MEMORY, or
 * the statuses of ipt_transpose and OpenCL error codes (a device allocation that fails:
 * CL_MEM_OBJECT_ALLOCATION_FAILURE or CL_OUT_OF_RESOURCES), all with `host` unchanged,
 * and IPT_BUFFER_UNDEFINED (above).
 */
IPT_API ipt_status ipt_transpose_host(cl_command_queue queue, void* host, size_t rows, size_t cols,
                                      size_t elem_size, const ipt_host_options* options);
IPT_API ipt_status ipt_transpose_host_f32(cl_command_queue queue, float* host, size_t rows,
                                          size_t cols, const ipt_host_options* options);
IPT_API ipt_status ipt_transpose_host_f64(cl_command_queue queue, double* host, size_t rows,
                                          size_t cols, const ipt_host_options* options);

/*
 * Builds, for `device` of `context`, every kernel program that libipt's calls on
 * elem_size-byte elements can launch (any shape, exact or padded buffer, batches, imatcopy
 * without alpha or conjugation), so that no later call compiles: the first call of a new
 * shape then costs what a repeated call does, plus planning (well under a millisecond).
 * The programs are built on several threads at once and kept in the disk cache for later
 * processes (see docs/latency-and-cache.md). Without it, a call builds the programs its
 * own plan launches on first use (a fraction of a second each when the driver's cache is
 * cold); this call builds them all at a moment of your choosing, which takes longer than
 * any one call: 0.2 s for f32 on an H200 with NVIDIA's cache warm, 8 to 12 s cold.
 * Not covered: plans forced through ipt_plan_options or IPT_OVERRIDES, and imatcopy's
 * alpha and conjugation, whose kernels are built on their first use. It blocks until
 * done and touches none of your buffers or queues. To overlap it with your own start-up,
 * call it on a thread of its own: calls made meanwhile on other threads wait only for
 * the programs their own plans launch, and no program is built twice.
 *
 * Returns IPT_SUCCESS, IPT_INVALID_CONTEXT, IPT_INVALID_DEVICE (NULL, invalid, or not in
 * the context), IPT_INVALID_ELEMENT_SIZE, IPT_BUILD_PROGRAM_FAILURE or an OpenCL error
 * code.
 */
IPT_API ipt_status ipt_warmup(cl_context context, cl_device_id device, size_t elem_size);

/*
 * Memory that another API allocated: CUDA (cuMemCreate with
 * CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, exported with cuMemExportToShareableHandle)
 * or Vulkan (vkGetMemoryFdKHR, opaque fd). Makes in *buffer a buffer of `size` bytes over
 * the memory that the opaque file descriptor `fd` refers to, for `device` of `context`
 * (cl_khr_external_memory_opaque_fd, OpenCL 3.0). The descriptor stays yours: close it
 * when you like, the buffer keeps the memory. Release the buffer with clReleaseMemObject.
 *
 * Every libipt call on such a buffer acquires it before its first command
 * (clEnqueueAcquireExternalMemObjectsKHR, after the call's wait list) and releases it
 * after its last; the call's event is the release's. Order the call after the other
 * API's work on the memory yourself: wait for it on the host (cuStreamSynchronize), or
 * make an event of the wait list complete when it is done. docs/cuda-arrays.md shows the
 * whole sequence.
 *
 * Returns IPT_SUCCESS, IPT_INVALID_CONTEXT, IPT_INVALID_DEVICE (NULL, invalid, or not in
 * the context), IPT_INVALID_VALUE (buffer NULL, fd negative, size 0),
 * IPT_EXTERNAL_MEMORY_UNSUPPORTED (the device does not import opaque file descriptors,
 * or the OpenCL loader predates 3.0) or the OpenCL error of clCreateBufferWithProperties
 * (a descriptor that is not such memory, or a size past it). *buffer is set only on
 * success.
 */
IPT_API ipt_status ipt_import_memory_fd(cl_context context, cl_device_id device, int fd,
                                        size_t size, cl_mem* buffer);

/*
 * Releases every compiled kernel program the library caches, the plans it has checked
 * and the small scratch buffers finished calls left for the next ones (and with them its
 * references to their contexts). Later calls compile again on first use. Safe to call at
 * any time, also while other threads transpose. Always returns IPT_SUCCESS.
 */
IPT_API ipt_status ipt_clear_cache(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IPT_IPT_H */
