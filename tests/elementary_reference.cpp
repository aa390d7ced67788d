#include "elementary_reference.hpp"

#include <cstring>
#include <sstream>

namespace ipt::test {

Bytes reference_010(const Bytes& in, std::uint64_t A, std::uint64_t B, std::uint64_t C,
                    std::size_t elem_size) {
  Bytes out(in.size());
  const std::uint64_t n = B * C;
  for (std::uint64_t t = 0; t < A; ++t)
    for (std::uint64_t r = 0; r < B; ++r)
      for (std::uint64_t c = 0; c < C; ++c)
        std::memcpy(&out[(t * n + c * B + r) * elem_size], &in[(t * n + r * C + c) * elem_size],
                    elem_size);
  return out;
}

Bytes reference_0100(const Bytes& in, std::uint64_t I, std::uint64_t A, std::uint64_t B,
                     std::uint64_t C, std::size_t elem_size) {
  Bytes out(in.size());
  const std::size_t super = static_cast<std::size_t>(C) * elem_size;
  for (std::uint64_t i = 0; i < I; ++i)
    for (std::uint64_t a = 0; a < A; ++a)
      for (std::uint64_t b = 0; b < B; ++b)
        std::memcpy(&out[((i * B + b) * A + a) * super], &in[((i * A + a) * B + b) * super], super);
  return out;
}

std::size_t device_local_mem() {
  cl_ulong local = 0;
  clGetDeviceInfo(session().device(), CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local), &local, nullptr);
  return static_cast<std::size_t>(local);
}

std::string check_against(const GuardedMatrix& m, const Bytes& expected, std::size_t elem_size) {
  const Bytes actual = m.read_all();
  const Bytes& initial = m.initial();
  const std::size_t begin = m.offset() * elem_size;
  const std::size_t end = begin + expected.size();
  std::ostringstream out;
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const bool inside = i >= begin && i < end;
    const unsigned char want = inside ? expected[i - begin] : initial[i];
    if (want == actual[i]) continue;
    if (mismatches < 5) {
      out << "byte " << i;
      if (inside) out << " (element " << (i - begin) / elem_size << ")";
      else out << (i < begin ? " (before the array)" : " (after the array)");
      out << ": expected " << int(want) << ", got " << int(actual[i]) << "\n";
    }
    ++mismatches;
  }
  if (mismatches > 0) out << mismatches << " bytes differ";
  return out.str();
}

}  // namespace ipt::test
