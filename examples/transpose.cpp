// SPDX-License-Identifier: Apache-2.0
// Transpose a float matrix in place on an OpenCL device (a GPU if there is one), from C++.
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <iostream>
#include <ipt/ipt.hpp>
#include <numeric>
#include <stdexcept>
#include <vector>

// The first GPU of any platform, else the first device of any kind.
cl::Device pick_device() {
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  for (cl_device_type type :
       {cl_device_type{CL_DEVICE_TYPE_GPU}, cl_device_type{CL_DEVICE_TYPE_ALL}})
    for (const auto& platform : platforms) {
      std::vector<cl::Device> devices;
      try {
        platform.getDevices(type, &devices);
      } catch (const cl::Error&) {
        continue;  // CL_DEVICE_NOT_FOUND
      }
      if (!devices.empty()) return devices.front();
    }
  throw std::runtime_error("no OpenCL device");
}

int main() try {
  const std::size_t rows = 700, cols = 1100;
  std::vector<float> host(rows * cols);
  std::iota(host.begin(), host.end(), 0.0f);  // exact in a float

  const cl::Device device = pick_device();
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  cl::Buffer matrix(context, host.begin(), host.end(), /*readOnly=*/false);

  // The rows x cols row-major matrix becomes its cols x rows transpose in place.
  ipt::transpose<float>(queue, matrix, rows, cols).wait();

  cl::copy(queue, matrix, host.begin(), host.end());
  // Element (c, r) of the transpose is element (r, c) of the matrix.
  std::size_t wrong = 0;
  for (std::size_t c = 0; c < cols; ++c)
    for (std::size_t r = 0; r < rows; ++r)
      wrong += host[c * rows + r] != static_cast<float>(r * cols + c);
  std::cout << rows << " x " << cols << " transposed in place: " << wrong << " of " << rows * cols
            << " elements wrong\n";
  return wrong == 0 ? 0 : 1;
} catch (const ipt::error& e) {
  std::cerr << e.what() << '\n';
  return 1;
} catch (const cl::Error& e) {
  std::cerr << e.what() << " failed: " << e.err() << '\n';
  return 2;
} catch (const std::exception& e) {
  std::cerr << e.what() << '\n';
  return 2;
}
