// SPDX-License-Identifier: Apache-2.0
// The exception that carries an ipt_status through the C++ layers up to the C ABI,
// where src/api/guard.hpp turns it into a return value and a last-error message.
#pragma once

#include <stdexcept>
#include <string>

#include "ipt/ipt.h"

namespace ipt {

class Error : public std::runtime_error {
 public:
  Error(ipt_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  ipt_status status() const noexcept { return status_; }

 private:
  ipt_status status_;
};

[[noreturn]] inline void fail(ipt_status status, const std::string& message) {
  throw Error(status, message);
}

// Throws the OpenCL error code as the status (the ipt_status values equal the CL codes
// where both exist, and other CL codes pass through unchanged).
inline void check_cl(cl_int code, const char* what) {
  if (code != CL_SUCCESS)
    fail(static_cast<ipt_status>(code),
         std::string(what) + " failed with OpenCL error " + std::to_string(code));
}

}  // namespace ipt
