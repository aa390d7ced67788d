// SPDX-License-Identifier: Apache-2.0
// libipt makes no OpenCL release call after main returns. Its caches hold contexts,
// programs and buffers; released by static destructors at exit, they would call into a
// driver that may already be torn down (a crash or a hang at exit, which several OpenCL
// libraries have met), so its caches are never destroyed.
//
// This program defines the clRelease* entry points itself: an executable's definitions
// come first when libipt's calls are bound, so every release libipt makes passes through
// them on to the driver's. It transposes matrices that fill libipt's caches (plans, one
// moved between offsets, programs, scratch), releases its own objects and returns.
// A handler registered before libipt's first call runs after every static libipt creates
// later has been destroyed; it fails the run when the main thread released anything after
// main returned. (The driver's callback thread may still run libipt's completion callbacks
// then, which is not a destructor's work: only the main thread is counted.)
#include <CL/cl.h>
#include <dlfcn.h>
#include <ipt/ipt.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>
#include <vector>

#include "support/device_select.hpp"

namespace {

std::atomic<bool> main_returned{false};
std::atomic<int> late_releases{0};
std::thread::id main_thread;

template <typename Function>
Function next(const char* name) {
  void* found = dlsym(RTLD_NEXT, name);
  if (found == nullptr) {
    std::fprintf(stderr, "exit_releases: no %s after this program's own\n", name);
    std::_Exit(2);
  }
  return reinterpret_cast<Function>(found);
}

void note(const char* name) {
  if (main_returned.load() && std::this_thread::get_id() == main_thread) {
    ++late_releases;
    std::fprintf(stderr, "exit_releases: %s after main returned\n", name);
  }
}

void check_at_exit() {
  if (late_releases.load() != 0) {
    std::fprintf(stderr, "exit_releases: %d OpenCL releases after main returned\n",
                 late_releases.load());
    std::_Exit(1);
  }
  std::printf("exit_releases: no OpenCL release after main returned\n");
}

}  // namespace

#define IPT_INTERPOSE_RELEASE(name, type)                             \
  extern "C" CL_API_ENTRY cl_int CL_API_CALL name(type object) {      \
    static const auto real = next<cl_int(CL_API_CALL*)(type)>(#name); \
    note(#name);                                                      \
    return real(object);                                              \
  }
IPT_INTERPOSE_RELEASE(clReleaseContext, cl_context)
IPT_INTERPOSE_RELEASE(clReleaseCommandQueue, cl_command_queue)
IPT_INTERPOSE_RELEASE(clReleaseMemObject, cl_mem)
IPT_INTERPOSE_RELEASE(clReleaseProgram, cl_program)
IPT_INTERPOSE_RELEASE(clReleaseKernel, cl_kernel)
IPT_INTERPOSE_RELEASE(clReleaseEvent, cl_event)
IPT_INTERPOSE_RELEASE(clReleaseDevice, cl_device_id)
#undef IPT_INTERPOSE_RELEASE

namespace {

// Transposes rows x cols floats at `offset` in a buffer of their own, twice (the second
// call finds the checked plan), and says whether both calls succeeded.
bool transpose_twice(const ipt::support::Session& session, std::size_t rows, std::size_t cols,
                     std::size_t offset) {
  std::vector<float> data(offset + rows * cols);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i % 977) + 0.5f;
  cl_int code = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(session.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 data.size() * sizeof(float), data.data(), &code);
  if (code != CL_SUCCESS) return false;
  bool ok = true;
  for (int call = 0; call < 2 && ok; ++call) {
    const std::size_t r = call == 0 ? rows : cols, c = call == 0 ? cols : rows;
    ok = ipt_transpose_f32(session.queue(), buffer, offset, r, c, 0, nullptr, nullptr) ==
         IPT_SUCCESS;
  }
  std::vector<float> back(data.size());
  ok = ok && clEnqueueReadBuffer(session.queue(), buffer, CL_TRUE, 0, back.size() * sizeof(float),
                                 back.data(), 0, nullptr, nullptr) == CL_SUCCESS;
  ok = ok && back == data;  // transposed twice: as it was
  clReleaseMemObject(buffer);
  return ok;
}

}  // namespace

int main() {
  main_thread = std::this_thread::get_id();
  if (std::atexit(check_at_exit) != 0) return 2;
  try {
    ipt::support::Session session;
    // A rectangle, the same at another offset (a moved plan), and prime sides (a padded
    // plan, its padding in scratch).
    const bool ok = transpose_twice(session, 300, 700, 0) &&
                    transpose_twice(session, 300, 700, 64) &&
                    transpose_twice(session, 1009, 2003, 0);
    clFinish(session.queue());
    if (!ok) {
      std::fprintf(stderr, "exit_releases: a transposition failed: %s\n", ipt_last_error_message());
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exit_releases: %s\n", e.what());
    return 2;
  }
  main_returned = true;
  return 0;
}
