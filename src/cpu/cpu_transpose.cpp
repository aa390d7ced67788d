#include "cpu/cpu_transpose.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace ipt::cpu {
namespace {

// An element of N bytes, moved as one value.
template <std::size_t N>
struct Bytes {
  unsigned char b[N];
};
template <std::size_t N>
using Element = std::conditional_t<
    N == 1, std::uint8_t,
    std::conditional_t<N == 2, std::uint16_t,
                       std::conditional_t<N == 4, std::uint32_t,
                                          std::conditional_t<N == 8, std::uint64_t, Bytes<N>>>>>;

// Runs work(thread index) on `threads` threads, the calling one among them. Every thread
// is started before any work begins, so that a thread that cannot start throws before an
// element has moved (those already started then leave without working).
void run_on_threads(unsigned threads, const std::function<void(unsigned)>& work) {
  enum : int { kWait, kWork, kLeave };
  std::atomic<int> state{kWait};
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  const auto join_all = [&pool] {
    for (std::thread& thread : pool) thread.join();
  };
  try {
    for (unsigned t = 1; t < threads; ++t)
      pool.emplace_back([&state, &work, t] {
        int now;
        while ((now = state.load(std::memory_order_acquire)) == kWait) std::this_thread::yield();
        if (now == kWork) work(t);
      });
  } catch (...) {
    state.store(kLeave, std::memory_order_release);
    join_all();
    throw;
  }
  state.store(kWork, std::memory_order_release);
  work(0);
  join_all();
}

// Tile side (elements) of the square path: a pair of tiles of about 16 KiB each.
constexpr std::uint64_t tile_side(std::size_t elem_size) {
  return elem_size == 1 ? 128 : elem_size <= 4 ? 64 : 32;
}

// The tile pairs (i, j), i <= j, of an nt x nt grid in the order of a recursive split of
// the upper triangle: a triangle is its two half-triangles around the square between them,
// a square its four quadrants.
void split_square(std::uint32_t i0, std::uint32_t i1, std::uint32_t j0, std::uint32_t j1,
                  std::vector<std::pair<std::uint32_t, std::uint32_t>>& order) {
  if (i1 - i0 <= 1 && j1 - j0 <= 1) {
    if (i0 < i1 && j0 < j1) order.emplace_back(i0, j0);
    return;
  }
  const std::uint32_t im = i0 + (i1 - i0 + 1) / 2, jm = j0 + (j1 - j0 + 1) / 2;
  split_square(i0, im, j0, jm, order);
  split_square(i0, im, jm, j1, order);
  split_square(im, i1, j0, jm, order);
  split_square(im, i1, jm, j1, order);
}
void split_triangle(std::uint32_t i0, std::uint32_t i1,
                    std::vector<std::pair<std::uint32_t, std::uint32_t>>& order) {
  if (i1 - i0 == 1) {
    order.emplace_back(i0, i0);
    return;
  }
  const std::uint32_t im = i0 + (i1 - i0) / 2;
  split_triangle(i0, im, order);
  split_square(i0, im, im, i1, order);
  split_triangle(im, i1, order);
}

template <typename T>
void transpose_square(T* a, std::uint64_t n, unsigned threads, std::uint64_t side) {
  const auto nt = static_cast<std::uint32_t>((n + side - 1) / side);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> order;
  order.reserve(static_cast<std::size_t>(nt) * (nt + 1) / 2);
  split_triangle(0, nt, order);
  std::atomic<std::size_t> next{0};
  constexpr std::size_t kBatch = 4;  // tile pairs per take of the counter
  run_on_threads(threads, [&](unsigned) {
    for (;;) {
      const std::size_t first = next.fetch_add(kBatch, std::memory_order_relaxed);
      if (first >= order.size()) return;
      for (std::size_t k = first; k < std::min(first + kBatch, order.size()); ++k) {
        const std::uint64_t r0 = order[k].first * side, c0 = order[k].second * side;
        const std::uint64_t r1 = std::min(r0 + side, n), c1 = std::min(c0 + side, n);
        if (r0 == c0) {  // a diagonal tile: swaps within it
          for (std::uint64_t r = r0; r < r1; ++r)
            for (std::uint64_t c = r + 1; c < c1; ++c) std::swap(a[r * n + c], a[c * n + r]);
        } else {  // tile (r0, c0) with the transpose of tile (c0, r0)
          for (std::uint64_t r = r0; r < r1; ++r)
            for (std::uint64_t c = c0; c < c1; ++c) std::swap(a[r * n + c], a[c * n + r]);
        }
      }
    }
  });
}

// Where the transpose's position p (of rows x cols elements, row-major, p = c * rows + r)
// takes its element from: position r * cols + c of the matrix.
struct Source {
  std::uint64_t rows, cols;
  std::uint64_t operator()(std::uint64_t p) const {
    const std::uint64_t c = p / rows;
    return (p - c * rows) * cols + c;
  }
};

template <typename T>
void transpose_cycles(T* a, std::uint64_t rows, std::uint64_t cols, unsigned threads) {
  const std::uint64_t n = rows * cols;
  const Source src{rows, cols};
  // A bit per position, set once its element is in place: optional (the smallest-position
  // rule alone is correct), so a matrix too large for it is still transposed.
  const std::uint64_t words = (n + 63) / 64;
  std::unique_ptr<std::atomic<std::uint64_t>[]> done(new (std::nothrow)
                                                         std::atomic<std::uint64_t>[words]);
  if (done)
    for (std::uint64_t w = 0; w < words; ++w) done[w].store(0, std::memory_order_relaxed);
  const auto is_done = [&](std::uint64_t p) {
    return done && (done[p / 64].load(std::memory_order_relaxed) >> (p % 64) & 1) != 0;
  };
  const auto mark = [&](std::uint64_t p) {
    if (done) done[p / 64].fetch_or(std::uint64_t{1} << (p % 64), std::memory_order_relaxed);
  };
  // Blocks of positions taken from a shared counter, in increasing order, so that most
  // cycles have been moved from their smallest position before their others come up.
  constexpr std::uint64_t kBlock = 4096;
  std::atomic<std::uint64_t> next{0};
  run_on_threads(threads, [&](unsigned) {
    for (;;) {
      const std::uint64_t first = next.fetch_add(kBlock, std::memory_order_relaxed);
      if (first >= n) return;
      for (std::uint64_t s = first; s < std::min(first + kBlock, n); ++s) {
        if (is_done(s)) continue;
        std::uint64_t p = src(s);
        while (p > s) p = src(p);
        if (p != s) continue;  // a smaller position owns this cycle
        // Pull each position's element from its source, around the cycle.
        const T first_value = a[s];
        for (p = s;;) {
          const std::uint64_t q = src(p);
          mark(p);
          if (q == s) {
            a[p] = first_value;
            break;
          }
          a[p] = a[q];
          p = q;
        }
      }
    }
  });
}

template <std::size_t N>
void transpose_typed(void* data, std::uint64_t rows, std::uint64_t cols, unsigned threads) {
  using T = Element<N>;
  static_assert(sizeof(T) == N, "an element type of N bytes");
  T* a = static_cast<T*>(data);
  if (rows == cols)
    transpose_square(a, rows, threads, tile_side(N));
  else
    transpose_cycles(a, rows, cols, threads);
}

}  // namespace

unsigned default_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

void transpose(void* data, std::uint64_t rows, std::uint64_t cols, std::size_t elem_size,
               unsigned threads) {
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8 && elem_size != 16)
    throw std::invalid_argument("elem_size must be 1, 2, 4, 8 or 16");
  if (rows <= 1 || cols <= 1) return;  // a row or a column: its transpose has the same bytes
  if (threads == 0) threads = default_threads();
  switch (elem_size) {
    case 1:
      return transpose_typed<1>(data, rows, cols, threads);
    case 2:
      return transpose_typed<2>(data, rows, cols, threads);
    case 4:
      return transpose_typed<4>(data, rows, cols, threads);
    case 8:
      return transpose_typed<8>(data, rows, cols, threads);
    default:
      return transpose_typed<16>(data, rows, cols, threads);
  }
}

}  // namespace ipt::cpu
