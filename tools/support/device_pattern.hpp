// SPDX-License-Identifier: Apache-2.0
// Matrices made and checked on the device, for benchmark runs of thousands of shapes:
// element i of the original matrix is a hash of (seed, i), so a kernel fills a buffer and
// another checks a transposed one element by element, with no host copy. (Host
// verification took 1-4 s per shape: the protocol's 4000 shapes of up to 3.2 GB did not
// fit a device session.) The values are random-looking bit patterns, never all zero;
// 4- and 8-byte elements are normal finite floating-point numbers, so that libraries
// that scale (CLBlast's omatcopy by alpha = 1) move them unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "support/device_select.hpp"

namespace ipt::support {

class DevicePattern {
 public:
  explicit DevicePattern(const Session& session);
  ~DevicePattern();
  DevicePattern(const DevicePattern&) = delete;
  DevicePattern& operator=(const DevicePattern&) = delete;

  // Fills `elements` elements of elem_size bytes from element `offset` of `buffer` with
  // the pattern of `seed` (element i gets the value of index i); blocks until done.
  void fill(cl_mem buffer, std::size_t offset, std::size_t elements, std::size_t elem_size,
            std::uint64_t seed);

  // Empty when the cols x rows matrix at `offset` is the transpose of the rows x cols
  // pattern of `seed`; else the count of wrong elements and the first one found.
  std::string check_transposed(cl_mem buffer, std::size_t offset, std::size_t rows,
                               std::size_t cols, std::size_t elem_size, std::uint64_t seed);

 private:
  cl_kernel kernel(const char* name, std::size_t elem_size);

  const Session& session_;
  cl_program programs_[5] = {};  // by element size 1, 2, 4, 8, 16
  cl_mem result_ = nullptr;      // the check's counters
};

}  // namespace ipt::support
