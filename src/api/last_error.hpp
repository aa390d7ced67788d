// SPDX-License-Identifier: Apache-2.0
// The thread-local message behind ipt_last_error_message().
#pragma once

#include <string>

namespace ipt::api {

void set_last_error(std::string message);
void clear_last_error();
const char* last_error();

}  // namespace ipt::api
