// SPDX-License-Identifier: Apache-2.0
#include "helpers/stack_dump.hpp"

#include <cstdlib>  // defines __GLIBC__ where glibc is the C library

#if defined(__linux__) && defined(__GLIBC__)
#include <dirent.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace ipt::test {
namespace {

std::atomic<int> dump_fd{STDERR_FILENO};
std::atomic<unsigned> answers{0};

void write_text(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// Sent to one thread at a time by the dumper: a real-time signal, which no library of the
// process handles (PoCL's LLVM takes SIGUSR2 over). Only calls that neither allocate nor
// lock (backtrace was called once before, so that it has loaded what it needs).
int thread_signal() { return SIGRTMIN + 4; }

void write_own_stack(int) {
  const int saved_errno = errno;
  void* frames[64];
  const int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, dump_fd.load());
  answers.fetch_add(1);
  errno = saved_errno;
}

std::string thread_name(const std::string& tid) {
  std::string name;
  const int fd = open(("/proc/self/task/" + tid + "/comm").c_str(), O_RDONLY);
  if (fd < 0) return name;
  char buffer[64];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  close(fd);
  if (n > 0) name.assign(buffer, static_cast<std::size_t>(n));
  if (!name.empty() && name.back() == '\n') name.pop_back();
  return name;
}

std::vector<std::string> thread_ids() {
  std::vector<std::string> ids;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (const dirent* entry = readdir(dir))
      if (entry->d_name[0] != '.') ids.emplace_back(entry->d_name);
    closedir(dir);
  }
  return ids;
}

// One dump: each other thread in turn writes its own stack, after a line naming it; a
// thread that does not answer within a second (its signal blocked) is said so.
void dump_all() {
  int fd = STDERR_FILENO;
  if (const char* dir = std::getenv("IPT_TEST_STACKS_DIR"); dir != nullptr && *dir != '\0') {
    const std::string path = std::string(dir) + "/stacks-" + std::to_string(getpid()) + ".txt";
    const int file = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (file >= 0) fd = file;
  }
  dump_fd.store(fd);
  const std::string self = std::to_string(syscall(SYS_gettid));
  const std::vector<std::string> ids = thread_ids();
  write_text(fd, "== stacks of process " + std::to_string(getpid()) + ", " +
                     std::to_string(ids.size()) + " threads\n");
  for (const std::string& tid : ids) {
    if (tid == self) continue;
    write_text(fd, "-- thread " + tid + " " + thread_name(tid) + "\n");
    const unsigned before = answers.load();
    if (syscall(SYS_tgkill, getpid(), std::stol(tid), thread_signal()) != 0) continue;  // gone
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (answers.load() == before && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (answers.load() == before) write_text(fd, "(no answer)\n");
  }
  write_text(fd, "== end\n");
  dump_fd.store(STDERR_FILENO);
  if (fd != STDERR_FILENO) close(fd);
}

}  // namespace

void install_stack_dump() {
  void* warm[2];
  backtrace(warm, 2);
  struct sigaction action {};
  action.sa_handler = write_own_stack;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(thread_signal(), &action, nullptr) != 0) return;
  sigset_t request;
  sigemptyset(&request);
  sigaddset(&request, SIGUSR1);
  if (pthread_sigmask(SIG_BLOCK, &request, nullptr) != 0) return;
  std::thread([request] {
    for (;;) {
      int signal = 0;
      if (sigwait(&request, &signal) == 0) dump_all();
    }
  }).detach();
}

}  // namespace ipt::test

#else

namespace ipt::test {
void install_stack_dump() {}
}  // namespace ipt::test

#endif
