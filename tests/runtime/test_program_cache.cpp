// SPDX-License-Identifier: Apache-2.0
// The program cache: one build per key, shared across threads, cleared on request; the
// IPT_KERNEL_DIR override; build failures reported with their log; the groups per
// compute unit asked of a PTX compiler.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <thread>
#include <vector>

#include "helpers/test_profiles.hpp"
#include "helpers/test_support.hpp"
#include "ipt/ipt.h"
#include "planner/kernel_variants.hpp"
#include "planner/launch_plan.hpp"
#include "runtime/error.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/ptx_occupancy.hpp"

using ipt::test::ScopedEnv;
using ipt::test::session;
namespace rt = ipt::runtime;

namespace {

cl::Context context() { return cl::Context(session().context(), true); }
cl::Device device() { return cl::Device(session().device(), true); }
const char* kOptions = "-DIPT_ELEM_BYTES=4 -DIPT_INDEX_64=0 -DTILE=8 -DWG_ROWS=2";

}  // namespace

TEST_CASE("a program is built once per key and shared between threads", "[cache]") {
  rt::clear_program_cache();
  CHECK(rt::program_cache_size() == 0);
  std::vector<cl_program> seen(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&, i] {
      seen[i] = rt::get_program(context(), device(), "square", kOptions)->program()();
    });
  for (auto& t : threads) t.join();
  CHECK(rt::program_cache_size() == 1);
  for (cl_program p : seen) CHECK(p == seen[0]);
  rt::get_program(context(), device(), "square", std::string(kOptions) + " -DUNUSED=1");
  CHECK(rt::program_cache_size() == 2);
  // Built for two groups per compute unit: another program where the compiler is asked
  // for them (PTX), and another key everywhere.
  rt::get_program(context(), device(), "square", kOptions, 2);
  CHECK(rt::program_cache_size() == 3);
  CHECK(ipt_clear_cache() == IPT_SUCCESS);
  CHECK(rt::program_cache_size() == 0);
}

// NVIDIA's driver builds such a program first only for its PTX, at its assembler's lowest
// level (runtime/program_cache.cpp): what comes out must be the PTX of a build at the
// default level with the directive added, and count as one build from source. The
// program: an on-chip kernel of floats that a large NVIDIA GPU's plans build for two
// groups per compute unit.
TEST_CASE("a program for two groups per compute unit is the default build's, asked for them",
          "[cache]") {
  ScopedEnv no_disk("IPT_CACHE_DISABLE", "1");  // built from source, not loaded
  rt::clear_program_cache();
  const auto variants = ipt::planner::kernel_variants(ipt::test::nvidia_like(), 4);
  const auto onchip = std::find_if(variants.begin(), variants.end(), [](const auto& v) {
    return v.family == ipt::planner::Family::kOnChip && v.groups_per_unit == 2;
  });
  REQUIRE(onchip != variants.end());
  const std::string family = ipt::planner::family_source(onchip->family);
  // A binary's bytes up to any terminating zeros (PTX text may carry one).
  const auto binary = [](const rt::ProgramRef& program) {
    auto bytes = program->program().getInfo<CL_PROGRAM_BINARIES>().at(0);
    while (!bytes.empty() && bytes.back() == 0) bytes.pop_back();
    return bytes;
  };
  const auto before = rt::program_cache_stats();
  const auto plain = binary(rt::get_program(context(), device(), family, onchip->options));
  const auto for_two = binary(rt::get_program(context(), device(), family, onchip->options, 2));
  const auto after = rt::program_cache_stats();
  CHECK(after.source_builds - before.source_builds == 2);
  REQUIRE_FALSE(plain.empty());
  REQUIRE_FALSE(for_two.empty());
  if (const auto asked = rt::with_min_groups_per_unit(plain, 2)) {
    CHECK(for_two == *asked);  // PTX: the same text, with the directive
    const cl::Platform platform(device().getInfo<CL_DEVICE_PLATFORM>());
    if (platform.getInfo<CL_PLATFORM_NAME>().find("NVIDIA") != std::string::npos)
      CHECK(after.ptx_only_builds - before.ptx_only_builds == 1);
  } else {
    CHECK(after.ptx_only_builds == before.ptx_only_builds);  // other binaries: nothing to ask
  }
}

TEST_CASE("IPT_KERNEL_DIR replaces the embedded sources, and build failures carry the log",
          "[cache]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "ipt_kernel_dir_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(fs::path(IPT_SOURCE_KERNEL_DIR) / "common.cl", dir / "common.cl");
  ScopedEnv env("IPT_KERNEL_DIR", dir.c_str());

  SECTION("a missing file is a build failure naming the file") {
    try {
      rt::get_program(context(), device(), "square", kOptions);
      FAIL("no error");
    } catch (const ipt::Error& e) {
      CHECK(e.status() == IPT_BUILD_PROGRAM_FAILURE);
      CHECK(std::string(e.what()).find("square.cl") != std::string::npos);
    }
  }
  SECTION("a broken kernel fails through the API with its build log, buffer untouched") {
    std::ofstream(dir / "square.cl") << "__kernel void ipt_square_swap(__global elem_t* b) {\n"
                                        "  this_is_not_opencl_c;\n}\n";
    ipt::test::GuardedMatrix m(16, 16, 4, 0, 4, 42);
    CHECK(ipt_transpose_f32(session().queue(), m.buffer(), 0, 16, 16, 0, nullptr, nullptr) ==
          IPT_BUILD_PROGRAM_FAILURE);
    const std::string message = ipt_last_error_message();
    CHECK(message.find("this_is_not_opencl_c") != std::string::npos);
    CHECK(m.check_unchanged() == "");
  }
  SECTION("a working kernel folder is used") {
    fs::copy_file(fs::path(IPT_SOURCE_KERNEL_DIR) / "square.cl", dir / "square.cl");
    ipt::test::GuardedMatrix m(16, 16, 4, 0, 4, 43);
    CHECK(ipt_transpose_f32(session().queue(), m.buffer(), 0, 16, 16, 0, nullptr, nullptr) ==
          IPT_SUCCESS);
    CHECK(m.check_transposed() == "");
  }
  SECTION("a source edited between two calls of one shape is built again") {
    // The second call must not run the first call's program from a kept plan.
    fs::copy_file(fs::path(IPT_SOURCE_KERNEL_DIR) / "square.cl", dir / "square.cl");
    ipt::test::GuardedMatrix first(24, 24, 4, 0, 4, 44);
    CHECK(ipt_transpose_f32(session().queue(), first.buffer(), 0, 24, 24, 0, nullptr, nullptr) ==
          IPT_SUCCESS);
    CHECK(first.check_transposed() == "");
    std::ofstream(dir / "square.cl", std::ios::trunc)
        << "__kernel void ipt_square_swap(__global elem_t* b) {\n  edited_and_broken;\n}\n";
    ipt::test::GuardedMatrix second(24, 24, 4, 0, 4, 45);
    CHECK(ipt_transpose_f32(session().queue(), second.buffer(), 0, 24, 24, 0, nullptr, nullptr) ==
          IPT_BUILD_PROGRAM_FAILURE);
    CHECK(std::string(ipt_last_error_message()).find("edited_and_broken") != std::string::npos);
    CHECK(second.check_unchanged() == "");
  }
  fs::remove_all(dir);
}

TEST_CASE("a pooled kernel comes back with its arguments, and set() changes what differs",
          "[cache]") {
  // The copy kernel: (src, src_offset, dst, dst_offset, count, zero, zero_word, zero_words).
  const cl::CommandQueue queue(session().queue(), true);
  // Built with the options the planner gives a copy of 4-byte elements with 32-bit indices.
  ipt::planner::StepSite site;
  site.elem_size = 4;
  const auto options = ipt::planner::copy_step(site, ipt::planner::Buffer::kMatrix, 0,
                                               ipt::planner::Buffer::kScratch, 0, 64)
                           .options;
  REQUIRE(options.find("-DIPT_INDEX_64=0") != std::string::npos);
  const auto program = rt::get_program(context(), device(), "copy", options);
  std::vector<cl_uint> source(64);
  std::iota(source.begin(), source.end(), 1000u);
  const cl::Buffer src(context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, std::size_t{64 * 4},
                       source.data());
  const cl::Buffer dst(context(), CL_MEM_READ_WRITE, 64 * 4);
  auto copy = [&](cl_uint src_offset, cl_uint dst_offset, cl_uint count, cl_kernel* used) {
    const std::vector<cl_uint> blank(64, 7u);
    queue.enqueueWriteBuffer(dst, CL_TRUE, 0, 64 * 4, blank.data());
    rt::PooledKernel pooled(program, "ipt_copy", device());
    *used = (*pooled)();
    cl_uint arg = 0;
    pooled.set(arg++, src);
    pooled.set_index(arg++, false, src_offset);
    pooled.set(arg++, dst);
    pooled.set_index(arg++, false, dst_offset);
    pooled.set_index(arg++, false, count);
    pooled.set(arg++, dst);
    pooled.set(arg++, cl_ulong{0});
    pooled.set(arg++, cl_ulong{0});
    queue.enqueueNDRangeKernel(*pooled, cl::NullRange, cl::NDRange(64), cl::NDRange(64));
    std::vector<cl_uint> out(64);
    queue.enqueueReadBuffer(dst, CL_TRUE, 0, 64 * 4, out.data());
    std::vector<cl_uint> expected(64, 7u);
    for (cl_uint i = 0; i < count; ++i) expected[dst_offset + i] = source[src_offset + i];
    return out == expected;
  };
  cl_kernel first = nullptr, again = nullptr;
  CHECK(copy(0, 0, 8, &first));
  CHECK(copy(0, 0, 8, &again));  // every scalar as it was
  CHECK(again == first);         // the same kernel object, back from the pool
  CHECK(copy(4, 0, 16, &again));
  CHECK(copy(4, 9, 16, &again));
  CHECK(copy(0, 9, 3, &again));
  CHECK(again == first);
}

namespace {

std::vector<unsigned char> bytes(const std::string& text) { return {text.begin(), text.end()}; }
std::string text(const std::vector<unsigned char>& bytes) { return {bytes.begin(), bytes.end()}; }

// What NVIDIA's OpenCL driver gives back as a program binary, cut short: a kernel
// compiled with reqd_work_group_size, one without, and one that asks for groups already.
const std::string kPtx =
    "//\n// Generated by NVIDIA NVVM Compiler\n//\n\n.version 8.5\n"
    ".target sm_90, texmode_independent\n.address_size 64\n\n"
    "\t// .globl\tipt_onchip\n.entry ipt_onchip(\n"
    "\t.param .u64 .ptr .global .align 4 ipt_onchip_param_0,\n"
    "\t.param .u32 ipt_onchip_param_1\n)\n.reqntid 512, 1, 1\n{\n\tret;\n}\n"
    ".entry ipt_copy(\n\t.param .u32 ipt_copy_param_0\n)\n{\n\tret;\n}\n"
    ".entry ipt_set(\n\t.param .u32 ipt_set_param_0\n)\n.minnctapersm 1\n{\n\tret;\n}\n";

}  // namespace

TEST_CASE("a PTX binary asks the compiler for the groups of each kernel entry", "[cache]") {
  const auto patched = rt::with_min_groups_per_unit(bytes(kPtx), 2);
  REQUIRE(patched.has_value());
  const std::string out = text(*patched);
  // Between each entry's parameters and its body, after the directives it has.
  CHECK(out.find(")\n.reqntid 512, 1, 1\n.minnctapersm 2\n{\n\tret;") != std::string::npos);
  CHECK(out.find("ipt_copy_param_0\n)\n.minnctapersm 2\n{") != std::string::npos);
  // An entry that asks for groups already is left as it is.
  CHECK(out.find(")\n.minnctapersm 1\n{") != std::string::npos);
  std::size_t directives = 0;
  for (std::size_t at = out.find(".minnctapersm"); at != std::string::npos;
       at = out.find(".minnctapersm", at + 1))
    ++directives;
  CHECK(directives == 3);
  // Nothing else changes.
  std::string back = out;
  for (std::size_t at; (at = back.find(".minnctapersm 2\n")) != std::string::npos;)
    back.erase(at, std::string(".minnctapersm 2\n").size());
  CHECK(back == kPtx);
}

TEST_CASE("a binary that is not PTX, or no groups asked, is left alone", "[cache]") {
  CHECK_FALSE(rt::with_min_groups_per_unit(bytes(kPtx), 0).has_value());
  // An ELF object (another driver's binary), and a PTX module without a kernel entry.
  CHECK_FALSE(rt::with_min_groups_per_unit(bytes("\x7f"
                                                 "ELF\x02\x01 .entry k() {}"),
                                           2));
  CHECK_FALSE(
      rt::with_min_groups_per_unit(bytes(".version 8.5\n.target sm_90\n.func f()\n{\n}\n"), 2));
  // Every entry asks already: nothing to build again.
  const std::string asked = ".version 8.5\n.target sm_90\n.entry k(\n)\n.minnctapersm 2\n{\n}\n";
  CHECK_FALSE(rt::with_min_groups_per_unit(bytes(asked), 2));
}
