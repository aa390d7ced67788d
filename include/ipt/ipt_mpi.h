/*
 * libipt_mpi: in-place transposition of a matrix distributed over the ranks of an MPI
 * communicator by blocks of rows, each rank's block in a cl_mem of its own device, after
 * FFTW 3's fftw_mpi_plan_many_transpose. Built when CMake finds MPI; link ipt::mpi
 * (pkg-config ipt-mpi).
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

/* A rank's share of a rows x cols matrix and of its cols x rows transpose: FFTW's default
 * block distribution (blocks of ceil(rows / P) rows, the last ones shorter or empty; the
 * transpose's rows likewise by ceil(cols / P)). alloc_elements: the elements the rank's
 * buffer must hold from the call's offset, as FFTW's alloc_local (the local steps work
 * on blocks padded to the full block size). */
typedef struct ipt_mpi_local {
  size_t local_rows, local_row_start; /* rows of the matrix the rank holds before */
  size_t local_cols, local_col_start; /* rows of the transpose it holds after */
  size_t alloc_elements;
} ipt_mpi_local;

/* The rank's share in `comm` of a rows x cols matrix. Returns IPT_SUCCESS, or
 * IPT_INVALID_VALUE (a null `local`) or IPT_SIZE_OVERFLOW. Not collective. */
IPT_MPI_API ipt_status ipt_mpi_local_size(MPI_Comm comm, size_t rows, size_t cols,
                                          ipt_mpi_local* local);

/* The rank's input block is stored transposed (its cols x local_rows matrix). */
#define IPT_MPI_TRANSPOSED_IN 1u
/* The rank's output block is left transposed (the rows x local_cols matrix). */
#define IPT_MPI_TRANSPOSED_OUT 2u

/* Host memory each rank may use to stage the exchange (default 16 MiB; at least 4 KiB).
 * Process-wide; returns the previous value. */
IPT_MPI_API size_t ipt_mpi_set_staging_bytes(size_t bytes);

/*
 * Collective over `comm`. The rows x cols matrix of elem_size-byte elements is
 * distributed by blocks of rows: this rank holds rows [local_row_start, local_row_start +
 * local_rows) at element `offset` of `buffer` (row-major, or transposed with
 * IPT_MPI_TRANSPOSED_IN), which must hold ipt_mpi_local_size's alloc_elements from there.
 * Afterwards the rank holds rows [local_col_start, local_col_start + local_cols) of the
 * cols x rows transpose in the same place (row-major, or transposed with
 * IPT_MPI_TRANSPOSED_OUT). The blocks must be FFTW's default ones (ipt_mpi_local_size).
 * Per rank: the local block and its padding (alloc_elements) on the device, libipt's
 * usual scratch, and the staging budget in host memory; never a second copy of the
 * block. Blocks until done.
 *
 * Bad input on any rank (sizes, element size or flags that differ between ranks, a block
 * that is not the rank's share, a buffer too small, an invalid queue) returns the same
 * status on every rank, with every buffer unchanged. A failure of a local step before the
 * exchange is undone on every rank; one during the exchange returns IPT_BUFFER_UNDEFINED.
 */
IPT_MPI_API ipt_status ipt_mpi_transpose(MPI_Comm comm, cl_command_queue queue, cl_mem buffer,
                                         size_t offset, size_t rows, size_t cols, size_t elem_size,
                                         size_t local_rows, size_t local_row_start, unsigned flags);

#ifdef __cplusplus
}
#endif

#endif /* IPT_IPT_MPI_H */
