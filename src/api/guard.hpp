// SPDX-License-Identifier: Apache-2.0
// Runs the body of an exported function and converts every exception into an
// ipt_status plus a last-error message: nothing thrown inside libipt crosses the C ABI.
#pragma once

#include <new>
#include <string>

#include "api/last_error.hpp"
#include "runtime/error.hpp"
#include "runtime/opencl.hpp"

namespace ipt::api {

// Stores the message `compose` builds. Building it allocates: where that fails, the
// message is left empty and the status alone says what failed (as ipt_set_last_error
// does), so that no exception escapes a handler of `guarded` and ends the process.
template <typename Compose>
void set_message(Compose&& compose) noexcept {
  try {
    set_last_error(compose());
  } catch (...) {
    clear_last_error();
  }
}

template <typename Body>
ipt_status guarded(const char* function, Body&& body) noexcept {
  try {
    clear_last_error();
    body();
    return IPT_SUCCESS;
  } catch (const ipt::Error& e) {
    set_message([&] { return std::string(function) + ": " + e.what(); });
    return e.status();
  } catch (const cl::Error& e) {
    set_message([&] {
      return std::string(function) + ": " + e.what() + " failed with OpenCL error " +
             std::to_string(e.err());
    });
    return e.err() < 0 ? static_cast<ipt_status>(e.err()) : IPT_INTERNAL_ERROR;
  } catch (const std::bad_alloc&) {
    set_message([&] { return std::string(function) + ": out of host memory"; });
    return IPT_OUT_OF_HOST_MEMORY;
  } catch (const std::exception& e) {
    set_message([&] { return std::string(function) + ": internal error: " + e.what(); });
    return IPT_INTERNAL_ERROR;
  } catch (...) {
    set_message([&] { return std::string(function) + ": internal error: unknown exception"; });
    return IPT_INTERNAL_ERROR;
  }
}

}  // namespace ipt::api
