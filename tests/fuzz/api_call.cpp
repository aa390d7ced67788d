// SPDX-License-Identifier: Apache-2.0
#include "api_call.hpp"

#include <cstdint>
#include <limits>

namespace ipt::fuzz {
namespace {

constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();

// Every choice below takes its most common value from input bytes of zero (libFuzzer's
// first inputs, and the end of a short input): a valid argument, or none.

// Sides of matrices that run: small, prime, powers of two and their neighbours. Few, so
// that the kernels they need are soon all compiled.
constexpr std::size_t kSides[] = {32, 1,  2, 3,  4,  5,  7,   8,   13,
                                  16, 31, 0, 33, 61, 64, 100, 128, 257};
// Sides drawn rarely: ones that make (offset + rows * cols) * elem_size overflow or pass
// any buffer, and a prime long side.
constexpr std::size_t kRareSides[] = {kMax, kMax / 2 + 1, (std::size_t{1} << 32) + 1,
                                      std::size_t{1} << 31, 4099};

template <typename T, std::size_t N>
T pick(FuzzedDataProvider& in, const T (&values)[N]) {
  return values[in.ConsumeIntegralInRange<std::size_t>(0, N - 1)];
}

std::size_t side(FuzzedDataProvider& in) {
  return in.ConsumeIntegralInRange(0, 7) == 7 ? pick(in, kRareSides) : pick(in, kSides);
}

std::size_t elem_size(FuzzedDataProvider& in, Function function) {
  if (function == Function::kTransposeF32) return 4;
  if (function == Function::kTransposeF64) return 8;
  constexpr std::size_t kValid[] = {4, 1, 2, 8, 16}, kInvalid[] = {0, 3, 6, 32, kMax};
  return in.ConsumeIntegralInRange(0, 7) == 7 ? pick(in, kInvalid) : pick(in, kValid);
}

std::size_t offset(FuzzedDataProvider& in) {
  constexpr std::size_t kSmall[] = {0, 0, 0, 1, 2, 3, 5, 16},
                        kHuge[] = {kMax, kMax / 16, std::size_t{1} << 40};
  return in.ConsumeIntegralInRange(0, 15) == 15 ? pick(in, kHuge) : pick(in, kSmall);
}

Handle handle(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 15)) {
    case 13:
      return Handle::kNull;
    case 14:
      return Handle::kReadOnly;
    case 15:
      return Handle::kOtherContext;
    default:
      return Handle::kValid;
  }
}

// None (0), or a padded side near the matrix's: the same, a little larger, smaller, or
// absurd.
std::size_t padded_side(FuzzedDataProvider& in, std::size_t side) {
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 3:
      return side;
    case 4:
      return side + 1;
    case 5:
      return side + 3;
    case 6:
      return side - 1;  // wraps for 0: an absurd shape too
    case 7:
      return kMax;
    default:
      return 0;
  }
}

void decode_options(FuzzedDataProvider& in, ApiCall& call) {
  constexpr int kSequences[] = {IPT_SEQUENCE_AUTO,
                                IPT_SEQUENCE_SQUARE,
                                IPT_SEQUENCE_ONE_STAGE,
                                IPT_SEQUENCE_2_1,
                                IPT_SEQUENCE_2_2,
                                IPT_SEQUENCE_3_1,
                                IPT_SEQUENCE_3_2,
                                IPT_SEQUENCE_4_1,
                                IPT_SEQUENCE_4_2,
                                IPT_SEQUENCE_ON_CHIP,
                                -1,
                                10};
  call.sequence = in.ConsumeBool() ? IPT_SEQUENCE_AUTO : pick(in, kSequences);
  constexpr int kPaddings[] = {IPT_PADDING_AUTO, IPT_PADDING_AUTO, IPT_PADDING_OFF, 2, -1};
  call.padding = pick(in, kPaddings);
  constexpr std::size_t kFactors[] = {0, 0, 0, 0, 1, 2, 3, 4, 5, 8, 16, kMax};
  call.options.m = pick(in, kFactors);
  call.options.n = pick(in, kFactors);
  call.options.padded_rows = padded_side(in, call.rows);
  call.options.padded_cols = padded_side(in, call.cols);
  const std::size_t matrix =
      call.matrix_fits() ? call.rows * call.cols * call.elem_size : std::size_t{0};
  const std::size_t max_bytes[] = {0, 0, 1, 4, matrix - 1, matrix, matrix + 64, kMax};
  call.options.max_bytes = pick(in, max_bytes);
}

// A stride near the one the matrix needs: the same, longer, one short (wraps for 0), 0,
// or absurd.
std::size_t stride(FuzzedDataProvider& in, std::size_t needed) {
  switch (in.ConsumeIntegralInRange(0, 11)) {
    case 7:
      return needed + 1;
    case 8:
      return needed + 5;
    case 9:
      return needed - 1;
    case 10:
      return 0;
    case 11:
      return kMax / 2;
    default:
      return needed;
  }
}

void decode_imatcopy(FuzzedDataProvider& in, ApiCall& call) {
  ImatcopyArgs& args = call.imatcopy;
  constexpr char kOrderings[] = {'R', 'C', 'r', 'c', 'R', 'C', 'X', '\0'};
  constexpr char kTrans[] = {'N', 'T', 'C', 'R', 'n', 't', 'c', 'r', 'Z', 'N', 'T'};
  constexpr int kTypes[] = {IPT_SCALAR_F32, IPT_SCALAR_NONE, IPT_SCALAR_F64, IPT_SCALAR_C32,
                            IPT_SCALAR_C64, IPT_SCALAR_F32,  IPT_SCALAR_C32, 7};
  args.ordering = pick(in, kOrderings);
  args.trans = pick(in, kTrans);
  args.type = pick(in, kTypes);
  args.alpha = in.ConsumeBool();
  args.typed = in.ConsumeBool();
  // The type's own size mostly (raw elements keep the size drawn for them).
  constexpr std::size_t kTypeSizes[] = {0, 4, 8, 8, 16};
  const bool numeric = args.type >= IPT_SCALAR_F32 && args.type <= IPT_SCALAR_C64;
  if (numeric && in.ConsumeIntegralInRange(0, 7) != 7) call.elem_size = kTypeSizes[args.type];
  // The typed forms take the type's size and always an alpha.
  args.typed = args.typed && numeric;
  if (args.typed) {
    call.elem_size = kTypeSizes[args.type];
    args.alpha = true;
  }
  const bool columns = args.ordering == 'C' || args.ordering == 'c';
  const bool transposes =
      args.trans == 'T' || args.trans == 't' || args.trans == 'C' || args.trans == 'c';
  args.lda = stride(in, columns ? call.rows : call.cols);
  args.ldb = stride(in, transposes != columns ? call.rows : call.cols);
}

// A letter argument as C would write it, also when it is not printable.
std::string letter(char c) {
  if (c >= 32 && c < 127) return std::string("'") + c + "'";
  return "char " + std::to_string(static_cast<int>(c));
}

}  // namespace

bool ApiCall::matrix_bytes_fit() const {
  std::size_t elements = 0, bytes = 0;
  return !__builtin_mul_overflow(rows, cols, &elements) &&
         !__builtin_mul_overflow(elements, elem_size, &bytes);
}

bool ApiCall::matrix_fits() const {
  std::size_t elements = 0, bytes = 0, before = 0, end = 0;
  return !__builtin_mul_overflow(rows, cols, &elements) &&
         !__builtin_mul_overflow(elements, elem_size, &bytes) &&
         !__builtin_mul_overflow(offset, elem_size, &before) &&
         !__builtin_add_overflow(before, bytes, &end);
}

std::size_t ApiCall::end_bytes() const { return (offset + rows * cols) * elem_size; }

bool ApiCall::forces_plan() const {
  return has_options && (sequence != IPT_SEQUENCE_AUTO || options.m != 0 || options.n != 0 ||
                         options.padded_rows != 0 || options.padded_cols != 0);
}

ApiCall decode_call(FuzzedDataProvider& in) {
  ApiCall call;
  call.function = static_cast<Function>(in.ConsumeIntegralInRange(0, 6));
  call.queue = handle(in);
  if (call.queue == Handle::kReadOnly) call.queue = Handle::kOtherContext;  // no such queue
  call.buffer = handle(in);
  call.rows = side(in);
  call.cols = side(in);
  call.elem_size = elem_size(in, call.function);
  call.offset = offset(in);
  call.room = static_cast<Room>(in.ConsumeIntegralInRange(0, 3));
  call.room_bytes = in.ConsumeIntegralInRange<std::size_t>(1, 64);
  const int wait = in.ConsumeIntegralInRange(0, 13);
  call.wait =
      wait <= static_cast<int>(WaitList::kComplete) ? static_cast<WaitList>(wait) : WaitList::kNone;
  call.want_event = in.ConsumeBool();
  call.null_output = in.ConsumeIntegralInRange(0, 15) == 15;
  call.has_options =
      (call.function == Function::kWithOptions || call.function == Function::kPlan) &&
      in.ConsumeBool();
  if (call.has_options) decode_options(in, call);
  if (call.function == Function::kImatcopy) decode_imatcopy(in, call);
  return call;
}

std::string describe(const ApiCall& call) {
  static const char* const kFunctions[] = {
      "ipt_transpose",   "ipt_transpose_f32", "ipt_transpose_f64", "ipt_transpose_with_options",
      "ipt_padded_size", "ipt_plan",          "ipt_imatcopy"};
  static const char* const kHandles[] = {"valid", "NULL", "read-only", "other context"};
  static const char* const kWaits[] = {"none",       "count only", "list only", "user event",
                                       "user, NULL", "foreign",    "complete"};
  static const char* const kRooms[] = {"exact", "short by", "more by", "padded size"};
  std::string text =
      std::string(kFunctions[static_cast<int>(call.function)]) + " " + std::to_string(call.rows) +
      " x " + std::to_string(call.cols) + ", elem_size " + std::to_string(call.elem_size) +
      ", offset " + std::to_string(call.offset) + "; queue/device " +
      kHandles[static_cast<int>(call.queue)] + ", buffer " +
      kHandles[static_cast<int>(call.buffer)] + ", room " + kRooms[static_cast<int>(call.room)] +
      (call.room == Room::kShort || call.room == Room::kMore ? " " + std::to_string(call.room_bytes)
                                                             : std::string()) +
      ", wait list " + kWaits[static_cast<int>(call.wait)] + (call.want_event ? ", event" : "") +
      (call.null_output ? ", NULL output" : "");
  if (call.function == Function::kImatcopy)
    text += "; ordering " + letter(call.imatcopy.ordering) + ", trans " +
            letter(call.imatcopy.trans) + ", type " + std::to_string(call.imatcopy.type) +
            (call.imatcopy.alpha ? ", alpha" : ", alpha NULL") +
            (call.imatcopy.typed ? ", typed form" : "") + ", lda " +
            std::to_string(call.imatcopy.lda) + ", ldb " + std::to_string(call.imatcopy.ldb);
  if (call.has_options)
    text += "; options: sequence " + std::to_string(call.sequence) + ", m " +
            std::to_string(call.options.m) + ", n " + std::to_string(call.options.n) +
            ", padding " + std::to_string(call.padding) + ", padded " +
            std::to_string(call.options.padded_rows) + " x " +
            std::to_string(call.options.padded_cols) + ", max_bytes " +
            std::to_string(call.options.max_bytes);
  return text;
}

}  // namespace ipt::fuzz
