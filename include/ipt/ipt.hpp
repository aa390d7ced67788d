// SPDX-License-Identifier: Apache-2.0
// libipt C++ layer: header-only, over the C API of ipt.h, with the Khronos C++ bindings'
// types (cl::CommandQueue, cl::Buffer, cl::Event). Errors become ipt::error exceptions
// carrying the status and the library's message. Each function is an inline forwarding
// call: no allocation and no work beyond the C call.
//
//   cl::Event done = ipt::transpose<float>(queue, buffer, rows, cols);
//   done.wait();  // buffer holds the cols x rows transpose
//
// Define your CL_HPP_* configuration (e.g. CL_HPP_TARGET_OPENCL_VERSION) before including
// this header, as for <CL/opencl.hpp>, which it includes first: the bindings then
// configure <CL/cl.h> exactly as they would without libipt, in any include order. Where
// only CL_TARGET_OPENCL_VERSION is set, the bindings target that version too.
#ifndef IPT_IPT_HPP
#define IPT_IPT_HPP

// The bindings' version from the C headers' where only that is set (the reverse of what
// <CL/opencl.hpp> forwards); with neither, the bindings' own default, 300. A target below
// the bindings' default minimum (200) is its own minimum, which the bindings would
// otherwise refuse. The bindings then note no missing or conflicting version.
#if !defined(CL_HPP_TARGET_OPENCL_VERSION)
#if defined(CL_TARGET_OPENCL_VERSION)
#define CL_HPP_TARGET_OPENCL_VERSION CL_TARGET_OPENCL_VERSION
#else
#define CL_HPP_TARGET_OPENCL_VERSION 300
#endif
#endif
#if !defined(CL_HPP_MINIMUM_OPENCL_VERSION) && CL_HPP_TARGET_OPENCL_VERSION < 200
#define CL_HPP_MINIMUM_OPENCL_VERSION CL_HPP_TARGET_OPENCL_VERSION
#endif
// The bindings first, so that they configure <CL/cl.h> (not sorted).
// clang-format off
#include <CL/opencl.hpp>
#include <ipt/ipt.h>
// clang-format on

#include <complex>
#include <cstddef>
#include <future>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace ipt {

// A failed libipt call: status() is the ipt_status, what() names it and adds the
// library's last-error message (which check failed, or the kernel build log).
class error : public std::runtime_error {
 public:
  explicit error(ipt_status status)
      : std::runtime_error(std::string(ipt_status_string(status)) + ": " +
                           ipt_last_error_message()),
        status_(status) {}
  ipt_status status() const noexcept { return status_; }

 private:
  ipt_status status_;
};

namespace detail {
inline void check(ipt_status status) {
  if (status != IPT_SUCCESS) throw error(status);
}
static_assert(
    sizeof(cl::Event) == sizeof(cl_event),
    "cl::Event must wrap exactly one cl_event (the C API reads the wait list as an array)");

// The element types the library moves, checked at compile time.
template <typename T>
inline void check_element() {
  static_assert(std::is_trivially_copyable<T>::value, "T must be trivially copyable");
  static_assert(
      sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
      "libipt transposes elements of 1, 2, 4, 8 or 16 bytes");
}

// The wait list as the C API takes it: NULL when empty.
inline const cl_event* wait_list(const std::vector<cl::Event>& wait) {
  return wait.empty() ? nullptr : reinterpret_cast<const cl_event*>(wait.data());
}
}  // namespace detail

// Transposes, in place, the row-major rows x cols matrix of T that starts `offset`
// elements into `buffer`; afterwards it holds the row-major cols x rows transpose.
// T is any trivially copyable type of 1, 2, 4, 8 or 16 bytes (float, double,
// std::complex<float>, int16_t, ...); elements are moved bit for bit. double goes through
// ipt_transpose_f64 and so needs a device with double support. Column-major data: swap
// rows and cols. Enqueued after `wait`; the returned event completes with the last kernel.
// Throws ipt::error.
template <typename T>
cl::Event transpose(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::size_t rows,
                    std::size_t cols, std::size_t offset = 0,
                    const std::vector<cl::Event>& wait = {}) {
  detail::check_element<T>();
  const cl_uint count = static_cast<cl_uint>(wait.size());
  const cl_event* list = detail::wait_list(wait);
  cl_event event = nullptr;
  if (std::is_same<T, double>::value)
    detail::check(ipt_transpose_f64(queue(), buffer(), offset, rows, cols, count, list, &event));
  else
    detail::check(
        ipt_transpose(queue(), buffer(), offset, rows, cols, count, list, &event, sizeof(T)));
  return cl::Event(event);  // takes over the reference the C call returned
}

// Transposes, in place and in one call, `batch` row-major rows x cols matrices of T stored
// back to back from `offset` elements into `buffer` (ipt_transpose_batched): each becomes
// its cols x rows transpose. T as for transpose. Throws ipt::error.
template <typename T>
cl::Event transpose_batched(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                            std::size_t batch, std::size_t rows, std::size_t cols,
                            std::size_t offset = 0, const std::vector<cl::Event>& wait = {}) {
  detail::check_element<T>();
  const cl_uint count = static_cast<cl_uint>(wait.size());
  const cl_event* list = detail::wait_list(wait);
  cl_event event = nullptr;
  if (std::is_same<T, double>::value)
    detail::check(ipt_transpose_batched_f64(queue(), buffer(), offset, batch, rows, cols, count,
                                            list, &event));
  else
    detail::check(ipt_transpose_batched(queue(), buffer(), offset, batch, rows, cols, count, list,
                                        &event, sizeof(T)));
  return cl::Event(event);
}

// Permutes, in place, the axes of the row-major tensor of T of sizes `dims` (last axis
// fastest) at `offset` elements into `buffer` (ipt_permute): afterwards its axis i is the
// input's axis perm[i], as numpy.transpose(x, perm) orders it. T as for transpose (moved
// bit for bit, double included on any device). Throws ipt::error; the buffer is then
// unchanged (with IPT_ROLLED_BACK, once the queue's commands complete), except with
// IPT_BUFFER_UNDEFINED (ipt.h).
template <typename T>
cl::Event permute(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                  const std::vector<std::size_t>& dims, const std::vector<std::size_t>& perm,
                  std::size_t offset = 0, const std::vector<cl::Event>& wait = {}) {
  detail::check_element<T>();
  if (dims.size() != perm.size())
    detail::check(
        ipt_set_last_error(IPT_INVALID_VALUE, "ipt::permute: dims and perm differ in length"));
  cl_event event = nullptr;
  detail::check(ipt_permute(queue(), buffer(), offset, dims.size(), dims.data(), perm.data(),
                            sizeof(T), static_cast<cl_uint>(wait.size()), detail::wait_list(wait),
                            &event));
  return cl::Event(event);
}

namespace detail {
// The scalar type of imatcopy's T.
template <typename T>
constexpr ipt_scalar_type scalar_type() {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value ||
                    std::is_same<T, std::complex<float>>::value ||
                    std::is_same<T, std::complex<double>>::value,
                "imatcopy takes float, double, std::complex<float> or std::complex<double>");
  return std::is_same<T, float>::value                 ? IPT_SCALAR_F32
         : std::is_same<T, double>::value              ? IPT_SCALAR_F64
         : std::is_same<T, std::complex<float>>::value ? IPT_SCALAR_C32
                                                       : IPT_SCALAR_C64;
}
}  // namespace detail

// B = alpha * op(A) in place, as MKL's mkl_?imatcopy (ipt_imatcopy): ordering 'R' or 'C',
// trans 'N', 'T', 'C' or 'R'; the matrix starts `offset` elements into `buffer`. T is
// float, double, std::complex<float> or std::complex<double>. Throws ipt::error.
template <typename T>
cl::Event imatcopy(const cl::CommandQueue& queue, char ordering, char trans, std::size_t rows,
                   std::size_t cols, T alpha, const cl::Buffer& buffer, std::size_t lda,
                   std::size_t ldb, std::size_t offset = 0,
                   const std::vector<cl::Event>& wait = {}) {
  constexpr ipt_scalar_type type = detail::scalar_type<T>();
  cl_event event = nullptr;
  detail::check(ipt_imatcopy(queue(), ordering, trans, rows, cols, &alpha, buffer(), offset, lda,
                             ldb, static_cast<cl_uint>(wait.size()), detail::wait_list(wait),
                             &event, sizeof(T), type));
  return cl::Event(event);
}

// Bytes a buffer needs from the matrix's offset for the fastest plan on `device`.
template <typename T>
std::size_t padded_size(const cl::Device& device, std::size_t rows, std::size_t cols) {
  std::size_t bytes = 0;
  detail::check(ipt_padded_size(device(), rows, cols, sizeof(T), &bytes));
  return bytes;
}

// Builds ahead of time every kernel that calls on elements of T can launch (ipt_warmup).
template <typename T>
void warmup(const cl::Context& context, const cl::Device& device) {
  detail::check(ipt_warmup(context(), device(), sizeof(T)));
}

// ipt_warmup on a thread of its own, started at once, so that a program's start-up goes on
// beside the builds; calls made meanwhile wait only for the programs their own plans
// launch. The future's get() returns when every program is built, or throws ipt::error;
// like every std::async future, destroying it waits for the warm-up to end.
template <typename T>
[[nodiscard]] std::future<void> warmup_async(const cl::Context& context, const cl::Device& device) {
  return std::async(std::launch::async, [context, device] { warmup<T>(context, device); });
}

// Transposes, in place, the rows x cols row-major matrix of T at `host` in host memory,
// through the device of `queue` or on the CPU (ipt_transpose_host; a null queue: the
// CPU). Blocks until `host` holds the transpose. Throws ipt::error; `host` is then
// unchanged, unless the status is IPT_BUFFER_UNDEFINED (partly written: ipt.h).
template <typename T>
void transpose_host(const cl::CommandQueue& queue, T* host, std::size_t rows, std::size_t cols,
                    const ipt_host_options* options = nullptr) {
  detail::check_element<T>();
  detail::check(ipt_transpose_host(queue(), host, rows, cols, sizeof(T), options));
}
template <typename T>
void transpose_host(T* host, std::size_t rows, std::size_t cols, unsigned threads = 0) {
  detail::check_element<T>();
  const ipt_host_options cpu{IPT_HOST_CPU, threads, IPT_HOST_PIN_AUTO, 0};
  detail::check(ipt_transpose_host(nullptr, host, rows, cols, sizeof(T), &cpu));
}

// Drops the compiled programs libipt caches (ipt_clear_cache).
inline void clear_cache() { detail::check(ipt_clear_cache()); }

}  // namespace ipt

#endif  // IPT_IPT_HPP
