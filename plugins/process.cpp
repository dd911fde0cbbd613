#include "plugins/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

extern char** environ;

namespace t9k::plugins {

namespace {

constexpr std::size_t kMaxLine = 256u << 20;

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int remaining_ms(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::max<std::int64_t>(0, left.count()));
}

std::string how_it_ended(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  return "ended";
}

std::mutex& pin_mutex() {
  static std::mutex m;
  return m;
}

// Pins held now, by CPU (guarded by pin_mutex()).
std::vector<int>& pin_counts() {
  static std::vector<int> counts;
  return counts;
}

void release_pin(int cpu) {
  const std::lock_guard lock(pin_mutex());
  --pin_counts()[static_cast<std::size_t>(cpu)];
}

}  // namespace

ScopedCpuPin::ScopedCpuPin() {
  if (const char* off = std::getenv("T9KSIM_PLUGINS_PIN"); off && std::string(off) == "0") return;
  cpu_set_t old;
  CPU_ZERO(&old);
  int cpu = sched_getcpu();
  if (cpu < 0 || pthread_getaffinity_np(pthread_self(), sizeof old, &old) != 0) return;
  {
    // Runs in parallel threads (replications, compare) pin to different CPUs while they can:
    // the allowed CPU with the fewest pins of this process, the current one on a tie.
    const std::lock_guard lock(pin_mutex());
    auto& pins = pin_counts();
    if (pins.size() < CPU_SETSIZE) pins.resize(CPU_SETSIZE, 0);
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &old) &&
          pins[static_cast<std::size_t>(c)] < pins[static_cast<std::size_t>(cpu)])
        cpu = c;
    }
    ++pins[static_cast<std::size_t>(cpu)];
  }
  cpu_ = cpu;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) {
    release_pin(cpu_);
    return;
  }
  saved_.assign(reinterpret_cast<unsigned char*>(&old),
                reinterpret_cast<unsigned char*>(&old) + sizeof old);
  pinned_ = true;
}

ScopedCpuPin::~ScopedCpuPin() {
  if (!pinned_) return;
  release_pin(cpu_);
  cpu_set_t old;
  std::memcpy(&old, saved_.data(), sizeof old);
  pthread_setaffinity_np(pthread_self(), sizeof old, &old);
}

PluginProcess::PluginProcess(ProcessSpec spec) : spec_(std::move(spec)) {
  // A plugin that dies while we write to it must give EPIPE, not kill the simulator.
  std::signal(SIGPIPE, SIG_IGN);
  if (spec_.command.empty()) throw PluginError(fmt::format("plugin {}: no command", spec_.name));
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    throw PluginError(
        fmt::format("plugin {}: cannot create pipes: {}", spec_.name, std::strerror(errno)));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  if (spec_.log_path.empty()) {
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  } else {
    posix_spawn_file_actions_addopen(&fa, 2, spec_.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  }
  if (!spec_.working_dir.empty())
    posix_spawn_file_actions_addchdir_np(&fa, spec_.working_dir.c_str());
  std::vector<char*> argv;
  for (auto& a : spec_.command) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = posix_spawnp(&pid_, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(in[0]);
  ::close(out[1]);
  to_child_ = in[1];
  from_child_ = out[0];
  // Non-blocking: a read or write is tried first and poll() waits only when it would block, so a
  // round trip costs a write, a read and one wait.
  ::fcntl(to_child_, F_SETFL, ::fcntl(to_child_, F_GETFL) | O_NONBLOCK);
  ::fcntl(from_child_, F_SETFL, ::fcntl(from_child_, F_GETFL) | O_NONBLOCK);
  if (rc != 0) {
    pid_ = -1;
    close_fd(to_child_);
    close_fd(from_child_);
    throw PluginError(
        fmt::format("plugin {}: cannot start {} (in {}): {}", spec_.name, spec_.command.front(),
                    spec_.working_dir.empty() ? "." : spec_.working_dir, std::strerror(rc)));
  }
}

PluginProcess::~PluginProcess() {
  close_fd(to_child_);
  close_fd(from_child_);
  if (pid_ > 0) reap(true);
}

std::string PluginProcess::reap(bool kill_first) {
  if (pid_ <= 0) return "ended";
  if (kill_first) ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return how_it_ended(status);
}

void PluginProcess::fail(const std::string& what) {
  close_fd(to_child_);
  close_fd(from_child_);
  throw PluginError(fmt::format("plugin {} {}", spec_.name, what));
}

void PluginProcess::write_all(const std::string& data,
                              std::chrono::steady_clock::time_point deadline) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(to_child_, data.data() + done, data.size() - done);
    if (n >= 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EPIPE) fail(fmt::format("closed its input: it {}", reap(false)));
    if (errno != EAGAIN) fail(fmt::format("cannot be written to: {}", std::strerror(errno)));
    pollfd p{to_child_, POLLOUT, 0};
    const int r = ::poll(&p, 1, remaining_ms(deadline));
    if (r == 0)
      fail(fmt::format("did not read its input within {} ms ({})", spec_.timeout.count(),
                       reap(true)));
  }
}

std::string PluginProcess::exchange(const std::string& line) {
  if (pid_ <= 0 || to_child_ < 0)
    throw PluginError(fmt::format("plugin {} is not running", spec_.name));
  const auto deadline = std::chrono::steady_clock::now() + spec_.timeout;
  write_all(line + "\n", deadline);
  for (;;) {
    if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string out = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return out;
    }
    if (buffer_.size() > kMaxLine)
      fail(fmt::format("wrote more than {} MiB without a newline", kMaxLine >> 20));
    char chunk[65536];
    const ssize_t n = ::read(from_child_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) fail(fmt::format("closed its output without answering: it {}", reap(false)));
    if (errno == EINTR) continue;
    if (errno != EAGAIN) fail(fmt::format("cannot be read from: {}", std::strerror(errno)));
    pollfd p{from_child_, POLLIN, 0};
    const int r = ::poll(&p, 1, remaining_ms(deadline));
    if (r == 0)
      fail(fmt::format("did not answer within {} ms (killed: it {})", spec_.timeout.count(),
                       reap(true)));
  }
}

std::string PluginProcess::close() {
  close_fd(to_child_);
  if (pid_ <= 0) {
    close_fd(from_child_);
    return "ended";
  }
  const auto deadline = std::chrono::steady_clock::now() + spec_.timeout;
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      close_fd(from_child_);
      return how_it_ended(status);
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      close_fd(from_child_);
      return "did not exit after its input closed, and " + reap(true);
    }
    ::usleep(1000);
  }
}

}  // namespace t9k::plugins
