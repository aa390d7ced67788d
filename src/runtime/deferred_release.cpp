#include "runtime/deferred_release.hpp"

namespace ipt::runtime {
namespace {

void CL_CALLBACK release_buffer(cl_event, cl_int, void* buffer) {
  clReleaseMemObject(static_cast<cl_mem>(buffer));
}

}  // namespace

void release_when_complete(const cl::Event& done, cl::Buffer buffer) {
  if (done() == nullptr || buffer() == nullptr) return;
  cl_mem mem = buffer();
  if (clRetainMemObject(mem) != CL_SUCCESS) return;
  if (clSetEventCallback(done(), CL_COMPLETE, release_buffer, mem) != CL_SUCCESS)
    clReleaseMemObject(mem);
}

}  // namespace ipt::runtime
