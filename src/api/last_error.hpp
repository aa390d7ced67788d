// SPDX-License-Identifier: Apache-2.0
// The thread-local message behind ipt_last_error_message().
#pragma once

#include <string>

namespace ipt::api {

void set_last_error(std::string message) noexcept;  // moves it in: no allocation
void clear_last_error() noexcept;
const char* last_error() noexcept;

}  // namespace ipt::api
