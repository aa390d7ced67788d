// SPDX-License-Identifier: Apache-2.0
// ipt-driver-stress: libipt's thread-stress pattern on an OpenCL driver without libipt,
// to tell a hang of the driver from one of the library (docs/troubleshooting.md).
//
// Worker threads each run "calls" on a queue of their own (every other one out of order):
// three kernels chained by events over a matrix buffer and a scratch buffer, the scratch
// released as --release says, and every fourth call waited for and read back. Builder
// threads build a program from the device's binary, launch one kernel of it and release
// kernel and program while that launch is still queued, as a call does after
// ipt_clear_cache. Churner threads each make a context of their own, run a kernel in it
// and release it all, over and over, as the tests of threads with contexts of their own
// do. --release:
//   callback  a completion callback of the call's last command releases the scratch, on
//             the driver's callback thread (what libipt does)
//   thread    that callback hands the scratch to one thread of the tool's own, which
//             releases it
//   caller    no callback: the worker releases the scratch after waiting for its call
// --variants N: the builders compile N distinct programs from source in turn instead of
// the one binary (libipt builds a program per kernel variant, each new to the driver
// until its cache holds it), variant k holding a private array of k KiB per work-item
// indexed at run time, so that its launches need ever more of the device's private
// (local) memory, as libipt's larger register-tiled kernels may.
// --clearer: the builders leave their programs in a shared cache, from which the workers
// take the kernel of each call's middle launch, and a clearer thread drops every cached
// program every 3 ms, as ipt_clear_cache does: final program releases on a thread of their
// own while other threads create kernels of them and their launches are queued.
// --spin: each call's middle launch is a grid-wide wait instead (two groups per compute
// unit counting in the zeroed scratch, each waiting for all, with a bounded patience), as
// libipt's on-chip kernels and their probes wait.
// A run that makes no progress for --watchdog seconds prints what each thread was doing
// and exits with status 3; 0 when it ran its --seconds, 1 on bad arguments, 2 when an
// OpenCL call failed.
#include <CL/cl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/device_select.hpp"

namespace {

enum class Release { kCallback, kThread, kCaller };

const char* kSource =
    "__kernel void churn(__global float* a, uint n, uint rounds) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i >= n) return;\n"
    "  float x = a[i];\n"
    "#ifdef STACK\n"
    "  float s[STACK];\n"
    "  for (uint k = 0; k < STACK; ++k) s[k] = x + (float)k;\n"
    "  for (uint r = 0; r < rounds; ++r) x = x * 1.0001f + s[(r * 7u + (uint)i) % STACK];\n"
    "#else\n"
    "  for (uint r = 0; r < rounds; ++r) x = x * 1.0001f + 0.5f;\n"
    "#endif\n"
    "  a[i] = x;\n"
    "}\n"
    "// Every group's first work-item counts in a[0] and waits, at most `patience` polls,\n"
    "// for all n groups: a grid-wide wait that ends however the groups are scheduled.\n"
    "__kernel void spin(__global float* a, uint n, uint patience) {\n"
    "  volatile __global uint* count = (volatile __global uint*)a;\n"
    "  if (get_local_id(0) == 0) {\n"
    "    atomic_inc(count);\n"
    "    for (uint p = 0; p < patience && *count < n; ++p) {\n"
    "    }\n"
    "  }\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "}\n";

std::atomic<long> progress{0}, calls{0}, builds{0}, cached_calls{0};
std::atomic<bool> stopping{false};
// What each thread was doing last: a step number, printed by the watchdog.
std::atomic<int> step_of[64];

void check(cl_int code, const char* what) {
  if (code == CL_SUCCESS) return;
  std::fprintf(stderr, "ipt-driver-stress: %s failed with OpenCL error %d\n", what, code);
  std::fflush(stderr);
  std::_Exit(2);
}

// One thread that releases what completion callbacks hand it (--release thread).
struct Releaser {
  std::mutex mutex;
  std::condition_variable ready;
  std::vector<cl_mem> pending;

  void run() {
    std::vector<cl_mem> batch;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        ready.wait(lock, [this] { return !pending.empty(); });
        batch.swap(pending);
      }
      for (cl_mem buffer : batch) clReleaseMemObject(buffer);
      batch.clear();
    }
  }
};
Releaser* releaser = nullptr;

void CL_CALLBACK release_in_callback(cl_event, cl_int, void* buffer) {
  clReleaseMemObject(static_cast<cl_mem>(buffer));
}

void CL_CALLBACK hand_to_releaser(cl_event, cl_int, void* buffer) {
  {
    std::lock_guard<std::mutex> lock(releaser->mutex);
    releaser->pending.push_back(static_cast<cl_mem>(buffer));
  }
  releaser->ready.notify_one();
}

struct Setup {
  cl_context context;
  cl_device_id device;
  cl_program program;
  std::vector<unsigned char> binary;
  Release release;
  int variants;         // 0: the builders build `binary`
  bool clearer;         // the builders' programs go to the shared cache below
  cl_uint spin_groups;  // 0: no grid-wide waits; else the groups of each
};

// The programs the builders left (--clearer), each with the cache's reference.
struct SharedPrograms {
  std::mutex mutex;
  std::vector<cl_program> programs;

  void put(cl_program program) {
    std::lock_guard<std::mutex> lock(mutex);
    programs.push_back(program);
  }
  // A cached program, retained for the caller, or none.
  cl_program take_one(unsigned pick) {
    std::lock_guard<std::mutex> lock(mutex);
    if (programs.empty()) return nullptr;
    cl_program program = programs[pick % programs.size()];
    check(clRetainProgram(program), "clRetainProgram");
    return program;
  }
  // Releases every cached program, after the lock, as libipt's caches do.
  void clear() {
    std::vector<cl_program> dropped;
    {
      std::lock_guard<std::mutex> lock(mutex);
      dropped.swap(programs);
    }
    for (cl_program program : dropped) clReleaseProgram(program);
  }
};
SharedPrograms shared_programs;

void clearer(int id) {
  while (!stopping.load()) {
    step_of[id] = 31;
    shared_programs.clear();
    step_of[id] = 32;
    // Not counted as progress: it never stops, and would hide the others' hang from the
    // watchdog.
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
}

// The work-group size of the workers' and builders' launches: 64 where work-items hold
// arrays (a CPU device keeps a group's private arrays on one thread's stack, which PoCL
// overflowed at its own choice of size) or spin (the groups counted); else the driver's.
const size_t* group_size(const Setup& setup) {
  static const size_t kGroup = 64;
  return setup.variants > 0 || setup.spin_groups > 0 ? &kGroup : nullptr;
}

cl_kernel churn_kernel(cl_program program, cl_mem buffer, cl_uint n, cl_uint rounds,
                       const char* name = "churn") {
  cl_int code = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, name, &code);
  check(code, "clCreateKernel");
  check(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), "clSetKernelArg");
  check(clSetKernelArg(kernel, 1, sizeof n, &n), "clSetKernelArg");
  check(clSetKernelArg(kernel, 2, sizeof rounds, &rounds), "clSetKernelArg");
  return kernel;
}

void worker(const Setup& setup, int id) {
  cl_int code = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue(
      setup.context, setup.device, id % 2 == 1 ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, &code);
  if (code != CL_SUCCESS)  // no out-of-order queues on this device
    queue = clCreateCommandQueue(setup.context, setup.device, 0, &code);
  check(code, "clCreateCommandQueue");
  const cl_uint n = 1 << 18, scratch_n = 1 << 14;
  std::vector<float> host(64);
  cl_mem matrix = nullptr;
  for (long call = 0; !stopping.load(); ++call) {
    step_of[id] = 1;
    if (call % 8 == 0) {  // a new matrix now and then: a final release on this thread
      if (matrix != nullptr) check(clReleaseMemObject(matrix), "clReleaseMemObject");
      matrix = clCreateBuffer(setup.context, CL_MEM_READ_WRITE, n * 4, nullptr, &code);
      check(code, "clCreateBuffer");
    }
    cl_mem scratch =
        clCreateBuffer(setup.context, CL_MEM_READ_WRITE, scratch_n * 4, nullptr, &code);
    check(code, "clCreateBuffer");
    cl_kernel first = churn_kernel(setup.program, matrix, n, 20);
    // The middle launch's program: a cached one where there is one (--clearer), which the
    // clearer may drop while this launch is queued.
    cl_program cached =
        setup.clearer ? shared_programs.take_one(static_cast<unsigned>(call + id)) : nullptr;
    const cl_program middle_program = cached != nullptr ? cached : setup.program;
    cl_kernel middle = setup.spin_groups > 0
                           ? churn_kernel(middle_program, scratch, setup.spin_groups, 4000, "spin")
                           : churn_kernel(middle_program, scratch, scratch_n, 20);
    cl_kernel last = churn_kernel(setup.program, matrix, n, 20);
    cl_event events[3], zeroed = nullptr;
    if (setup.spin_groups > 0) {  // the spin's count starts at 0
      const cl_uint zero = 0;
      check(clEnqueueFillBuffer(queue, scratch, &zero, 4, 0, 4, 0, nullptr, &zeroed),
            "clEnqueueFillBuffer");
    }
    const size_t* local = group_size(setup);
    const size_t global[3] = {n, setup.spin_groups > 0 ? setup.spin_groups * *local : scratch_n, n};
    cl_kernel kernels[3] = {first, middle, last};
    step_of[id] = 2;
    for (int k = 0; k < 3; ++k) {
      cl_event wait[2] = {k > 0 ? events[k - 1] : nullptr, zeroed};
      const cl_uint waits = k == 0 ? 0 : k == 1 && zeroed != nullptr ? 2 : 1;
      check(clEnqueueNDRangeKernel(queue, kernels[k], 1, nullptr, &global[k], local, waits,
                                   waits > 0 ? wait : nullptr, &events[k]),
            "clEnqueueNDRangeKernel");
    }
    if (zeroed != nullptr) clReleaseEvent(zeroed);
    if (cached != nullptr) {
      clReleaseProgram(cached);  // its kernel's launch still queued
      ++cached_calls;
    }
    step_of[id] = 3;
    if (setup.release == Release::kCaller) {
      check(clWaitForEvents(1, &events[2]), "clWaitForEvents");
      check(clReleaseMemObject(scratch), "clReleaseMemObject");
    } else {
      check(clSetEventCallback(
                events[2], CL_COMPLETE,
                setup.release == Release::kCallback ? release_in_callback : hand_to_releaser,
                scratch),
            "clSetEventCallback");
    }
    check(clFlush(queue), "clFlush");
    step_of[id] = 4;
    if (call % 4 == 3)
      check(clEnqueueReadBuffer(queue, matrix, CL_TRUE, 0, host.size() * 4, host.data(), 1,
                                &events[2], nullptr),
            "clEnqueueReadBuffer");
    step_of[id] = 5;
    for (int k = 0; k < 3; ++k) {
      clReleaseEvent(events[k]);
      clReleaseKernel(kernels[k]);
    }
    ++calls;
    ++progress;
  }
  clFinish(queue);
  if (matrix != nullptr) clReleaseMemObject(matrix);
  clReleaseCommandQueue(queue);
}

void builder(const Setup& setup, int id) {
  cl_int code = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue(setup.context, setup.device, 0, &code);
  check(code, "clCreateCommandQueue");
  const cl_uint n = 1 << 18;
  cl_mem buffer = clCreateBuffer(setup.context, CL_MEM_READ_WRITE, n * 4, nullptr, &code);
  check(code, "clCreateBuffer");
  for (long round = 0; !stopping.load(); ++round) {
    step_of[id] = 11;
    cl_program program = nullptr;
    std::string options;
    if (setup.variants > 0) {
      // Variant k of --variants: a private array of k KiB (256 k floats).
      options = "-DSTACK=" + std::to_string(256 * (1 + (round + id) % setup.variants));
      program = clCreateProgramWithSource(setup.context, 1, &kSource, nullptr, &code);
      check(code, "clCreateProgramWithSource");
    } else {
      const unsigned char* binary = setup.binary.data();
      const size_t size = setup.binary.size();
      cl_int status = CL_SUCCESS;
      program = clCreateProgramWithBinary(setup.context, 1, &setup.device, &size, &binary, &status,
                                          &code);
      check(code, "clCreateProgramWithBinary");
    }
    step_of[id] = 12;
    check(clBuildProgram(program, 1, &setup.device, options.c_str(), nullptr, nullptr),
          "clBuildProgram");
    step_of[id] = 13;
    cl_kernel kernel = churn_kernel(program, buffer, n, 50);
    const size_t global = n;
    check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, group_size(setup), 0, nullptr,
                                 nullptr),
          "clEnqueueNDRangeKernel");
    check(clFlush(queue), "clFlush");
    step_of[id] = 14;
    clReleaseKernel(kernel);
    if (setup.clearer)
      shared_programs.put(program);  // the clearer's to release
    else
      clReleaseProgram(program);  // its launch still queued
    step_of[id] = 15;
    if (round % 8 == 7) check(clFinish(queue), "clFinish");
    ++builds;
    ++progress;
  }
  clFinish(queue);
  clReleaseMemObject(buffer);
  clReleaseCommandQueue(queue);
}

void churner(const Setup& setup, int id) {
  cl_int code = CL_SUCCESS;
  const cl_uint n = 1 << 16;
  std::vector<float> host(n);
  for (long round = 0; !stopping.load(); ++round) {
    step_of[id] = 21;
    cl_context context = clCreateContext(nullptr, 1, &setup.device, nullptr, nullptr, &code);
    check(code, "clCreateContext");
    cl_command_queue queue = clCreateCommandQueue(context, setup.device, 0, &code);
    check(code, "clCreateCommandQueue");
    const unsigned char* binary = setup.binary.data();
    const size_t size = setup.binary.size();
    cl_int status = CL_SUCCESS;
    cl_program program =
        clCreateProgramWithBinary(context, 1, &setup.device, &size, &binary, &status, &code);
    check(code, "clCreateProgramWithBinary");
    step_of[id] = 22;
    check(clBuildProgram(program, 1, &setup.device, "", nullptr, nullptr), "clBuildProgram");
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, n * 4, nullptr, &code);
    check(code, "clCreateBuffer");
    cl_kernel kernel = churn_kernel(program, buffer, n, 10);
    const size_t global = n;
    step_of[id] = 23;
    check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
    check(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, n * 4, host.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
    step_of[id] = 24;
    clReleaseKernel(kernel);
    clReleaseMemObject(buffer);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    step_of[id] = 25;
    ++progress;
  }
}

int usage() {
  std::fprintf(stderr,
               "usage: ipt-driver-stress [--release callback|thread|caller] [--workers N]\n"
               "                         [--builders N] [--churners N] [--variants N]\n"
               "                         [--clearer 0|1] [--spin 0|1] [--seconds S]\n"
               "                         [--watchdog S]\n"
               "Runs libipt's thread-stress pattern without libipt on the device IPT_DEVICE\n"
               "names (defaults: callback, 12 workers, 3 builders, 1 churner, 0 variants (the\n"
               "builders build one binary; N: N programs from source, variant k with a private\n"
               "array of k KiB per work-item), clearer 0 (1: the builders' programs are\n"
               "cached, the workers launch kernels of them, and a thread drops them every\n"
               "3 ms), spin 0 (1: each call's middle launch is a grid-wide wait of two\n"
               "groups per compute unit, bounded), 60 s, watchdog 20 s).\n"
               "Exit status: 0 ran its time, 3 made no progress for the watchdog's time\n"
               "(a hang: what each thread was doing is printed), 2 an OpenCL call failed.\n");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Release release = Release::kCallback;
  int workers = 12, builders = 3, churners = 1, variants = 0, clear_programs = 0, spin = 0,
      seconds = 60, watchdog = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h" || i + 1 == argc) return usage();
    const std::string value = argv[++i];
    if (arg == "--release") {
      if (value == "callback")
        release = Release::kCallback;
      else if (value == "thread")
        release = Release::kThread;
      else if (value == "caller")
        release = Release::kCaller;
      else
        return usage();
    } else if (arg == "--workers" || arg == "--builders" || arg == "--churners" ||
               arg == "--variants" || arg == "--clearer" || arg == "--spin" || arg == "--seconds" ||
               arg == "--watchdog") {
      const int number = std::atoi(value.c_str());
      if (number < 0 || (number == 0 && value != "0")) return usage();
      (arg == "--workers"    ? workers
       : arg == "--builders" ? builders
       : arg == "--churners" ? churners
       : arg == "--variants" ? variants
       : arg == "--clearer"  ? clear_programs
       : arg == "--spin"     ? spin
       : arg == "--seconds"  ? seconds
                             : watchdog) = number;
    } else {
      return usage();
    }
  }
  if (workers > 32 || builders > 16 || churners > 4 || variants > 16 || clear_programs > 1 ||
      spin > 1 || watchdog < 1)
    return usage();

  try {
    const ipt::support::Session session;
    Setup setup{session.context(), session.device(),    nullptr, {}, release,
                variants,          clear_programs == 1, 0};
    if (spin == 1) {
      cl_uint units = 1;
      check(
          clGetDeviceInfo(setup.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr),
          "clGetDeviceInfo");
      setup.spin_groups = 2 * units;
    }
    cl_int code = CL_SUCCESS;
    setup.program = clCreateProgramWithSource(setup.context, 1, &kSource, nullptr, &code);
    check(code, "clCreateProgramWithSource");
    check(clBuildProgram(setup.program, 1, &setup.device, "", nullptr, nullptr), "clBuildProgram");
    size_t size = 0;
    check(clGetProgramInfo(setup.program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
          "clGetProgramInfo");
    setup.binary.resize(size);
    unsigned char* binary = setup.binary.data();
    check(clGetProgramInfo(setup.program, CL_PROGRAM_BINARIES, sizeof binary, &binary, nullptr),
          "clGetProgramInfo");
    std::printf(
        "%s: --release %s, %d workers, %d builders, %d churners, %d variants, clearer %d, "
        "spin %d, %d s\n",
        session.description().c_str(),
        release == Release::kCallback ? "callback"
        : release == Release::kThread ? "thread"
                                      : "caller",
        workers, builders, churners, variants, clear_programs, spin, seconds);
    std::fflush(stdout);
    if (release == Release::kThread) {
      releaser = new Releaser;  // never destroyed: its thread runs until the process ends
      std::thread([] { releaser->run(); }).detach();
    }
    std::vector<std::thread> threads;
    for (int i = 0; i < workers; ++i) threads.emplace_back(worker, std::cref(setup), i);
    for (int i = 0; i < builders; ++i) threads.emplace_back(builder, std::cref(setup), 32 + i);
    for (int i = 0; i < churners; ++i) threads.emplace_back(churner, std::cref(setup), 48 + i);
    if (setup.clearer) threads.emplace_back(clearer, 56);

    using Clock = std::chrono::steady_clock;
    const auto end = Clock::now() + std::chrono::seconds(seconds);
    long seen = -1;
    auto moved = Clock::now();
    while (Clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const long now = progress.load();
      if (now != seen) {
        seen = now;
        moved = Clock::now();
      } else if (Clock::now() - moved > std::chrono::seconds(watchdog)) {
        std::printf("hang: no progress for %d s after %ld calls and %ld builds; steps:", watchdog,
                    calls.load(), builds.load());
        for (int i = 0; i < workers; ++i) std::printf(" w%d=%d", i, step_of[i].load());
        for (int i = 0; i < builders; ++i) std::printf(" b%d=%d", i, step_of[32 + i].load());
        for (int i = 0; i < churners; ++i) std::printf(" c%d=%d", i, step_of[48 + i].load());
        if (setup.clearer) std::printf(" clearer=%d", step_of[56].load());
        std::printf("\n");
        std::fflush(stdout);
        std::_Exit(3);
      }
    }
    stopping = true;
    for (auto& thread : threads) thread.join();
    shared_programs.clear();
    clReleaseProgram(setup.program);
    std::printf("ok: %ld calls (%ld of a cached program), %ld builds\n", calls.load(),
                cached_calls.load(), builds.load());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipt-driver-stress: %s\n", e.what());
    return 2;
  }
}
