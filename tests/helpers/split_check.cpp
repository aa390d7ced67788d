// SPDX-License-Identifier: Apache-2.0
#include "helpers/split_check.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "helpers/step_check.hpp"
#include "helpers/test_support.hpp"
#include "runtime/error.hpp"
#include "runtime/executor.hpp"
#include "runtime/opencl.hpp"
#include "support/random_data.hpp"
#include "support/step_run.hpp"

namespace ipt::test {
namespace {

constexpr unsigned char kFill = 0xA5;

std::uint64_t round_up(std::uint64_t x, std::uint64_t to) { return (x + to - 1) / to * to; }

bool inside(std::uint64_t byte, const planner::Region& region) {
  return region.buffer == planner::Buffer::kScratch && byte >= region.offset &&
         byte < region.offset + region.bytes;
}

std::vector<unsigned char> read(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                                std::size_t bytes) {
  std::vector<unsigned char> out(bytes);
  if (bytes > 0) queue.enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, out.data());
  return out;
}

// The first few differing elements of two byte vectors of `elem_size` elements.
std::string differences(const std::vector<unsigned char>& expected,
                        const std::vector<unsigned char>& now, std::size_t elem_size,
                        const char* what) {
  std::ostringstream out;
  std::size_t wrong = 0;
  for (std::size_t e = 0; e * elem_size < expected.size(); ++e)
    if (!std::equal(expected.begin() + e * elem_size, expected.begin() + (e + 1) * elem_size,
                    now.begin() + e * elem_size)) {
      if (wrong < 5) out << what << " element " << e << " wrong; ";
      ++wrong;
    }
  if (wrong > 0) out << wrong << " " << what << " element(s) wrong";
  return out.str();
}

}  // namespace

planner::StepSite split_site(std::size_t elem_size, std::uint64_t offset, std::uint64_t split,
                             std::uint64_t elements, bool index64) {
  if (split == 0 || split >= elements) throw std::logic_error("a split outside the matrix");
  planner::StepSite site;
  site.elem_size = elem_size;
  site.offset = offset;
  site.local_mem_bytes = device_local_mem();
  site.index64 = index64;
  site.split = split;
  site.tail = {planner::Buffer::kScratch, kSplitTailAt, (elements - split) * elem_size};
  return site;
}

std::vector<std::uint64_t> split_points(std::uint64_t elements,
                                        const std::vector<std::uint64_t>& boundaries) {
  std::set<std::uint64_t> points{1, elements / 2, elements - 1};
  points.insert(boundaries.begin(), boundaries.end());
  std::vector<std::uint64_t> inside;
  for (std::uint64_t s : points)
    if (s > 0 && s < elements) inside.push_back(s);
  return inside;
}

planner::Region after_tail(const planner::StepSite& site, std::uint64_t bytes) {
  return {planner::Buffer::kScratch, round_up(site.tail.offset + site.tail.bytes, 128), bytes};
}

std::string check_split_step(const planner::Step& step, const planner::StepSite& site,
                             std::uint64_t elements, std::uint64_t seed) {
  const std::size_t elem_size = site.elem_size;
  const std::uint64_t split = site.split;
  if (step.noop()) return "a noop step";
  if (step.touches > split) return "the step touches the buffer past the split";
  // Neighbours in the move's rows differ (equal 1-byte ones would hide a misplaced element).
  std::vector<unsigned char> logical =
      support::random_bytes(static_cast<std::size_t>(elements * elem_size), seed);
  support::separate_neighbours(logical.data(), static_cast<std::size_t>(elements), elem_size,
                               static_cast<std::size_t>(row_length_of(step.move)));
  const std::vector<unsigned char> expected = support::reference_of(logical, step.move, elem_size);

  // The matrix's buffer: random guard elements, then [0, split): nothing past the split.
  const std::size_t before = static_cast<std::size_t>(site.offset * elem_size);
  const std::size_t head = static_cast<std::size_t>(split * elem_size);
  std::vector<unsigned char> initial = support::random_bytes(before, seed ^ 0x5eedu);
  initial.insert(initial.end(), logical.begin(), logical.begin() + head);

  const planner::Step& run = step;

  // The scratch: 0xA5 everywhere but the tail, up to past every region of the step.
  std::uint64_t scratch_bytes = site.tail.offset + site.tail.bytes;
  for (const planner::Region* region : {&run.flags, &run.zeroes})
    if (region->buffer == planner::Buffer::kScratch)
      scratch_bytes = std::max(scratch_bytes, region->offset + region->bytes);
  scratch_bytes = round_up(scratch_bytes, 128) + 128;
  std::vector<unsigned char> scratch_initial(static_cast<std::size_t>(scratch_bytes), kFill);
  std::copy(logical.begin() + head, logical.end(),
            scratch_initial.begin() + static_cast<std::ptrdiff_t>(site.tail.offset));

  const cl::Context context(session().context(), true);
  const cl::CommandQueue queue(session().queue(), true);
  const cl::Buffer buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, initial.size(),
                          initial.data());
  const cl::Buffer scratch(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                           scratch_initial.size(), scratch_initial.data());
  runtime::EnqueueOptions options;
  options.scratch = &scratch;
  try {
    support::run_steps(queue, buffer, {run}, elem_size, site.offset, {}, options).wait();
  } catch (const Error& e) {
    return "refused (status " + std::to_string(e.status()) + "): " + e.what();
  }

  const std::vector<unsigned char> buffer_now = read(queue, buffer, initial.size());
  const std::vector<unsigned char> scratch_now = read(queue, scratch, scratch_initial.size());
  std::string problems;
  if (!std::equal(initial.begin(), initial.begin() + static_cast<std::ptrdiff_t>(before),
                  buffer_now.begin()))
    problems += "a guard byte before the matrix changed; ";
  std::size_t scratch_changed = 0;
  for (std::uint64_t b = 0; b < scratch_bytes; ++b)
    if (!inside(b, site.tail) && !inside(b, run.flags) && !inside(b, run.zeroes) &&
        scratch_now[static_cast<std::size_t>(b)] != kFill)
      ++scratch_changed;
  if (scratch_changed > 0)
    problems += std::to_string(scratch_changed) + " scratch byte(s) outside the tail changed; ";
  std::vector<unsigned char> now(buffer_now.begin() + static_cast<std::ptrdiff_t>(before),
                                 buffer_now.end());
  now.insert(now.end(), scratch_now.begin() + static_cast<std::ptrdiff_t>(site.tail.offset),
             scratch_now.begin() + static_cast<std::ptrdiff_t>(site.tail.offset + site.tail.bytes));
  problems += differences(expected, now, elem_size, "matrix");
  return problems;
}

}  // namespace ipt::test
