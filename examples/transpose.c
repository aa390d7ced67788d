/* SPDX-License-Identifier: Apache-2.0 */
/* Transpose a float matrix in place on an OpenCL device (a GPU if there is one), from C. */
/* The OpenCL version this program is written for (clCreateCommandQueue is 1.2's). */
#define CL_TARGET_OPENCL_VERSION 120
#include <ipt/ipt.h>
#include <stdio.h>

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

int main(void) {
  enum { ROWS = 300, COLS = 500 };
  static float host[ROWS * COLS];
  for (int i = 0; i < ROWS * COLS; ++i) host[i] = (float)i; /* exact in a float */

  cl_device_id device = pick_device();
  if (device == NULL) return 2;
  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  cl_mem matrix =
      clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
  if (err != CL_SUCCESS) return 2;

  /* The ROWS x COLS row-major matrix becomes its COLS x ROWS transpose in place. */
  cl_event done;
  ipt_status status = ipt_transpose_f32(queue, matrix, 0, ROWS, COLS, 0, NULL, &done);
  if (status != IPT_SUCCESS) {
    fprintf(stderr, "%s: %s\n", ipt_status_string(status), ipt_last_error_message());
    return 1;
  }
  clEnqueueReadBuffer(queue, matrix, CL_TRUE, 0, sizeof host, host, 1, &done, NULL);
  clReleaseEvent(done);
  clReleaseMemObject(matrix);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);

  /* Element (c, r) of the transpose is element (r, c) of the matrix. */
  int wrong = 0;
  for (int c = 0; c < COLS; ++c)
    for (int r = 0; r < ROWS; ++r) wrong += host[c * ROWS + r] != (float)(r * COLS + c);
  printf("%d x %d transposed in place: %d of %d elements wrong\n", ROWS, COLS, wrong, ROWS * COLS);
  return wrong == 0 ? 0 : 1;
}
