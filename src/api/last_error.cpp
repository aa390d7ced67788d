// SPDX-License-Identifier: Apache-2.0
#include "api/last_error.hpp"

namespace ipt::api {
namespace {
thread_local std::string message;
}

void set_last_error(std::string text) noexcept { message = std::move(text); }
void clear_last_error() noexcept { message.clear(); }
const char* last_error() noexcept { return message.c_str(); }

}  // namespace ipt::api
