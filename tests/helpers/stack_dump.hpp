// SPDX-License-Identifier: Apache-2.0
// Every thread's stack on request, for the hangs that only a GPU machine shows (the thread
// stress tests on NVIDIA's driver) where no debugger is installed to attach to the hung
// process. Once installed, SIGUSR1 makes a thread of the test binary's own write each
// thread's name and return addresses (backtrace_symbols_fd: module and offset, which
// addr2line resolves) to `$IPT_TEST_STACKS_DIR/stacks-<pid>.txt`, or to stderr where the
// variable is unset; the process then goes on. tools/device/verify_gpu.sh asks for them
// when a test runs past its time limit. Elsewhere than on Linux with glibc it does nothing.
#pragma once

namespace ipt::test {

// Call first in main, before any thread starts: SIGUSR1 is blocked in every thread but
// the one that answers it, which later threads inherit.
void install_stack_dump();

}  // namespace ipt::test
