// Transpose a float matrix in place on the default OpenCL device, from C++.
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <ipt/ipt.hpp>

#include <iostream>
#include <numeric>
#include <vector>

int main() try {
  const std::size_t n = 1000;
  std::vector<float> host(n * n);
  std::iota(host.begin(), host.end(), 0.0f);

  cl::Context context(CL_DEVICE_TYPE_DEFAULT);
  cl::CommandQueue queue(context);
  cl::Buffer matrix(context, host.begin(), host.end(), /*readOnly=*/false);

  ipt::transpose<float>(queue, matrix, n, n).wait();

  cl::copy(queue, matrix, host.begin(), host.end());
  std::cout << "element (1, 0) is now " << host[n] << " (was element (0, 1) = 1)\n";
  return host[n] == 1.0f && host[1] == static_cast<float>(n) ? 0 : 1;
} catch (const ipt::error& e) {
  std::cerr << e.what() << '\n';
  return 1;
} catch (const cl::Error& e) {
  std::cerr << e.what() << " failed: " << e.err() << '\n';
  return 2;
}
