// SPDX-License-Identifier: Apache-2.0
// One call of the C API as the API fuzzer (fuzz_api.cpp) makes it: which function, and
// each argument drawn from a small set of valid and invalid choices, so that the calls
// that reach a kernel stay few in kind (PoCL compiles each new kernel for seconds) while
// every documented check is crossed.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <string>

#include "ipt/ipt.h"

namespace ipt::fuzz {

enum class Function {
  kTranspose,
  kTransposeF32,
  kTransposeF64,
  kWithOptions,
  kPaddedSize,
  kPlan,
  kImatcopy  // ipt_imatcopy, or its typed form for the scalar type (ImatcopyArgs)
};

// The arguments of an ipt_imatcopy call besides the shape: the letters (valid or not),
// the scalar type as a C caller may store any int, alpha given or NULL, the strides.
struct ImatcopyArgs {
  char ordering = 'R', trans = 'N';
  int type = IPT_SCALAR_NONE;
  bool alpha = false;
  bool typed = false;  // ipt_s/d/c/zimatcopy (numeric types only)
  std::size_t lda = 0, ldb = 0;
};

// A handle argument (queue, buffer, device): the session's, NULL, or one that is wrong
// for the call (a read-only buffer; a queue or buffer of another context).
enum class Handle { kValid, kNull, kReadOnly, kOtherContext };

// The event wait list: none; a count without a list or a list without a count; a user
// event the fuzzer completes after the call; that event followed by NULL; an event of
// another context; an event already complete.
enum class WaitList { kNone, kCountOnly, kListOnly, kUserEvent, kUserAndNull, kForeign, kComplete };

// The buffer's size from the matrix's end: exact, a few bytes short, a few bytes more,
// or the offset plus ipt_padded_size (room for the padded plan).
enum class Room { kExact, kShort, kMore, kPadded };

struct ApiCall {
  Function function = Function::kTranspose;
  Handle queue = Handle::kValid, buffer = Handle::kValid;  // device: kValid or kNull
  std::size_t rows = 0, cols = 0, elem_size = 4, offset = 0;
  Room room = Room::kExact;
  std::size_t room_bytes = 0;  // how short or how much more
  WaitList wait = WaitList::kNone;
  bool want_event = true;    // a non-NULL event pointer
  bool null_output = false;  // ipt_padded_size's bytes or ipt_plan's info NULL
  bool has_options = false;  // options non-NULL (ipt_transpose_with_options, ipt_plan)
  ipt_plan_options options{};
  int sequence = 0, padding = 0;  // options' enums as a C caller may store any int
  ImatcopyArgs imatcopy;          // Function::kImatcopy

  // Whether rows * cols * elem_size fits in size_t; with the offset's bytes too.
  bool matrix_bytes_fit() const;
  bool matrix_fits() const;
  std::size_t end_bytes() const;  // (offset + rows * cols) * elem_size; needs matrix_fits
  // Whether the options force anything a call may refuse (a sequence, factors, a shape).
  bool forces_plan() const;
};

ApiCall decode_call(FuzzedDataProvider& in);

std::string describe(const ApiCall& call);

}  // namespace ipt::fuzz
