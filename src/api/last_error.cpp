// SPDX-License-Identifier: Apache-2.0
#include "api/last_error.hpp"

namespace ipt::api {
namespace {
thread_local std::string message;
}

void set_last_error(std::string text) { message = std::move(text); }
void clear_last_error() { message.clear(); }
const char* last_error() { return message.c_str(); }

}  // namespace ipt::api
