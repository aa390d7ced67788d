/* SPDX-License-Identifier: Apache-2.0 */
/* A downstream MPI program on the installed libipt_mpi (C API): each rank transposes its
 * block of a float matrix distributed over MPI_COMM_WORLD and checks its block of the
 * transpose. */
#define CL_TARGET_OPENCL_VERSION 120
#include <ipt/ipt_mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* The first GPU of any platform, else the first device of any kind. */
static cl_device_id pick_device(void) {
  cl_platform_id platforms[16];
  cl_uint count = 0;
  cl_device_id device = NULL;
  if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS) return NULL;
  if (count > 16) count = 16;
  for (cl_uint i = 0; i < count && device == NULL; ++i)
    clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU, 1, &device, NULL);
  for (cl_uint i = 0; i < count && device == NULL; ++i)
    clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &device, NULL);
  return device;
}

int main(int argc, char** argv) {
  enum { ROWS = 300, COLS = 200 };
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  ipt_mpi_local local;
  ipt_status status = ipt_mpi_local_size(MPI_COMM_WORLD, ROWS, COLS, &local);
  /* At least one element: OpenCL has no empty buffers. */
  const size_t elements = local.alloc_elements > 0 ? local.alloc_elements : 1;
  float* host = calloc(elements, sizeof(float));
  for (size_t i = 0; i < local.local_rows; ++i)
    for (size_t j = 0; j < COLS; ++j)
      host[i * COLS + j] = (float)((local.local_row_start + i) * COLS + j);

  cl_device_id device = pick_device();
  cl_int err = CL_SUCCESS;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 elements * sizeof(float), host, &err);
  if (status == IPT_SUCCESS)
    status = ipt_mpi_transpose_f32(MPI_COMM_WORLD, queue, buffer, 0, ROWS, COLS, local.local_rows,
                                   local.local_row_start, 0);
  int wrong = 0;
  if (status != IPT_SUCCESS) {
    fprintf(stderr, "rank %d: %s: %s\n", rank, ipt_status_string(status),
            ipt_mpi_last_error_message());
    wrong = 1;
  } else {
    clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, elements * sizeof(float), host, 0, NULL, NULL);
    /* Row j of the transpose held here is column local_col_start + j of the matrix. */
    for (size_t j = 0; j < local.local_cols; ++j)
      for (size_t i = 0; i < ROWS; ++i)
        wrong += host[j * ROWS + i] != (float)(i * COLS + local.local_col_start + j);
  }
  clReleaseMemObject(buffer);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  free(host);

  int all = 0;
  MPI_Allreduce(&wrong, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("C: %d x %d over %d ranks transposed in place: %d elements wrong\n", ROWS, COLS, ranks,
           all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
