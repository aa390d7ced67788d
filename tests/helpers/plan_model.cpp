// SPDX-License-Identifier: Apache-2.0
#include "helpers/plan_model.hpp"

#include <algorithm>
#include <utility>

namespace ipt::planner {
namespace {

using u64 = std::uint64_t;

const char* buffer_name(Buffer buffer) {
  switch (buffer) {
    case Buffer::kMatrix:
      return "matrix";
    case Buffer::kScratch:
      return "scratch";
    case Buffer::kZeroScratch:
      return "zero scratch";
    case Buffer::kReport:
      return "report";
    case Buffer::kNone:
      return "none";
  }
  return "?";
}

// Products of factors a corrupt plan may have made huge: saturate instead of wrapping,
// so that a bound check cannot pass by overflow.
u64 saturating_mul(u64 a, u64 b) {
  if (a != 0 && b > ~u64{0} / a) return ~u64{0};
  return a * b;
}

u64 saturating_add(u64 a, u64 b) { return a > ~u64{0} - b ? ~u64{0} : a + b; }

// x / d and x % d. Full checks spend most of their time dividing: 32-bit division,
// where both fit, is several times faster than 64-bit on common x86 cores.
struct QuotientRemainder {
  u64 q, r;
};
QuotientRemainder divide(u64 x, u64 d) {
  if (((x | d) >> 32) == 0) {
    const auto x32 = static_cast<std::uint32_t>(x), d32 = static_cast<std::uint32_t>(d);
    return {x32 / d32, x32 % d32};
  }
  return {x / d, x % d};
}

std::optional<Position> permuted(const Move& move, Position p) {
  const u64 extent = move.I * move.A * move.B * move.C;
  if (p.space != Buffer::kMatrix || p.index >= extent) return p;
  const auto [rest_c, c] = divide(p.index, move.C);
  const auto [rest_b, b] = divide(rest_c, move.B);
  const auto [i, a] = divide(rest_b, move.A);
  return Position{Buffer::kMatrix, ((i * move.B + b) * move.A + a) * move.C + c};
}

std::optional<Position> restrided(const Move& move, Position p) {
  if (p.space != Buffer::kMatrix || move.s_in == move.s_out) return p;
  // Each layout ends with its last row's last element.
  if (move.rows == 0) return p;
  const u64 in_extent = (move.rows - 1) * move.s_in + move.len;
  const u64 out_extent = (move.rows - 1) * move.s_out + move.len;
  if (p.index < in_extent) {
    const auto [row, col] = divide(p.index, move.s_in);
    if (col >= move.len) return std::nullopt;  // a gap: its value is not carried
    return Position{Buffer::kMatrix, row * move.s_out + col};
  }
  // Below the new layout's extent: written by it, or a gap it leaves undefined.
  if (p.index < out_extent) return std::nullopt;
  return p;
}

std::optional<Position> copied(const Move& move, Position p) {
  if (p.space == move.from && p.index >= move.from_at && p.index - move.from_at < move.count)
    return Position{move.to, move.to_at + (p.index - move.from_at)};
  if (p.space == move.to && p.index >= move.to_at && p.index - move.to_at < move.count)
    return std::nullopt;
  return p;
}

// Byte ranges of one buffer known to hold zeros: sorted, disjoint, merged.
class ZeroBytes {
 public:
  void add(u64 begin, u64 end) {
    if (begin >= end) return;
    remove(begin, end);
    ranges_.emplace_back(begin, end);
    std::sort(ranges_.begin(), ranges_.end());
    std::vector<std::pair<u64, u64>> merged;
    for (const auto& range : ranges_) {
      if (!merged.empty() && merged.back().second >= range.first)
        merged.back().second = std::max(merged.back().second, range.second);
      else
        merged.push_back(range);
    }
    ranges_ = std::move(merged);
  }
  void remove(u64 begin, u64 end) {
    if (begin >= end) return;
    std::vector<std::pair<u64, u64>> kept;
    for (const auto& [b, e] : ranges_) {
      if (e <= begin || b >= end) {
        kept.emplace_back(b, e);
        continue;
      }
      if (b < begin) kept.emplace_back(b, begin);
      if (e > end) kept.emplace_back(end, e);
    }
    ranges_ = std::move(kept);
  }
  // The first byte of [begin, end) not known to be zero, or `end` when all are.
  u64 first_unknown(u64 begin, u64 end) const {
    for (const auto& [b, e] : ranges_)
      if (b <= begin && begin < e) begin = e;
    return std::min(begin, end);
  }

 private:
  std::vector<std::pair<u64, u64>> ranges_;
};

bool overlaps(u64 b1, u64 e1, u64 b2, u64 e2) { return b1 < e2 && b2 < e1; }

std::string bytes_text(u64 begin, u64 end) {
  return "bytes [" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

std::string region_text(const Region& region) {
  return bytes_text(region.offset, region.offset + region.bytes) + " of " +
         buffer_name(region.buffer);
}

std::string step_name(const LaunchPlan& plan, std::size_t i) {
  return "step " + std::to_string(i) + " (" + plan.steps[i].what + ")";
}

// The sizes a plan claims for itself agree with the call.
std::string check_header(const LaunchPlan& plan, u64 rows, u64 cols) {
  const std::size_t es = plan.elem_size;
  if (es != 1 && es != 2 && es != 4 && es != 8 && es != 16)
    return "element size " + std::to_string(es) + " is not 1, 2, 4, 8 or 16";
  const TransposePlan& t = plan.transpose;
  if (t.rows != rows || t.cols != cols)
    return "the plan is for " + std::to_string(t.rows) + " x " + std::to_string(t.cols) + ", not " +
           std::to_string(rows) + " x " + std::to_string(cols);
  if (t.padded_rows < rows || t.padded_cols < cols)
    return "the padded shape is smaller than the matrix";
  const u64 borrowed = t.padded_elements() - rows * cols;
  if (plan.part_matrices != 0) {
    // Parts of single matrices pad each in scratch, in split tails of their own steps:
    // the moves say where the elements go; nothing is borrowed.
    if (plan.split != 0 || plan.borrowed_bytes != 0)
      return "a plan in parts splits or borrows at the plan's level";
  } else if (plan.split != 0) {
    // What does not fit the caller's buffer lives in scratch that nothing else may use.
    if (plan.split != rows * cols || plan.borrowed_bytes != 0)
      return "a split plan splits at " + std::to_string(plan.split) + " and borrows " +
             std::to_string(plan.borrowed_bytes) + " bytes";
    const Region& tail = plan.split_tail;
    if (tail.buffer != Buffer::kScratch || tail.bytes != borrowed * es ||
        tail.offset + tail.bytes > plan.scratch_bytes)
      return "the split tail is not the padding's " + std::to_string(borrowed * es) +
             " bytes inside the call scratch";
    const auto overlaps = [&tail](const Region& r) {
      return r.buffer == tail.buffer && !r.empty() && r.offset < tail.offset + tail.bytes &&
             tail.offset < r.offset + r.bytes;
    };
    if (overlaps(plan.fill)) return "the fill overwrites the split tail";
    for (std::size_t i = 0; i < plan.steps.size(); ++i)
      if (overlaps(plan.steps[i].flags) || overlaps(plan.steps[i].zeroes))
        return step_name(plan, i) + " uses the split tail as flags";
  } else if (plan.borrowed_bytes != borrowed * es)
    return "borrowed_bytes is " + std::to_string(plan.borrowed_bytes) + ", the padding needs " +
           std::to_string(borrowed * es);
  for (std::size_t i = 0; i < plan.steps.size(); ++i)
    if (plan.steps[i].noop()) return step_name(plan, i) + " launches nothing";
  return "";
}

// The elements of the matrix buffer a move addresses, from the matrix's start; checks
// the move's own sanity on the way (a division by a zero factor would crash the model).
std::string move_extent(const Move& move, std::size_t elem_size, u64 scratch_bytes,
                        u64 zero_scratch_bytes, u64& extent) {
  extent = 0;
  switch (move.kind) {
    case Move::Kind::kPermute:
      if (move.I == 0 || move.A == 0 || move.B == 0 || move.C == 0)
        return "a permutation with a zero factor";
      extent = saturating_mul(saturating_mul(move.I, move.A), saturating_mul(move.B, move.C));
      return "";
    case Move::Kind::kRestride:
      if (move.s_in < move.len || move.s_out < move.len || move.s_in == 0 || move.s_out == 0)
        return "a restride whose stride is shorter than its row";
      extent = move.rows == 0
                   ? 0
                   : saturating_add(saturating_mul(move.rows - 1, std::max(move.s_in, move.s_out)),
                                    move.len);
      return "";
    case Move::Kind::kCopy:
      for (const auto& [buffer, at] : {std::pair{move.from, move.from_at}, {move.to, move.to_at}}) {
        const u64 end = saturating_add(at, move.count);
        if (buffer == Buffer::kMatrix) {
          extent = std::max(extent, end);
        } else if (buffer == Buffer::kScratch || buffer == Buffer::kZeroScratch) {
          const u64 size = buffer == Buffer::kScratch ? scratch_bytes : zero_scratch_bytes;
          if (saturating_mul(end, elem_size) > size)
            return std::string("a copy past the ") + buffer_name(buffer) + "'s " +
                   std::to_string(size) + " bytes";
        } else {
          return std::string("a copy from or to the ") + buffer_name(buffer) + " buffer";
        }
      }
      return "";
  }
  return "an unknown move";
}

// No step touches past `room` elements (the matrix and its padding), nor past the
// buffer's `buffer`; no move reaches further into the buffer than its step says it
// touches.
std::string check_touches(const LaunchPlan& plan, u64 room, u64 buffer) {
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const Step& step = plan.steps[i];
    if (step.touches > room || step.touches > buffer)
      return step_name(plan, i) + " touches " + std::to_string(step.touches) +
             " elements: the padded matrix has " + std::to_string(room) + ", the buffer " +
             std::to_string(buffer);
    u64 extent = 0;
    const std::string bad =
        move_extent(step.move, plan.elem_size, plan.scratch_bytes, plan.zero_scratch_bytes, extent);
    if (!bad.empty()) return step_name(plan, i) + ": " + bad;
    if (extent != 0) extent = saturating_add(extent, step.move.base);
    // A split plan's kernels reach past `split` in the tail, not in the buffer.
    const u64 split = step.move.split != 0 ? step.move.base + step.move.split : plan.split;
    const u64 in_buffer = split != 0 ? std::min(extent, split) : extent;
    if (in_buffer > step.touches)
      return step_name(plan, i) + " moves elements up to " + std::to_string(in_buffer) +
             " of the buffer but says it touches " + std::to_string(step.touches);
  }
  return "";
}

std::string check_extents(const LaunchPlan& plan, u64 rows, u64 cols, u64 capacity) {
  const u64 batch = plan.transpose.batch;
  const u64 room = batch * std::max(rows * cols, plan.transpose.padded_elements());
  return check_touches(plan, room, capacity == 0 ? batch * rows * cols : capacity);
}

std::string check_region(const LaunchPlan& plan, const Region& region, const std::string& what) {
  if (region.empty()) return "";
  u64 size = 0;
  if (region.buffer == Buffer::kScratch)
    size = plan.scratch_bytes;
  else if (region.buffer == Buffer::kZeroScratch)
    size = plan.zero_scratch_bytes;
  else
    return what + " is in the " + buffer_name(region.buffer) + " buffer";
  if (region.offset % 16 != 0) return what + " starts at byte " + std::to_string(region.offset);
  if (saturating_add(region.offset, region.bytes) > size)
    return what + " (" + region_text(region) + ") runs past the plan's " + std::to_string(size) +
           " bytes";
  return "";
}

// Every scratch region lies in the scratch the plan asks for; a step's own flags and
// the words it zeroes for others are apart (zeroing its own flags would race with it).
std::string check_regions(const LaunchPlan& plan) {
  if (!plan.fill.empty() && plan.fill.buffer != Buffer::kScratch)
    return "the fill is not in the call scratch";
  if (std::string bad = check_region(plan, plan.fill, "the fill"); !bad.empty()) return bad;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const Step& step = plan.steps[i];
    const std::string name = step_name(plan, i);
    if (std::string bad = check_region(plan, step.flags, name + "'s flags"); !bad.empty())
      return bad;
    if (std::string bad = check_region(plan, step.zeroes, name + "'s zeroes"); !bad.empty())
      return bad;
    if (std::string bad = check_region(plan, step.fill_before, name + "'s fill"); !bad.empty())
      return bad;
    if (!step.flags.empty() && !step.zeroes.empty() && step.flags.buffer == step.zeroes.buffer &&
        overlaps(step.flags.offset, step.flags.offset + step.flags.bytes, step.zeroes.offset,
                 step.zeroes.offset + step.zeroes.bytes))
      return name + " zeroes its own flags";
  }
  return "";
}

// Bytes [begin, end) of `buffer` that a step writes besides its move, or that its copy
// writes.
bool step_writes(const Step& step, std::size_t elem_size, Buffer buffer, u64 begin, u64 end) {
  for (const Region* region : {&step.flags, &step.zeroes, &step.fill_before})
    if (!region->empty() && region->buffer == buffer &&
        overlaps(region->offset, region->offset + region->bytes, begin, end))
      return true;
  const Move& move = step.move;
  return move.kind == Move::Kind::kCopy && move.to == buffer &&
         overlaps(move.to_at * elem_size, (move.to_at + move.count) * elem_size, begin, end);
}

// Scratch that holds bytes copied out of the matrix (the borrowed bytes) is written by
// nothing else until the copy that reads them back.
std::string check_held_bytes(const LaunchPlan& plan) {
  const std::size_t es = plan.elem_size;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const Move& out = plan.steps[i].move;
    if (out.kind != Move::Kind::kCopy || out.to == Buffer::kMatrix || out.count == 0) continue;
    const u64 begin = out.to_at * es, end = (out.to_at + out.count) * es;
    std::size_t back = plan.steps.size() - 1;
    for (std::size_t j = i + 1; j < plan.steps.size(); ++j) {
      const Move& in = plan.steps[j].move;
      if (in.kind == Move::Kind::kCopy && in.from == out.to &&
          overlaps(in.from_at * es, (in.from_at + in.count) * es, begin, end)) {
        back = j;
        break;
      }
    }
    Step own = plan.steps[i];
    own.move = {};  // its own copy writes the held bytes: that is how they get there
    if (step_writes(own, es, out.to, begin, end))
      return step_name(plan, i) + " writes scratch over the bytes it keeps (" +
             bytes_text(begin, end) + ")";
    for (std::size_t j = i + 1; j <= back; ++j)
      if (step_writes(plan.steps[j], es, out.to, begin, end))
        return step_name(plan, j) + " writes " + buffer_name(out.to) +
               " that holds the bytes kept by step " + std::to_string(i) + " (" +
               bytes_text(begin, end) + ")";
  }
  return "";
}

// Flags are zero when their step starts: the call scratch by the fill or an earlier
// step's zeroing, the zero scratch by the previous call. Kernels leave their flags set,
// but the on-chip kernel clears its own scratch as it leaves; the zero scratch must be
// all zero again at the end, for the next call (unless `zero_at_end` is false: a
// rollback, after which the runtime drops the zero scratch).
std::string check_zero_state(const LaunchPlan& plan, bool zero_at_end = true) {
  ZeroBytes scratch, zero_scratch;
  zero_scratch.add(0, plan.zero_scratch_bytes);
  if (!plan.fill.empty()) scratch.add(plan.fill.offset, plan.fill.offset + plan.fill.bytes);
  const auto zeros_of = [&](Buffer buffer) -> ZeroBytes* {
    if (buffer == Buffer::kScratch) return &scratch;
    if (buffer == Buffer::kZeroScratch) return &zero_scratch;
    return nullptr;
  };
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const Step& step = plan.steps[i];
    const Region& fill = step.fill_before;
    if (ZeroBytes* zeros = fill.empty() ? nullptr : zeros_of(fill.buffer))
      zeros->add(fill.offset, fill.offset + fill.bytes);
    const Region& flags = step.flags;
    if (ZeroBytes* zeros = flags.empty() ? nullptr : zeros_of(flags.buffer)) {
      const u64 end = flags.offset + flags.bytes;
      const u64 dirty = zeros->first_unknown(flags.offset, end);
      if (dirty != end)
        return step_name(plan, i) + " starts with flags (" + region_text(flags) +
               ") not known to be zero from byte " + std::to_string(dirty);
      if (step.family != Family::kOnChip) zeros->remove(flags.offset, end);
    }
    const Move& move = step.move;
    if (move.kind == Move::Kind::kCopy)
      if (ZeroBytes* zeros = zeros_of(move.to))
        zeros->remove(move.to_at * plan.elem_size, (move.to_at + move.count) * plan.elem_size);
    if (ZeroBytes* zeros = step.zeroes.empty() ? nullptr : zeros_of(step.zeroes.buffer))
      zeros->add(step.zeroes.offset, step.zeroes.offset + step.zeroes.bytes);
  }
  const u64 dirty = zero_scratch.first_unknown(0, plan.zero_scratch_bytes);
  if (zero_at_end && dirty != plan.zero_scratch_bytes)
    return "the zero scratch is left set from byte " + std::to_string(dirty);
  return "";
}

// Deterministic on every platform (std::uniform_int_distribution is not).
class SplitMix {
 public:
  explicit SplitMix(u64 seed) : state_(seed) {}
  u64 next() {
    u64 z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  u64 below(u64 bound) { return bound == 0 ? 0 : next() % bound; }

 private:
  u64 state_;
};

// The element indices a sampled check follows: random ones, both ends, and elements at
// the edges of rows and columns (where index arithmetic goes wrong first), then borrowed
// ones. Indices from total on are borrowed elements.
std::vector<u64> sample_indices(u64 batch, u64 rows, u64 cols, u64 borrowed, u64 samples,
                                u64 seed) {
  const u64 total = batch * rows * cols;
  SplitMix random(seed);
  std::vector<u64> picked;
  const auto pick_range = [&](u64 begin, u64 end, u64 count) {
    for (u64 i = begin; i < end && i < begin + count; ++i) picked.push_back(i);
    for (u64 i = std::max(begin + count, end >= count ? end - count : 0); i < end; ++i)
      picked.push_back(i);
  };
  pick_range(0, total, 8);
  pick_range(total, total + borrowed, 8);
  std::vector<u64> edge_rows{0, 1, rows / 2, rows - 2, rows - 1};
  std::vector<u64> edge_cols{0, 1, cols / 2, cols - 2, cols - 1};
  for (int k = 0; k < 8; ++k) {
    edge_rows.push_back(random.below(rows));
    edge_cols.push_back(random.below(cols));
  }
  // In the first and last matrix of a batch, and one between.
  for (u64 b : {u64{0}, batch / 2, batch - 1})
    for (u64 r : edge_rows)
      for (u64 c : edge_cols)
        if (r < rows && c < cols) picked.push_back((b * rows + r) * cols + c);
  for (u64 k = 0; k < samples; ++k) picked.push_back(random.below(total));
  for (u64 k = 0; borrowed > 0 && k < samples / 8; ++k)
    picked.push_back(total + random.below(borrowed));
  return picked;
}

// Where the value of element `index` must end: the transposed place in its matrix of the
// batch (the same place when the steps undo themselves), the same place for a borrowed
// element past the batch.
Position expected_end(u64 batch, u64 rows, u64 cols, u64 index, bool transposed) {
  const u64 size = rows * cols;
  if (index >= batch * size || !transposed) return {Buffer::kMatrix, index};
  const u64 first = index / size * size, local = index - first;
  return {Buffer::kMatrix, first + local % cols * rows + local / cols};
}

std::string misplaced(u64 batch, u64 rows, u64 cols, u64 index, const std::optional<Position>& end,
                      bool transposed) {
  const std::string got = end ? "ends at " + to_string(*end) : "is overwritten";
  const std::string want = to_string(expected_end(batch, rows, cols, index, transposed));
  const u64 size = rows * cols;
  if (index >= batch * size)
    return "borrowed element " + std::to_string(index - batch * size) + " past the matrix " + got +
           ", expected " + want;
  const u64 local = index % size;
  return "element (" + std::to_string(local / cols) + ", " + std::to_string(local % cols) + ")" +
         (batch > 1 ? " of matrix " + std::to_string(index / size) : std::string()) + " " + got +
         ", expected " + want;
}

std::string check_values(const LaunchPlan& plan, u64 rows, u64 cols, u64 max_full, u64 samples,
                         u64 seed, bool transposed = true) {
  const PlanModel model(plan);
  const u64 batch = plan.transpose.batch;
  const u64 total = batch * rows * cols, borrowed = plan.borrowed_bytes / plan.elem_size;
  const auto check = [&](u64 index) -> std::string {
    const std::optional<Position> end = model.final_position({Buffer::kMatrix, index});
    if (end && *end == expected_end(batch, rows, cols, index, transposed)) return "";
    return misplaced(batch, rows, cols, index, end, transposed);
  };
  if (total + borrowed <= max_full) {
    for (u64 index = 0; index < total + borrowed; ++index)
      if (std::string bad = check(index); !bad.empty()) return bad;
    return "";
  }
  for (u64 index : sample_indices(batch, rows, cols, borrowed, samples, seed))
    if (std::string bad = check(index); !bad.empty()) return bad;
  return "";
}

}  // namespace

std::string to_string(const Position& position) {
  return std::string(buffer_name(position.space)) + "[" + std::to_string(position.index) + "]";
}

std::optional<Position> forward(const Move& move, Position p) {
  if (move.split != 0) {
    // A part's split matrix: its tail in scratch counts as its elements from `split` on;
    // the matrix buffer past `split` holds other elements, which stay.
    Move local = move;
    local.split = local.tail_at = 0;
    const u64 split = move.base + move.split;
    if (p.space == Buffer::kMatrix && p.index >= split) return p;
    if (p.space == Buffer::kScratch && p.index >= move.tail_at)
      p = {Buffer::kMatrix, split + (p.index - move.tail_at)};
    std::optional<Position> end = forward(local, p);
    if (end && end->space == Buffer::kMatrix && end->index >= split)
      end = Position{Buffer::kScratch, move.tail_at + (end->index - split)};
    return end;
  }
  if (move.base != 0) {
    // A part's move: the matrix elements before its matrix stay, the rest count from it.
    if (p.space == Buffer::kMatrix && p.index < move.base) return p;
    if (p.space == Buffer::kMatrix) p.index -= move.base;
    Move local = move;
    local.base = 0;
    std::optional<Position> end = forward(local, p);
    if (end && end->space == Buffer::kMatrix) end->index += move.base;
    return end;
  }
  switch (move.kind) {
    case Move::Kind::kPermute:
      return permuted(move, p);
    case Move::Kind::kRestride:
      return restrided(move, p);
    case Move::Kind::kCopy:
      return copied(move, p);
  }
  return std::nullopt;
}

PlanModel::PlanModel(const LaunchPlan& plan) : elem_size_(plan.elem_size) {
  if (!plan.fill.empty()) {
    Effect fill;
    add_overwrite(fill, plan.fill);
    effects_.push_back(std::move(fill));
  }
  for (const Step& step : plan.steps) {
    if (!step.fill_before.empty()) {
      Effect fill;
      add_overwrite(fill, step.fill_before);
      effects_.push_back(std::move(fill));
    }
    Effect effect;
    effect.moves = true;
    effect.move = step.move;
    add_overwrite(effect, step.flags);
    add_overwrite(effect, step.zeroes);
    effects_.push_back(std::move(effect));
  }
}

void PlanModel::add_overwrite(Effect& effect, const Region& region) const {
  if (region.empty()) return;
  // Every element that shares a byte with the region.
  effect.overwrites.push_back({region.buffer, region.offset / elem_size_,
                               (region.offset + region.bytes + elem_size_ - 1) / elem_size_});
}

bool PlanModel::overwritten(const Effect& effect, const Position& p) {
  for (const Overwrite& o : effect.overwrites)
    if (o.space == p.space && p.index >= o.begin && p.index < o.end) return true;
  return false;
}

std::optional<Position> PlanModel::final_position(Position start) const {
  std::optional<Position> p = start;
  for (const Effect& effect : effects_) {
    if (overwritten(effect, *p)) return std::nullopt;
    if (!effect.moves) continue;
    p = forward(effect.move, *p);
    if (!p || overwritten(effect, *p)) return std::nullopt;
  }
  return p;
}

std::vector<std::optional<Position>> PlanModel::track(const std::vector<Position>& starts) const {
  std::vector<std::optional<Position>> ends;
  ends.reserve(starts.size());
  for (const Position& start : starts) ends.push_back(final_position(start));
  return ends;
}

std::vector<std::optional<Position>> track(const LaunchPlan& plan,
                                           const std::vector<Position>& starts) {
  return PlanModel(plan).track(starts);
}

std::string check_plan(const LaunchPlan& plan, std::uint64_t rows, std::uint64_t cols,
                       std::uint64_t capacity, std::uint64_t max_full, std::uint64_t samples,
                       std::uint64_t seed) {
  if (std::string bad = check_header(plan, rows, cols); !bad.empty()) return bad;
  if (std::string bad = check_extents(plan, rows, cols, capacity); !bad.empty()) return bad;
  if (std::string bad = check_regions(plan); !bad.empty()) return bad;
  if (std::string bad = check_held_bytes(plan); !bad.empty()) return bad;
  if (std::string bad = check_zero_state(plan); !bad.empty()) return bad;
  return check_values(plan, rows, cols, max_full, samples, seed);
}

namespace {

// The first `done` steps of `plan` followed by rollback_plan(plan, done), after the
// plan's fill, in `run`; else the problem.
std::string steps_and_undo(const LaunchPlan& plan, std::size_t done, LaunchPlan& run) {
  if (done > plan.steps.size()) return "fewer steps than " + std::to_string(done);
  try {
    run = rollback_plan(plan, done);
  } catch (const std::logic_error& e) {
    return e.what();
  }
  run.fill = plan.fill;
  run.steps.insert(run.steps.begin(), plan.steps.begin(), plan.steps.begin() + done);
  return "";
}

// check_extents for an imatcopy plan: no step touches past the larger extent.
std::string check_imatcopy_extents(const LaunchPlan& plan, const ImatcopyShape& shape) {
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const Step& step = plan.steps[i];
    if (step.touches > shape.capacity())
      return step_name(plan, i) + " touches " + std::to_string(step.touches) +
             " elements; the call may use " + std::to_string(shape.capacity());
    u64 extent = 0;
    const std::string bad =
        move_extent(step.move, plan.elem_size, plan.scratch_bytes, plan.zero_scratch_bytes, extent);
    if (!bad.empty()) return step_name(plan, i) + ": " + bad;
    if (extent != 0) extent = saturating_add(extent, step.move.base);
    const u64 in_buffer = plan.split != 0 && step.tail.buffer != Buffer::kNone
                              ? std::min(extent, plan.split)
                              : extent;
    if (in_buffer > step.touches)
      return step_name(plan, i) + " moves elements up to " + std::to_string(in_buffer) +
             " of the buffer but says it touches " + std::to_string(step.touches);
  }
  return "";
}

// Every element of A ends at its place in B (or, `back`, where it started).
std::string check_imatcopy_values(const LaunchPlan& plan, const ImatcopyShape& shape, bool back) {
  const PlanModel model(plan);
  for (u64 r = 0; r < shape.rows; ++r)
    for (u64 c = 0; c < shape.cols; ++c) {
      const u64 from = r * shape.lda + c;
      const u64 to = back ? from : shape.transpose ? c * shape.ldb + r : r * shape.ldb + c;
      const std::optional<Position> end = model.final_position({Buffer::kMatrix, from});
      if (!end || *end != Position{Buffer::kMatrix, to})
        return "element (" + std::to_string(r) + ", " + std::to_string(c) + ") " +
               (end ? "ends at " + to_string(*end) : std::string("is overwritten")) +
               ", expected " + to_string(Position{Buffer::kMatrix, to});
    }
  return "";
}

std::string check_imatcopy_run(const LaunchPlan& run, const ImatcopyShape& shape, bool back) {
  for (const auto& bad :
       {check_header(run, shape.rows, shape.cols), check_imatcopy_extents(run, shape),
        check_regions(run), check_held_bytes(run), check_zero_state(run, !back)})
    if (!bad.empty()) return bad;
  return check_imatcopy_values(run, shape, back);
}

}  // namespace

std::string check_imatcopy_plan(const LaunchPlan& plan, const ImatcopyShape& shape) {
  return check_imatcopy_run(plan, shape, false);
}

std::string check_imatcopy_rollback(const LaunchPlan& plan, std::size_t done,
                                    const ImatcopyShape& shape) {
  LaunchPlan run;
  if (std::string bad = steps_and_undo(plan, done, run); !bad.empty()) return bad;
  const std::string bad = check_imatcopy_run(run, shape, true);
  return bad.empty() ? "" : "the first " + std::to_string(done) + " step(s) and their undo: " + bad;
}

std::string check_rollback(const LaunchPlan& plan, std::size_t done, std::uint64_t rows,
                           std::uint64_t cols, std::uint64_t capacity, std::uint64_t max_full,
                           std::uint64_t samples, std::uint64_t seed) {
  LaunchPlan run;
  if (std::string bad = steps_and_undo(plan, done, run); !bad.empty()) return bad;
  const std::string what = "the first " + std::to_string(done) + " step(s) and their undo: ";
  for (const auto& bad :
       {check_header(run, rows, cols), check_extents(run, rows, cols, capacity), check_regions(run),
        check_held_bytes(run), check_zero_state(run, /*zero_at_end=*/false)})
    if (!bad.empty()) return what + bad;
  if (std::string bad = check_values(run, rows, cols, max_full, samples, seed, false); !bad.empty())
    return what + bad;
  return "";
}

std::uint64_t permuted_index(const std::vector<std::uint64_t>& dims,
                             const std::vector<std::size_t>& perm, std::uint64_t index) {
  const std::size_t rank = dims.size();
  std::vector<u64> at(rank);  // the element's index on each input axis
  for (std::size_t a = rank; a-- > 0;) {
    at[a] = index % dims[a];
    index /= dims[a];
  }
  u64 out = 0;
  for (std::size_t i = 0; i < rank; ++i) out = out * dims[perm[i]] + at[perm[i]];
  return out;
}

namespace {

std::string check_permute_run(const LaunchPlan& run, const PermuteShape& shape, bool back,
                              u64 max_full, u64 samples, u64 seed) {
  u64 elements = 1;
  for (const u64 d : shape.dims) elements *= d;
  if (run.elem_size % shape.elem_size != 0)
    return "the plan's " + std::to_string(run.elem_size) + "-byte element is not made of " +
           std::to_string(shape.elem_size) + "-byte ones";
  const u64 unit = run.elem_size / shape.elem_size;  // the tensor's elements per plan element
  const u64 units = elements / unit;
  const u64 borrowed = run.borrowed_bytes / run.elem_size;
  for (const auto& bad : {check_touches(run, units + borrowed, units + borrowed),
                          check_regions(run), check_held_bytes(run), check_zero_state(run, !back)})
    if (!bad.empty()) return bad;
  const PlanModel model(run);
  const auto check = [&](u64 u) -> std::string {
    u64 want = u;
    if (!back && u < units) {
      const u64 e = permuted_index(shape.dims, shape.perm, u * unit);
      if (e % unit != 0)
        return "element " + std::to_string(u * unit) + " goes inside another plan element";
      want = e / unit;
    }
    const std::optional<Position> end = model.final_position({Buffer::kMatrix, u});
    if (end && *end == Position{Buffer::kMatrix, want}) return "";
    return (u < units ? "element " + std::to_string(u * unit)
                      : "borrowed element " + std::to_string(u - units)) +
           " (plan element " + std::to_string(u) + ") " +
           (end ? "ends at " + to_string(*end) : std::string("is overwritten")) + ", expected " +
           to_string(Position{Buffer::kMatrix, want});
  };
  if (units + borrowed <= max_full) {
    for (u64 u = 0; u < units + borrowed; ++u)
      if (std::string bad = check(u); !bad.empty()) return bad;
    return "";
  }
  for (u64 u : sample_indices(1, 1, units, borrowed, samples, seed))
    if (std::string bad = check(u); !bad.empty()) return bad;
  return "";
}

}  // namespace

std::string check_permute_plan(const LaunchPlan& plan, const PermuteShape& shape,
                               std::uint64_t max_full, std::uint64_t samples, std::uint64_t seed) {
  return check_permute_run(plan, shape, false, max_full, samples, seed);
}

std::string check_permute_rollback(const LaunchPlan& plan, std::size_t done,
                                   const PermuteShape& shape, std::uint64_t max_full,
                                   std::uint64_t samples, std::uint64_t seed) {
  LaunchPlan run;
  if (std::string bad = steps_and_undo(plan, done, run); !bad.empty()) return bad;
  const std::string bad = check_permute_run(run, shape, true, max_full, samples, seed);
  return bad.empty() ? "" : "the first " + std::to_string(done) + " step(s) and their undo: " + bad;
}

}  // namespace ipt::planner
