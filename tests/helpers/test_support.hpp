// SPDX-License-Identifier: Apache-2.0
// What every device test needs: one shared OpenCL session on the device IPT_DEVICE names,
// and random matrices (support/random_data.hpp) in guarded buffers, checked bit for bit
// against the host references (support/host_reference.hpp).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "helpers/test_seed.hpp"
#include "ipt/ipt.h"
#include "support/device_select.hpp"

namespace ipt::test {

// The session shared by all tests of one process (created on first use).
support::Session& session();

// CL_DEVICE_LOCAL_MEM_SIZE of the session's device.
std::size_t device_local_mem();

// How many bytes of `buffer` outside [begin, begin + count) are not `fill`: a scratch
// region's surroundings, filled with `fill` before a kernel was given the region, must
// come back untouched. Reads the whole buffer (blocking) on the session's queue.
std::size_t bytes_changed_around(cl_mem buffer, std::size_t begin, std::size_t count,
                                 unsigned char fill);

// A device buffer of `before` + matrix + `after` bytes filled with support::random_bytes,
// the matrix's elements then made to differ from their left and upper neighbours
// (support::separate_neighbours); the matrix starts at element `offset` (before = offset *
// elem_size).
class GuardedMatrix {
 public:
  GuardedMatrix(std::size_t rows, std::size_t cols, std::size_t elem_size, std::size_t offset,
                std::size_t after_bytes, std::uint64_t seed,
                cl_mem_flags flags = CL_MEM_READ_WRITE);
  ~GuardedMatrix();
  GuardedMatrix(const GuardedMatrix&) = delete;
  GuardedMatrix& operator=(const GuardedMatrix&) = delete;

  cl_mem buffer() const { return buffer_; }
  std::size_t offset() const { return offset_; }
  const std::vector<unsigned char>& initial() const { return initial_; }
  std::vector<unsigned char> matrix_before() const;  // the matrix bytes before the call
  std::vector<unsigned char> read_all() const;       // the whole buffer now (blocking)

  // Empty when the matrix's bytes are now `expected` (a host reference of the operation:
  // support/host_reference.hpp) and every guard byte is unchanged; else a description of
  // the first mismatches.
  std::string check_holds(const std::vector<unsigned char>& expected) const;
  // The same with the transpose as `expected`.
  std::string check_transposed() const;
  // The same for bytes of the whole buffer read by the caller (another queue, say).
  std::string check_transposed(const std::vector<unsigned char>& now) const;
  // Empty when the whole buffer is byte-for-byte as it was created.
  std::string check_unchanged() const;
  // Empty when every byte around the matrix is as it was created (the matrix's own bytes
  // are not compared).
  std::string check_guards() const;

 private:
  std::string compare_with(const std::vector<unsigned char>& expected,
                           const std::vector<unsigned char>& now) const;

  std::size_t rows_, cols_, elem_size_, offset_;
  std::vector<unsigned char> initial_;
  cl_mem buffer_ = nullptr;
};

// Transposes a random rows x cols matrix (`offset` elements into its buffer, `after_bytes`
// guard bytes after it) with ipt_transpose on the session's queue and waits. Empty when
// the buffer holds the transpose and every guard byte is unchanged; else what went wrong
// (a failed call's status and message included).
std::string transpose_through_api(std::size_t rows, std::size_t cols, std::size_t elem_size,
                                  std::size_t offset, std::size_t after_bytes, std::uint64_t seed);

// Whether the session's device offers out-of-order command queues.
bool out_of_order_queues();

// An out-of-order queue on the session's context and device, released with the object;
// get() is null where the device has none (CL_INVALID_QUEUE_PROPERTIES). Other failures
// throw.
class OutOfOrderQueue {
 public:
  OutOfOrderQueue();
  ~OutOfOrderQueue();
  OutOfOrderQueue(const OutOfOrderQueue&) = delete;
  OutOfOrderQueue& operator=(const OutOfOrderQueue&) = delete;
  cl_command_queue get() const { return queue_; }

 private:
  cl_command_queue queue_ = nullptr;
};

// Sets an environment variable (unsets it: nullptr) for the lifetime of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  bool had_old_ = false;
  std::string old_;
};

}  // namespace ipt::test
