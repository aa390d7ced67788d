// SPDX-License-Identifier: Apache-2.0
// Host allocations that fail on demand, for the programs that check what libipt does when
// the host is out of memory (api/messages_out_of_memory.cpp,
// runtime/rollback_out_of_memory.cpp). failing_allocations.cpp replaces the global
// operator new of the program it is linked into, and libipt's code takes that one too.
// Single-threaded use: the count is the process's.
#pragma once

namespace ipt::test {

// Counts allocations from now: the one numbered `from` (1: the next) fails and, with
// `all`, every later one too.
void fail_allocations(long from, bool all);

// Allocations succeed again, uncounted.
void allow_allocations();

}  // namespace ipt::test
