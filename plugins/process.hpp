// A plugin process: started with its command in its folder, spoken to one line at a time over
// its stdin and stdout, its stderr in a log file. Every wait has the plugin's timeout, so a plugin
// that hangs, dies or closes its output ends the exchange with an error that says which of these
// happened, never a hang.
#pragma once

#include <sys/types.h>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace t9k::plugins {

// What went wrong with a plugin; the message names the plugin and what happened.
class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ProcessSpec {
  std::string name;                  // for messages and the log file name
  std::vector<std::string> command;  // argv; the program is looked up on PATH
  std::string working_dir;           // empty: the current one
  std::chrono::milliseconds timeout{10000};
  std::string log_path;  // the process's stderr; empty: discarded
};

// Keeps the calling thread, and the processes it starts meanwhile (they inherit its mask), on
// the CPU it runs on now; the thread's mask comes back at destruction. The protocol is lock-step
// (one side runs while the other waits), so nothing runs in parallel that could use a second
// CPU, and a handoff between processes on one CPU costs a few microseconds where one across
// CPUs costs tens (docs/performance.md). Threads of one process pin to different CPUs while
// there are free ones. T9KSIM_PLUGINS_PIN=0 turns this off.
class ScopedCpuPin {
 public:
  ScopedCpuPin();
  ~ScopedCpuPin();
  ScopedCpuPin(const ScopedCpuPin&) = delete;
  ScopedCpuPin& operator=(const ScopedCpuPin&) = delete;

 private:
  bool pinned_ = false;
  int cpu_ = -1;
  std::vector<unsigned char> saved_;  // the thread's cpu_set_t
};

class PluginProcess {
 public:
  // Starts the process. Throws PluginError when it cannot start (no such program...).
  explicit PluginProcess(ProcessSpec spec);
  ~PluginProcess();  // kills the process if it still runs
  PluginProcess(const PluginProcess&) = delete;
  PluginProcess& operator=(const PluginProcess&) = delete;

  // Writes `line` and a newline, then reads one line back (without its newline). Throws
  // PluginError when the process exits or dies, closes its output, writes more than 256 MiB
  // without a newline, or does not answer within the timeout (it is then killed).
  std::string exchange(const std::string& line);

  // Closes its stdin and waits (timeout) for it to exit; kills it otherwise. Returns a text
  // saying how it ended ("exited with code 0", "killed by signal 9 (Killed)"...).
  std::string close();

  const ProcessSpec& spec() const { return spec_; }
  bool running() const { return pid_ > 0; }

 private:
  void write_all(const std::string& data, std::chrono::steady_clock::time_point deadline);
  [[noreturn]] void fail(const std::string& what);
  std::string reap(bool kill_first);  // waits for the process; how it ended

  ProcessSpec spec_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;  // read but not yet returned
};

}  // namespace t9k::plugins
