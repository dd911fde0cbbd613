// A plugin session (docs/plugins.md): starts the process, exchanges `initialize`, then sends one
// request at a time and waits for its reply (lock-step, so simulated time never runs ahead of
// the plugin), and ends with `shutdown`. Errors name the plugin, the method and what went wrong.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/process.hpp"
#include "protocol/protocol.hpp"

namespace t9k::plugins {

class Client {
 public:
  // Starts the plugin and initializes it; throws PluginError (it cannot start, answers with
  // another protocol version, or misbehaves).
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
  std::uint64_t calls() const { return calls_; }

 private:
  PluginProcess process_;
  protocol::Hello hello_;
  std::int64_t next_id_ = 1;
  std::uint64_t calls_ = 0;
  bool shut_ = false;
};

}  // namespace t9k::plugins
