#include "elementary_reference.hpp"

#include <cstring>
#include <sstream>

#include "support/host_reference.hpp"

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
  return support::permute_0100(in, I, A, B, C, elem_size);
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
      if (inside)
        out << " (element " << (i - begin) / elem_size << ")";
      else
        out << (i < begin ? " (before the array)" : " (after the array)");
      out << ": expected " << int(want) << ", got " << int(actual[i]) << "\n";
    }
    ++mismatches;
  }
  if (mismatches > 0) out << mismatches << " bytes differ";
  return out.str();
}

}  // namespace ipt::test
