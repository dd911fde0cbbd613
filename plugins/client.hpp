// A plugin session (docs/plugins.md): starts the process, exchanges `initialize` (which also
// chooses the protocol version, docs/protocol-v2.md §1), then sends one request at a time and
// waits for its reply (lock-step, so simulated time never runs ahead of the plugin), and ends
// with `shutdown`. Errors name the plugin, the method and what went wrong. It counts what
// crosses: calls, bytes each way, and the wall time spent waiting for answers.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/process.hpp"
#include "protocol/protocol.hpp"

namespace t9k::plugins {

struct PluginStats {
  std::string name;                  // the plugin's name (its log file)
  std::string role;                  // "controller" | "elasticPolicy"
  std::string protocol_version;      // what it chose at initialize
  std::uint64_t calls = 0;           // requests, initialize and shutdown included
  std::uint64_t items = 0;           // reconciles or decisions answered (a call may carry several)
  std::uint64_t bytes_sent = 0;      // lines written to the plugin, newlines included
  std::uint64_t bytes_received = 0;  // lines read from it
  std::chrono::nanoseconds waited{0};  // wall time from writing a request to its whole answer
};

class Client {
 public:
  // Starts the plugin and initializes it; throws PluginError (it cannot start, answers with a
  // version this simulator does not speak, or misbehaves).
  Client(ProcessSpec spec, protocol::Role role, std::vector<std::string> kinds,
         std::string_view simulator_version,
         const controllers::ControllerOptions& controller_options,
         const protocol::PolicySettings& policy);
  ~Client();  // shuts the plugin down if still running (errors are ignored here)
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends a request and returns the parsed reply. `context` says what the call is about ("job
  // default/x at t=120 s") for messages.
  protocol::Reply call(std::string_view method, std::string_view params_json,
                       std::string_view context);
  // Sends `shutdown`, closes the plugin's input and waits for it to exit. Throws PluginError when
  // it does not answer or exits with an error.
  void shutdown();

  const std::string& name() const { return process_.spec().name; }
  const protocol::Hello& hello() const { return hello_; }
  // The version the plugin chose: 1 or 2.
  int version() const { return version_; }
  std::uint64_t calls() const { return stats_.calls; }
  void count_items(std::uint64_t n) { stats_.items += n; }
  const PluginStats& stats() const { return stats_; }

 private:
  PluginProcess process_;
  protocol::Hello hello_;
  int version_ = 1;
  std::int64_t next_id_ = 1;
  PluginStats stats_;
  bool shut_ = false;
};

}  // namespace t9k::plugins
