/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libipt_mpi: in-place transposition of a matrix distributed over the ranks of an MPI
 * communicator by blocks of rows, each rank's block in a cl_mem of its own device, after
 * FFTW 3's fftw_mpi_plan_many_transpose. Built when CMake finds MPI; link ipt::mpi
 * (pkg-config ipt-mpi). Every call returns an ipt_status and never throws or aborts.
 */
#ifndef IPT_IPT_MPI_H
#define IPT_IPT_MPI_H

#include <mpi.h>

#include "ipt/ipt.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define IPT_MPI_API __attribute__((visibility("default")))
#else
#define IPT_MPI_API
#endif

/* How the ranks exchange their chunks (ipt_mpi_options.scheme). */
typedef enum ipt_mpi_scheme {
  IPT_MPI_SCHEME_AUTO = 0,     /* the cost model's choice (ipt_mpi_plan says which) */
  IPT_MPI_SCHEME_PAIRWISE = 1, /* S - 1 rounds, each rank swapping its chunk with one
                                  partner piece by piece (MPI_Sendrecv), the device
                                  transfers of the next and previous pieces overlapped
                                  with each swap */
  IPT_MPI_SCHEME_ALLTOALL = 2  /* rounds of one MPI_Alltoallv, each moving a piece of every
                                  chunk between every pair of ranks at once */
} ipt_mpi_scheme;

/* Options of a distributed call; NULL means every field 0. Every rank must pass the same
 * blocks and scheme (checked); the ranks use the smallest staging budget any of them
 * passes, so that both sides of a message cut the same pieces. */
typedef struct ipt_mpi_options {
  size_t block_rows;     /* rows of the matrix per rank (FFTW's block0): rank r holds rows
                            [r b, min((r + 1) b, rows)); 0: ceil(rows / P) */
  size_t block_cols;     /* rows of the transpose per rank (FFTW's block1); 0: ceil(cols / P) */
  ipt_mpi_scheme scheme; /* IPT_MPI_SCHEME_AUTO, or the scheme to use */
  size_t staging_bytes;  /* host memory each rank may use to stage the exchange (at least
                            4 KiB); 0: the process's default (ipt_mpi_set_staging_bytes) */
} ipt_mpi_options;

/* A rank's share of a rows x cols matrix and of its cols x rows transpose. With blocks of
 * b rows and c transposed rows (ipt_mpi_options), rank r holds rows [r b, min((r + 1) b,
 * rows)) before and rows [r c, min((r + 1) c, cols)) of the transpose after: the last
 * ranks' blocks may be shorter or empty. alloc_elements: the elements the rank's buffer
 * must hold from the call's offset, as FFTW's alloc_local: the local steps work on a
 * block padded to b x (S c) elements, S the number of ranks with a non-empty block before
 * or after (so about rows * cols / P with the default blocks; 0 on a rank with neither). */
typedef struct ipt_mpi_local {
  size_t local_rows, local_row_start; /* rows of the matrix the rank holds before */
  size_t local_cols, local_col_start; /* rows of the transpose it holds after */
  size_t alloc_elements;
} ipt_mpi_local;

/* The rank's share in `comm` of a rows x cols matrix, with FFTW's default blocks, or with
 * the blocks of `options` (NULL: the default ones). Returns IPT_SUCCESS, IPT_INVALID_VALUE
 * (a null `local`, an invalid communicator, blocks that do not cover the matrix with the
 * ranks of `comm`) or IPT_SIZE_OVERFLOW. Not collective. */
IPT_MPI_API ipt_status ipt_mpi_local_size(MPI_Comm comm, size_t rows, size_t cols,
                                          ipt_mpi_local* local);
IPT_MPI_API ipt_status ipt_mpi_local_size_with_options(MPI_Comm comm, size_t rows, size_t cols,
                                                       const ipt_mpi_options* options,
                                                       ipt_mpi_local* local);

/* The rank's input block is stored transposed (its cols x local_rows matrix). */
#define IPT_MPI_TRANSPOSED_IN 1u
/* The rank's output block is left transposed (the rows x local_cols matrix). */
#define IPT_MPI_TRANSPOSED_OUT 2u

/* The process's default host staging per rank (16 MiB to start with; at least 4 KiB).
 * Returns the previous value. */
IPT_MPI_API size_t ipt_mpi_set_staging_bytes(size_t bytes);

/*
 * Collective over `comm`. The rows x cols matrix of elem_size-byte elements (1, 2, 4, 8 or
 * 16) is distributed by blocks of rows: this rank holds rows [local_row_start,
 * local_row_start + local_rows) at element `offset` of `buffer` (row-major, or transposed
 * with IPT_MPI_TRANSPOSED_IN), which must hold ipt_mpi_local_size's alloc_elements from
 * there. Afterwards the rank holds rows [local_col_start, local_col_start + local_cols) of
 * the cols x rows transpose in the same place (row-major, or transposed with
 * IPT_MPI_TRANSPOSED_OUT). local_rows and local_row_start must be the rank's share
 * (checked). A rank whose alloc_elements is 0 (it holds nothing before or after) may pass
 * NULL for both queue and buffer. Per rank: the padded block (alloc_elements) on the
 * device, libipt's usual scratch, the staging budget in pinned host memory, and a few
 * bytes per rank of the communicator; never a second copy of the block. The exchange's
 * messages go over a duplicate of `comm`, so messages of the caller's in flight on `comm`
 * are safe; it is made by the first call on `comm` that exchanges, kept as an attribute
 * of `comm` and freed with it. Blocks until done; the rank's queue (if any) is finished
 * on return. In-order and out-of-order queues both work. Kernels read and write the
 * buffer, and so, where ranks exchange, do host transfers: created with none of
 * CL_MEM_READ_ONLY and CL_MEM_WRITE_ONLY, nor (with more than one active rank)
 * CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_WRITE_ONLY and CL_MEM_HOST_NO_ACCESS (else
 * IPT_INVALID_MEM_OBJECT on every rank).
 *
 * Bad input on any rank (sizes, element size, flags, blocks or scheme that differ between
 * ranks, a block that is not the rank's share, a buffer too small or with such flags, an
 * invalid queue or buffer, or a buffer of another context than the queue's) returns the
 * same status on every rank, with every buffer unchanged;
 * ipt_mpi_last_error_message() says which rank found what. A failure of a local step
 * before the exchange is undone on every rank and returns that failure's status: every
 * rank's block is as it was (the rest of its alloc_elements is the call's workspace), or, if
 * undoing fails too, IPT_BUFFER_UNDEFINED on every rank. A failure during or after the
 * exchange returns IPT_BUFFER_UNDEFINED on every rank. IPT_INVALID_VALUE, on every rank,
 * for IPT_MPI_SCHEME_ALLTOALL with less than 4 (S - 1) bytes of staging. A communicator
 * that is not a valid intracommunicator returns IPT_INVALID_VALUE on the ranks that pass
 * it (the others cannot be told); errors of MPI itself go to the communicator's error
 * handler (MPI's default aborts the job).
 */
IPT_MPI_API ipt_status ipt_mpi_transpose(MPI_Comm comm, cl_command_queue queue, cl_mem buffer,
                                         size_t offset, size_t rows, size_t cols, size_t elem_size,
                                         size_t local_rows, size_t local_row_start, unsigned flags);
IPT_MPI_API ipt_status ipt_mpi_transpose_with_options(MPI_Comm comm, cl_command_queue queue,
                                                      cl_mem buffer, size_t offset, size_t rows,
                                                      size_t cols, size_t elem_size,
                                                      size_t local_rows, size_t local_row_start,
                                                      unsigned flags,
                                                      const ipt_mpi_options* options);
/* ipt_mpi_transpose of floats, and of doubles (IPT_FP64_NOT_SUPPORTED on every rank when
 * any rank's device lacks double support), the latter also with options. */
IPT_MPI_API ipt_status ipt_mpi_transpose_f32(MPI_Comm comm, cl_command_queue queue, cl_mem buffer,
                                             size_t offset, size_t rows, size_t cols,
                                             size_t local_rows, size_t local_row_start,
                                             unsigned flags);
IPT_MPI_API ipt_status ipt_mpi_transpose_f64(MPI_Comm comm, cl_command_queue queue, cl_mem buffer,
                                             size_t offset, size_t rows, size_t cols,
                                             size_t local_rows, size_t local_row_start,
                                             unsigned flags);
IPT_MPI_API ipt_status ipt_mpi_transpose_f64_with_options(MPI_Comm comm, cl_command_queue queue,
                                                          cl_mem buffer, size_t offset, size_t rows,
                                                          size_t cols, size_t local_rows,
                                                          size_t local_row_start, unsigned flags,
                                                          const ipt_mpi_options* options);

/* A rank's plan for a distributed call, as ipt_mpi_plan gives it. */
typedef struct ipt_mpi_plan_info {
  ipt_mpi_scheme scheme; /* never IPT_MPI_SCHEME_AUTO */
  size_t ranks;          /* P, the ranks of the communicator */
  size_t active_ranks;   /* S, those with a block before or after */
  size_t block_rows, block_cols;
  size_t chunk_bytes;       /* the c x b chunk each pair of ranks swaps */
  size_t piece_bytes;       /* the most a message moves (chunks go in pieces) */
  size_t rounds;            /* MPI calls of the exchange on an active rank */
  size_t staging_bytes;     /* host memory an active rank stages through */
  size_t exchange_bytes;    /* bytes an active rank sends (and receives) */
  double modelled_seconds;  /* the cost model's time for the chosen scheme */
  double modelled_pairwise; /* ... and for each scheme */
  double modelled_alltoall;
  char description[1024]; /* the plan in words, NUL-terminated, possibly truncated */
} ipt_mpi_plan_info;

/* The plan of ipt_mpi_transpose_with_options with these arguments, as this rank sees it:
 * the exchange is the same on every rank (a rank that holds nothing makes no pairwise
 * calls and stages nothing); it uses this rank's staging budget, where the call uses the
 * smallest of all ranks'. Not collective. Returns IPT_SUCCESS, or the status the call
 * would return for these arguments (IPT_INVALID_VALUE, IPT_INVALID_ELEMENT_SIZE,
 * IPT_SIZE_OVERFLOW). */
IPT_MPI_API ipt_status ipt_mpi_plan(MPI_Comm comm, size_t rows, size_t cols, size_t elem_size,
                                    unsigned flags, const ipt_mpi_options* options,
                                    ipt_mpi_plan_info* info);

/* What the calling thread's last failed libipt_mpi call found, and on which rank; "" when
 * its last call succeeded. Never NULL. */
IPT_MPI_API const char* ipt_mpi_last_error_message(void);

/* For language bindings that check arguments before calling (a negative Fortran size):
 * records `message` (NULL: none) as the calling thread's ipt_mpi_last_error_message() and
 * returns `status`. */
IPT_MPI_API ipt_status ipt_mpi_set_last_error(ipt_status status, const char* message);

/* For bindings whose communicators are Fortran handles (MPI_Comm_f2c). */
IPT_MPI_API ipt_status ipt_mpi_local_size_fortran(MPI_Fint comm, size_t rows, size_t cols,
                                                  const ipt_mpi_options* options,
                                                  ipt_mpi_local* local);
IPT_MPI_API ipt_status ipt_mpi_transpose_fortran(MPI_Fint comm, cl_command_queue queue,
                                                 cl_mem buffer, size_t offset, size_t rows,
                                                 size_t cols, size_t elem_size, size_t local_rows,
                                                 size_t local_row_start, unsigned flags,
                                                 const ipt_mpi_options* options);
IPT_MPI_API ipt_status ipt_mpi_transpose_f64_fortran(MPI_Fint comm, cl_command_queue queue,
                                                     cl_mem buffer, size_t offset, size_t rows,
                                                     size_t cols, size_t local_rows,
                                                     size_t local_row_start, unsigned flags,
                                                     const ipt_mpi_options* options);

#ifdef __cplusplus
}
#endif

#endif /* IPT_IPT_MPI_H */
