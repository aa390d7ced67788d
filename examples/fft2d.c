/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A 2D complex FFT at 1x memory, from C: clFFT's 1D batched transforms along the rows,
 * libipt's in-place transpose, the 1D transforms along the rows again (the former
 * columns), and a transpose back. The result is checked against clFFT's own 2D transform
 * (out of place: it keeps a second matrix) and against a few frequencies summed on the
 * host in double precision.
 *
 *   fft2d [rows cols [rows_per_call]]
 *
 * rows_per_call: the most rows one clFFT 1D call transforms (default: all of them,
 * unless clFFT then asks for a temporary buffer; see fft_rows_create). IPT_DEVICE picks
 * the device by a part of "platform | device" (default: the first GPU, else the first
 * device). Exit status: 0 when the results agree, 1 when they do not, 2 on an error.
 */
#define _POSIX_C_SOURCE 200112L /* clock_gettime */
#define CL_TARGET_OPENCL_VERSION 120
#include <clFFT.h>
#include <ctype.h>
#include <ipt/ipt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Interleaved complex float: what clFFT's CLFFT_COMPLEX_INTERLEAVED single precision
 * layout holds, and what libipt moves as one element of elem_size 8. */
typedef struct {
  float re, im;
} cfloat;

/* clFFT's own statuses (those beyond OpenCL's), in the order of clFFT.h. */
static const char* clfft_status_name(long code) {
  static const char* const names[] = {
      "CLFFT_BUGCHECK",
      "CLFFT_NOTIMPLEMENTED (a length with a prime factor above 13?)",
      "CLFFT_TRANSPOSED_NOTIMPLEMENTED",
      "CLFFT_FILE_NOT_FOUND",
      "CLFFT_FILE_CREATE_FAILURE",
      "CLFFT_VERSION_MISMATCH",
      "CLFFT_INVALID_PLAN",
      "CLFFT_DEVICE_NO_DOUBLE",
      "CLFFT_DEVICE_MISMATCH"};
  if (code >= CLFFT_BUGCHECK && code < CLFFT_BUGCHECK + (long)(sizeof names / sizeof *names))
    return names[code - CLFFT_BUGCHECK];
  return "";
}

static void fail(const char* what, long code, const char* detail) {
  fflush(stdout);
  fprintf(stderr, "fft2d: %s failed with %ld%s%s\n", what, code, *detail ? ": " : "", detail);
  exit(2);
}

/* OpenCL and clFFT statuses share their values (clFFT's are a superset). */
#define CHECK(call)                                                                          \
  do {                                                                                       \
    long check_code_ = (long)(call);                                                         \
    if (check_code_ != CL_SUCCESS) fail(#call, check_code_, clfft_status_name(check_code_)); \
  } while (0)
#define CHECK_IPT(call)                                                                           \
  do {                                                                                            \
    ipt_status check_status_ = (call);                                                            \
    if (check_status_ != IPT_SUCCESS) fail(#call, (long)check_status_, ipt_last_error_message()); \
  } while (0)

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int contains_ignoring_case(const char* text, const char* part) {
  for (; *text; ++text) {
    size_t i = 0;
    while (part[i] && tolower((unsigned char)text[i]) == tolower((unsigned char)part[i])) ++i;
    if (part[i] == '\0') return 1;
  }
  return 0;
}

/* The device whose "platform | device" contains IPT_DEVICE when it is set, else the
 * first GPU of any platform, else the first device of any kind. */
static cl_device_id pick_device(void) {
  cl_platform_id platforms[16];
  cl_uint num_platforms = 0;
  const char* wanted = getenv("IPT_DEVICE");
  if (clGetPlatformIDs(16, platforms, &num_platforms) != CL_SUCCESS) return NULL;
  if (num_platforms > 16) num_platforms = 16;
  for (int pass = wanted && *wanted ? 0 : 1; pass < 3; ++pass) {
    for (cl_uint p = 0; p < num_platforms; ++p) {
      cl_device_id devices[16];
      cl_uint num_devices = 0;
      cl_device_type type = pass == 1 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL;
      if (clGetDeviceIDs(platforms[p], type, 16, devices, &num_devices) != CL_SUCCESS) continue;
      if (num_devices > 16) num_devices = 16;
      for (cl_uint d = 0; d < num_devices; ++d) {
        char platform_name[256] = "", device_name[256] = "", name[520];
        if (pass > 0) return devices[d];
        clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof platform_name - 1, platform_name,
                          NULL);
        clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof device_name - 1, device_name, NULL);
        snprintf(name, sizeof name, "%s | %s", platform_name, device_name);
        if (contains_ignoring_case(name, wanted)) return devices[d];
      }
    }
    if (pass == 0) {
      fprintf(stderr, "fft2d: IPT_DEVICE='%s' matches no OpenCL device\n", wanted);
      return NULL;
    }
  }
  fprintf(stderr, "fft2d: no OpenCL device\n");
  return NULL;
}

/* A baked in-place single-precision complex 1D plan of `batch` rows of `length`
 * elements; *tmp_bytes: the temporary buffer clFFT needs for it (0: none). */
static clfftPlanHandle rows_plan(cl_context context, cl_command_queue queue, size_t length,
                                 size_t batch, size_t* tmp_bytes) {
  clfftPlanHandle plan;
  size_t stride = 1;
  CHECK(clfftCreateDefaultPlan(&plan, context, CLFFT_1D, &length));
  CHECK(clfftSetPlanPrecision(plan, CLFFT_SINGLE));
  CHECK(clfftSetLayout(plan, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED));
  CHECK(clfftSetResultLocation(plan, CLFFT_INPLACE));
  CHECK(clfftSetPlanInStride(plan, CLFFT_1D, &stride));
  CHECK(clfftSetPlanOutStride(plan, CLFFT_1D, &stride));
  CHECK(clfftSetPlanDistance(plan, length, length));
  CHECK(clfftSetPlanBatchSize(plan, batch));
  CHECK(clfftBakePlan(plan, 1, &queue, NULL, NULL));
  CHECK(clfftGetTmpBufSize(plan, tmp_bytes));
  return plan;
}

/* The forward FFTs of the rows of a rows x length matrix, in calls of rows_per_call rows
 * (the last call: the rows left, with rest_plan). */
typedef struct {
  size_t rows, length, rows_per_call;
  clfftPlanHandle plan, rest_plan;
  int has_rest_plan;
  size_t tmp_bytes; /* the larger temporary buffer the two plans need */
} fft_rows;

static size_t gcd(size_t a, size_t b) {
  while (b != 0) {
    size_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/*
 * clFFT transforms a row longer than one pass holds (4096 elements on PoCL; the limit
 * follows the device's local memory), and rows of some other lengths, in several passes
 * through a temporary buffer as large as all the rows of the call: for one call of all
 * the rows, a second matrix. When a plan of all the rows asks for one, the rows go
 * through in calls of about 1/16 of them instead, each on a sub-buffer of the matrix, and
 * the temporary buffer is about 1/16 of the matrix. max_rows_per_call (0: that choice)
 * forces calls of at most that many rows, rounded up to what sub-buffer alignment allows.
 */
static void fft_rows_create(fft_rows* f, cl_context context, cl_device_id device,
                            cl_command_queue queue, size_t rows, size_t length,
                            size_t max_rows_per_call) {
  size_t per_call = max_rows_per_call, tmp = 0, rest_tmp = 0;
  f->rows = rows;
  f->length = length;
  f->has_rest_plan = 0;
  if (per_call == 0) {
    f->plan = rows_plan(context, queue, length, rows, &tmp);
    if (tmp == 0) {
      f->rows_per_call = rows;
      f->tmp_bytes = 0;
      return;
    }
    CHECK(clfftDestroyPlan(&f->plan));
    per_call = (rows + 15) / 16;
  }
  {
    /* A sub-buffer starts at a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN (in bits). */
    cl_uint align_bits = 0;
    size_t align, granule;
    CHECK(clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits,
                          NULL));
    align = align_bits >= 8 ? align_bits / 8 : 1;
    granule = align / gcd(align, length * sizeof(cfloat));
    per_call = (per_call + granule - 1) / granule * granule;
  }
  if (per_call > rows) per_call = rows;
  f->rows_per_call = per_call;
  f->plan = rows_plan(context, queue, length, per_call, &tmp);
  if (rows % per_call != 0) {
    f->rest_plan = rows_plan(context, queue, length, rows % per_call, &rest_tmp);
    f->has_rest_plan = 1;
  }
  f->tmp_bytes = tmp > rest_tmp ? tmp : rest_tmp;
}

/* Enqueues the row FFTs of `matrix`; tmp: a buffer of f->tmp_bytes (NULL if 0). */
static void fft_rows_enqueue(const fft_rows* f, cl_command_queue queue, cl_mem matrix, cl_mem tmp) {
  const size_t row_bytes = f->length * sizeof(cfloat);
  if (f->rows_per_call == f->rows) {
    CHECK(clfftEnqueueTransform(f->plan, CLFFT_FORWARD, 1, &queue, 0, NULL, NULL, &matrix, NULL,
                                tmp));
    return;
  }
  for (size_t first = 0; first < f->rows; first += f->rows_per_call) {
    size_t count = f->rows - first < f->rows_per_call ? f->rows - first : f->rows_per_call;
    cl_buffer_region region = {first * row_bytes, count * row_bytes};
    cl_int err;
    cl_mem part =
        clCreateSubBuffer(matrix, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    CHECK(err);
    CHECK(clfftEnqueueTransform(count == f->rows_per_call ? f->plan : f->rest_plan, CLFFT_FORWARD,
                                1, &queue, 0, NULL, NULL, &part, NULL, tmp));
    /* The queue keeps the sub-buffer alive until the transform has run. */
    CHECK(clReleaseMemObject(part));
  }
}

static void fft_rows_destroy(fft_rows* f) {
  CHECK(clfftDestroyPlan(&f->plan));
  if (f->has_rest_plan) CHECK(clfftDestroyPlan(&f->rest_plan));
}

/* clFFT's own 2D transform of a rows x cols row-major matrix, out of place. */
static clfftPlanHandle plan_2d(cl_context context, cl_command_queue queue, size_t rows, size_t cols,
                               size_t* tmp_bytes) {
  clfftPlanHandle plan;
  size_t lengths[2] = {cols, rows}; /* clFFT names the contiguous dimension first */
  size_t strides[2] = {1, cols};
  CHECK(clfftCreateDefaultPlan(&plan, context, CLFFT_2D, lengths));
  CHECK(clfftSetPlanPrecision(plan, CLFFT_SINGLE));
  CHECK(clfftSetLayout(plan, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED));
  CHECK(clfftSetResultLocation(plan, CLFFT_OUTOFPLACE));
  CHECK(clfftSetPlanInStride(plan, CLFFT_2D, strides));
  CHECK(clfftSetPlanOutStride(plan, CLFFT_2D, strides));
  CHECK(clfftSetPlanDistance(plan, rows * cols, rows * cols));
  CHECK(clfftBakePlan(plan, 1, &queue, NULL, NULL));
  CHECK(clfftGetTmpBufSize(plan, tmp_bytes));
  return plan;
}

static cl_mem create_buffer(cl_context context, size_t bytes) {
  cl_int err;
  cl_mem buffer = bytes ? clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err) : NULL;
  if (bytes) CHECK(err);
  return buffer;
}

static const char* format_bytes(size_t bytes, char* text, size_t size) {
  if (bytes < 1024)
    snprintf(text, size, "%zu B", bytes);
  else if (bytes < 1024 * 1024)
    snprintf(text, size, "%.1f KiB", (double)bytes / 1024);
  else
    snprintf(text, size, "%.1f MiB", (double)bytes / (1024 * 1024));
  return text;
}

/* Element (k1, k2) of the 2D DFT of x, summed in double (clFFT's forward sign, -1):
 * each row's sum with the column twiddles, then times its row's twiddle. */
static void exact_dft(const cfloat* x, size_t rows, size_t cols, size_t k1, size_t k2, double* re,
                      double* im) {
  const double two_pi = 6.283185307179586;
  double* twiddle = malloc(2 * cols * sizeof(double));
  double sum_re = 0, sum_im = 0;
  if (twiddle == NULL) fail("malloc", 0, "out of host memory");
  for (size_t c = 0; c < cols; ++c) {
    double a = -two_pi * (double)(k2 * c % cols) / (double)cols;
    twiddle[2 * c] = cos(a), twiddle[2 * c + 1] = sin(a);
  }
  for (size_t r = 0; r < rows; ++r) {
    const cfloat* row = x + r * cols;
    double row_re = 0, row_im = 0;
    for (size_t c = 0; c < cols; ++c) {
      row_re += row[c].re * twiddle[2 * c] - row[c].im * twiddle[2 * c + 1];
      row_im += row[c].re * twiddle[2 * c + 1] + row[c].im * twiddle[2 * c];
    }
    double a = -two_pi * (double)(k1 * r % rows) / (double)rows;
    sum_re += row_re * cos(a) - row_im * sin(a);
    sum_im += row_re * sin(a) + row_im * cos(a);
  }
  free(twiddle);
  *re = sum_re;
  *im = sum_im;
}

static size_t parse_size(const char* text, const char* what) {
  char* end;
  unsigned long long value = strtoull(text, &end, 10);
  if (*text == '\0' || *end != '\0' || value == 0 || value > SIZE_MAX / 64) {
    fprintf(stderr, "fft2d: %s must be a positive integer, not '%s'\n", what, text);
    exit(2);
  }
  return (size_t)value;
}

int main(int argc, char** argv) {
  size_t rows = 1024, cols = 512, max_rows_per_call = 0;
  if (argc != 1 && argc != 3 && argc != 4) {
    fprintf(stderr, "usage: fft2d [rows cols [rows_per_call]]\n");
    return 2;
  }
  if (argc >= 3) {
    rows = parse_size(argv[1], "rows");
    cols = parse_size(argv[2], "cols");
  }
  if (argc == 4) max_rows_per_call = parse_size(argv[3], "rows_per_call");
  if (rows > SIZE_MAX / sizeof(cfloat) / cols) {
    fprintf(stderr, "fft2d: a %zu x %zu matrix is too large\n", rows, cols);
    return 2;
  }
  const size_t n = rows * cols, bytes = n * sizeof(cfloat);

  cl_device_id device = pick_device();
  if (device == NULL) return 2; /* pick_device said why */
  char device_name[256] = "";
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof device_name - 1, device_name, NULL);
  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  CHECK(err);
  /* What clfftInitSetupData fills in: in C that function is an inline definition with
   * no external one, so a call the compiler does not inline (at -O0) fails to link. */
  clfftSetupData setup = {clfftVersionMajor, clfftVersionMinor, clfftVersionPatch, 0};
  CHECK(clfftSetup(&setup));

  /* A random matrix of values in [-1, 1) (a fixed xorshift, so runs are repeatable). */
  cfloat* x = malloc(bytes);
  cfloat* reference = malloc(bytes);
  cfloat* result = malloc(bytes);
  if (!x || !reference || !result) {
    fprintf(stderr, "fft2d: out of host memory for three %zu-byte matrices\n", bytes);
    return 2;
  }
  uint32_t state = 2463534242u;
  for (size_t i = 0; i < 2 * n; ++i) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    ((float*)x)[i] = (float)((double)state / 2147483648.0 - 1.0);
  }
  printf("%zu x %zu complex float matrix (%zu bytes) on %s\n", rows, cols, bytes, device_name);

  cl_mem matrix = create_buffer(context, bytes);

  /* clFFT's 2D transform, out of place: a second matrix, and clFFT's temporary buffer.
   * Each approach runs twice, the second run timed: the first compiles kernels. */
  size_t tmp_2d = 0;
  clfftPlanHandle plan = plan_2d(context, queue, rows, cols, &tmp_2d);
  cl_mem output = create_buffer(context, bytes), tmp = create_buffer(context, tmp_2d);
  double ms_2d = 0;
  for (int run = 0; run < 2; ++run) {
    CHECK(clEnqueueWriteBuffer(queue, matrix, CL_TRUE, 0, bytes, x, 0, NULL, NULL));
    double start = now_ms();
    CHECK(clfftEnqueueTransform(plan, CLFFT_FORWARD, 1, &queue, 0, NULL, NULL, &matrix, &output,
                                tmp));
    CHECK(clFinish(queue));
    ms_2d = now_ms() - start;
  }
  CHECK(clEnqueueReadBuffer(queue, output, CL_TRUE, 0, bytes, reference, 0, NULL, NULL));
  CHECK(clfftDestroyPlan(&plan));
  CHECK(clReleaseMemObject(output));
  if (tmp) CHECK(clReleaseMemObject(tmp));

  /* The 1x path: rows FFTs, transpose, rows FFTs of the transpose, transpose back. The
   * device holds the matrix, libipt's scratch and clFFT's 1D temporary buffer, if any. */
  fft_rows along_rows, along_cols;
  fft_rows_create(&along_rows, context, device, queue, rows, cols, max_rows_per_call);
  fft_rows_create(&along_cols, context, device, queue, cols, rows, max_rows_per_call);
  size_t tmp_1d =
      along_rows.tmp_bytes > along_cols.tmp_bytes ? along_rows.tmp_bytes : along_cols.tmp_bytes;
  tmp = create_buffer(context, tmp_1d); /* one buffer serves both, one call at a time */
  ipt_plan_info there, back;
  CHECK_IPT(ipt_plan(device, rows, cols, sizeof(cfloat), NULL, &there));
  CHECK_IPT(ipt_plan(device, cols, rows, sizeof(cfloat), NULL, &back));
  const size_t scratch = there.scratch_bytes + back.scratch_bytes;
  double stage_ms[4] = {0, 0, 0, 0}, ms_1d = 0;
  for (int run = 0; run < 2; ++run) {
    CHECK(clEnqueueWriteBuffer(queue, matrix, CL_TRUE, 0, bytes, x, 0, NULL, NULL));
    double t0 = now_ms();
    fft_rows_enqueue(&along_rows, queue, matrix, tmp);
    CHECK(clFinish(queue));
    double t1 = now_ms();
    CHECK_IPT(ipt_transpose(queue, matrix, 0, rows, cols, 0, NULL, NULL, sizeof(cfloat)));
    CHECK(clFinish(queue));
    double t2 = now_ms();
    fft_rows_enqueue(&along_cols, queue, matrix, tmp);
    CHECK(clFinish(queue));
    double t3 = now_ms();
    /* An application that can use the spectrum transposed (cols x rows) stops here. */
    CHECK_IPT(ipt_transpose(queue, matrix, 0, cols, rows, 0, NULL, NULL, sizeof(cfloat)));
    CHECK(clFinish(queue));
    double t4 = now_ms();
    stage_ms[0] = t1 - t0, stage_ms[1] = t2 - t1, stage_ms[2] = t3 - t2, stage_ms[3] = t4 - t3;
    ms_1d = t4 - t0;
  }
  CHECK(clEnqueueReadBuffer(queue, matrix, CL_TRUE, 0, bytes, result, 0, NULL, NULL));
  fft_rows_destroy(&along_rows);
  fft_rows_destroy(&along_cols);
  if (tmp) CHECK(clReleaseMemObject(tmp));
  CHECK(clReleaseMemObject(matrix));
  CHECK(clfftTeardown());
  CHECK(clReleaseCommandQueue(queue));
  CHECK(clReleaseContext(context));

  /*
   * Tolerance. The error of a radix FFT in float grows at most like log2(n) * u relative
   * to the size of its output (u = 2^-24 = 6e-8; Higham, Accuracy and Stability of
   * Numerical Algorithms, ch. 24), and is typically far less; two FFTs can disagree by
   * twice that. 1e-5 * log2(n) of the largest output is about 80 times 2 * u * log2(n):
   * room for the twiddle factors' own error and for one element's error above the
   * average, while a misplaced element or a wrong transform is off by the order of the
   * output itself.
   */
  const double tolerance = 1e-5 * log2((double)n);
  double largest = 0, worst = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < n; ++i) {
    double magnitude = hypot(reference[i].re, reference[i].im);
    double difference =
        hypot((double)result[i].re - reference[i].re, (double)result[i].im - reference[i].im);
    if (magnitude > largest) largest = magnitude;
    if (!(difference <= worst)) worst = difference, worst_at = i; /* NaN counts as worst */
  }
  int ok = worst <= tolerance * largest;
  printf("1D + libipt vs clFFT 2D: max |difference| / max |clFFT 2D| = %.3g (tolerance %.3g)%s\n",
         worst / largest, tolerance, ok ? "" : "  MISMATCH");
  if (!ok)
    printf("  the largest difference at row %zu, column %zu\n", worst_at / cols, worst_at % cols);

  /* A few frequencies summed in double: both must match these too, or they would agree
   * only on being wrong the same way. */
  const size_t points[3][2] = {{0, 0}, {1 % rows, 2 % cols}, {rows / 3, cols - 1}};
  for (int p = 0; p < 3; ++p) {
    size_t k1 = points[p][0], k2 = points[p][1], i = k1 * cols + k2;
    double re, im;
    exact_dft(x, rows, cols, k1, k2, &re, &im);
    double error_2d = hypot(reference[i].re - re, reference[i].im - im) / largest;
    double error_1d = hypot(result[i].re - re, result[i].im - im) / largest;
    int point_ok = error_2d <= tolerance && error_1d <= tolerance;
    printf("X[%zu][%zu] summed in double: relative error clFFT 2D %.3g, 1D + libipt %.3g%s\n", k1,
           k2, error_2d, error_1d, point_ok ? "" : "  MISMATCH");
    ok = ok && point_ok;
  }

  char text[2][32];
  printf(
      "1D + libipt stages (ms): rows FFT %.3f, transpose %.3f, rows FFT %.3f, transpose "
      "back %.3f\n",
      stage_ms[0], stage_ms[1], stage_ms[2], stage_ms[3]);
  printf("calls of clFFT 1D: %zu rows of %zu per call, %zu rows of %zu per call\n",
         along_rows.rows_per_call, cols, along_cols.rows_per_call, rows);
  /* One line per approach, to paste: shape | ms | extra device bytes (what makes them). */
  printf(
      "clFFT 2D    | %zu x %zu | %.3f ms | extra %zu bytes = %s (second matrix %zu + clFFT "
      "tmp %zu)\n",
      rows, cols, ms_2d, bytes + tmp_2d, format_bytes(bytes + tmp_2d, text[0], 32), bytes, tmp_2d);
  printf(
      "1D + libipt | %zu x %zu | %.3f ms | extra %zu bytes = %s (libipt scratch %zu + clFFT "
      "1D tmp %zu)\n",
      rows, cols, ms_1d, scratch + tmp_1d, format_bytes(scratch + tmp_1d, text[1], 32), scratch,
      tmp_1d);
  free(x);
  free(reference);
  free(result);
  return ok ? 0 : 1;
}
