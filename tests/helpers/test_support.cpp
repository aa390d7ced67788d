// SPDX-License-Identifier: Apache-2.0
#include "helpers/test_support.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "support/host_reference.hpp"
#include "support/random_data.hpp"

namespace ipt::test {

support::Session& session() {
  static support::Session instance;
  return instance;
}

std::size_t device_local_mem() {
  cl_ulong local = 0;
  support::check(
      clGetDeviceInfo(session().device(), CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local), &local, nullptr),
      "clGetDeviceInfo");
  return static_cast<std::size_t>(local);
}

GuardedMatrix::GuardedMatrix(std::size_t rows, std::size_t cols, std::size_t elem_size,
                             std::size_t offset, std::size_t after_bytes, std::uint64_t seed,
                             cl_mem_flags flags)
    : rows_(rows), cols_(cols), elem_size_(elem_size), offset_(offset) {
  const std::size_t total = offset * elem_size + rows * cols * elem_size + after_bytes;
  initial_ = support::random_bytes(total, seed);
  // The matrix's elements differ from their neighbours (random 1-byte elements would not,
  // once in 256); the guard bytes stay random_bytes.
  support::separate_neighbours(initial_.data() + offset * elem_size, rows * cols, elem_size, cols);
  cl_int code = CL_SUCCESS;
  buffer_ = clCreateBuffer(session().context(), flags | CL_MEM_COPY_HOST_PTR,
                           total == 0 ? 1 : total, initial_.data(), &code);
  support::check(code, "clCreateBuffer");
}

GuardedMatrix::~GuardedMatrix() {
  if (buffer_ != nullptr) clReleaseMemObject(buffer_);
}

std::vector<unsigned char> GuardedMatrix::matrix_before() const {
  const auto begin = initial_.begin() + static_cast<std::ptrdiff_t>(offset_ * elem_size_);
  return {begin, begin + static_cast<std::ptrdiff_t>(rows_ * cols_ * elem_size_)};
}

std::size_t bytes_changed_around(cl_mem buffer, std::size_t begin, std::size_t count,
                                 unsigned char fill) {
  std::size_t size = 0;
  support::check(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof(size), &size, nullptr),
                 "clGetMemObjectInfo");
  std::vector<unsigned char> bytes(size);
  support::check(clEnqueueReadBuffer(session().queue(), buffer, CL_TRUE, 0, size, bytes.data(), 0,
                                     nullptr, nullptr),
                 "clEnqueueReadBuffer");
  std::size_t changed = 0;
  for (std::size_t i = 0; i < size; ++i)
    if ((i < begin || i >= begin + count) && bytes[i] != fill) ++changed;
  return changed;
}

std::vector<unsigned char> GuardedMatrix::read_all() const {
  std::vector<unsigned char> bytes(initial_.size());
  if (!bytes.empty())
    support::check(clEnqueueReadBuffer(session().queue(), buffer_, CL_TRUE, 0, bytes.size(),
                                       bytes.data(), 0, nullptr, nullptr),
                   "clEnqueueReadBuffer");
  return bytes;
}

namespace {

std::string compare(const std::vector<unsigned char>& expected,
                    const std::vector<unsigned char>& actual, std::size_t elem_size,
                    std::size_t matrix_begin, std::size_t matrix_end) {
  std::ostringstream out;
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] == actual[i]) continue;
    if (mismatches < 5) {
      out << "byte " << i;
      if (i < matrix_begin)
        out << " (before the matrix)";
      else if (i >= matrix_end)
        out << " (after the matrix)";
      else
        out << " (element " << (i - matrix_begin) / elem_size << ")";
      out << ": expected " << int(expected[i]) << ", got " << int(actual[i]) << "\n";
    }
    ++mismatches;
  }
  if (mismatches > 0) out << mismatches << " bytes differ";
  return out.str();
}

}  // namespace

std::string transpose_through_api(std::size_t rows, std::size_t cols, std::size_t elem_size,
                                  std::size_t offset, std::size_t after_bytes, std::uint64_t seed) {
  GuardedMatrix m(rows, cols, elem_size, offset, after_bytes, seed);
  cl_event done = nullptr;
  const ipt_status status = ipt_transpose(session().queue(), m.buffer(), offset, rows, cols, 0,
                                          nullptr, &done, elem_size);
  if (status != IPT_SUCCESS)
    return std::string(ipt_status_string(status)) + ": " + ipt_last_error_message();
  const cl_int waited = clWaitForEvents(1, &done);
  clReleaseEvent(done);
  if (waited != CL_SUCCESS) return "clWaitForEvents: " + std::to_string(waited);
  return m.check_transposed();
}

std::string GuardedMatrix::compare_with(const std::vector<unsigned char>& expected,
                                        const std::vector<unsigned char>& now) const {
  if (expected.size() != rows_ * cols_ * elem_size_ || now.size() != initial_.size())
    return "sizes differ: " + std::to_string(expected.size()) + " expected matrix bytes of " +
           std::to_string(rows_ * cols_ * elem_size_) + ", " + std::to_string(now.size()) +
           " buffer bytes of " + std::to_string(initial_.size());
  const auto begin = static_cast<std::ptrdiff_t>(offset_ * elem_size_);
  const auto end = begin + static_cast<std::ptrdiff_t>(expected.size());
  // The bytes before the matrix, the matrix and the bytes after it compared in place (a
  // copy of the whole buffer for each check took a good part of a sweep's time); the
  // report of what differs is made only when something does.
  if (std::equal(initial_.begin(), initial_.begin() + begin, now.begin()) &&
      std::equal(expected.begin(), expected.end(), now.begin() + begin) &&
      std::equal(initial_.begin() + end, initial_.end(), now.begin() + end))
    return "";
  std::vector<unsigned char> whole = initial_;
  std::copy(expected.begin(), expected.end(), whole.begin() + begin);
  return compare(whole, now, elem_size_, static_cast<std::size_t>(begin),
                 static_cast<std::size_t>(end));
}

std::string GuardedMatrix::check_holds(const std::vector<unsigned char>& expected) const {
  return compare_with(expected, read_all());
}

std::string GuardedMatrix::check_transposed() const { return check_transposed(read_all()); }

std::string GuardedMatrix::check_transposed(const std::vector<unsigned char>& now) const {
  return compare_with(support::transpose_reference(matrix_before(), rows_, cols_, elem_size_), now);
}

std::string GuardedMatrix::check_unchanged() const {
  return compare_with(matrix_before(), read_all());
}

std::string GuardedMatrix::check_guards() const {
  const std::vector<unsigned char> now = read_all();
  const auto begin = now.begin() + static_cast<std::ptrdiff_t>(offset_ * elem_size_);
  return compare_with({begin, begin + static_cast<std::ptrdiff_t>(rows_ * cols_ * elem_size_)},
                      now);
}

bool out_of_order_queues() {
  cl_command_queue_properties supported = 0;
  if (clGetDeviceInfo(session().device(), CL_DEVICE_QUEUE_PROPERTIES, sizeof(supported), &supported,
                      nullptr) != CL_SUCCESS)
    throw std::runtime_error("clGetDeviceInfo(CL_DEVICE_QUEUE_PROPERTIES) failed");
  return (supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
}

OutOfOrderQueue::OutOfOrderQueue() {
  cl_int code = CL_SUCCESS;
  queue_ = clCreateCommandQueue(session().context(), session().device(),
                                CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &code);
  if (code == CL_INVALID_QUEUE_PROPERTIES)
    queue_ = nullptr;
  else if (code != CL_SUCCESS)
    throw std::runtime_error("clCreateCommandQueue (out of order) failed: " + std::to_string(code));
}

OutOfOrderQueue::~OutOfOrderQueue() {
  if (queue_ != nullptr) clReleaseCommandQueue(queue_);
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* old = std::getenv(name)) {
    had_old_ = true;
    old_ = old;
  }
  if (value == nullptr)
    unsetenv(name);
  else
    setenv(name, value, 1);
}

ScopedEnv::~ScopedEnv() {
  if (had_old_)
    setenv(name_.c_str(), old_.c_str(), 1);
  else
    unsetenv(name_.c_str());
}

}  // namespace ipt::test
