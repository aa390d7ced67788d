// SPDX-License-Identifier: Apache-2.0
#include "helpers/failing_allocations.hpp"

#include <cstdlib>
#include <new>

namespace ipt::test {
namespace {

long counted = -1;  // allocations since fail_allocations(); -1: not counting
long fail_from = 0;
bool fail_all = false;

}  // namespace

void* allocate(std::size_t size);

void fail_allocations(long from, bool all) {
  fail_from = from;
  fail_all = all;
  counted = 0;
}

void allow_allocations() { counted = -1; }

void* allocate(std::size_t size) {
  if (counted >= 0) {
    ++counted;
    if (counted == fail_from || (fail_all && counted > fail_from)) return nullptr;
  }
  return std::malloc(size == 0 ? 1 : size);
}

}  // namespace ipt::test

void* operator new(std::size_t size) {
  if (void* p = ipt::test::allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  if (void* p = ipt::test::allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return ipt::test::allocate(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return ipt::test::allocate(size);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
