#include "plugins/client.hpp"

#include <fmt/format.h>

namespace t9k::plugins {

Client::Client(ProcessSpec spec, protocol::Role role, std::vector<std::string> kinds,
               std::string_view simulator_version,
               const controllers::ControllerOptions& controller_options,
               const protocol::PolicySettings& policy)
    : process_(std::move(spec)) {
  const std::string params =
      protocol::initialize_params(role, kinds, simulator_version, controller_options, policy);
  const protocol::Reply reply = call("initialize", params, "at start");
  try {
    hello_ = protocol::decode_hello(reply);
  } catch (const protocol::ProtocolError& e) {
    throw PluginError(fmt::format("plugin {}: initialize at start: {}", name(), e.what()));
  }
  if (hello_.protocol_version != protocol::kProtocolVersion) {
    throw PluginError(fmt::format(
        "plugin {}: initialize: it speaks protocol version \"{}\"; this simulator speaks \"{}\"",
        name(), hello_.protocol_version, protocol::kProtocolVersion));
  }
}

Client::~Client() {
  if (shut_ || !process_.running()) return;
  try {
    shutdown();
  } catch (const std::exception&) {
    // Destruction after an error elsewhere: the process is killed by PluginProcess.
  }
}

protocol::Reply Client::call(std::string_view method, std::string_view params_json,
                             std::string_view context) {
  const std::int64_t id = next_id_++;
  ++calls_;
  std::string answer;
  try {
    answer = process_.exchange(protocol::request_line(id, method, params_json));
  } catch (const PluginError& e) {
    throw PluginError(fmt::format("{} (during {} {})", e.what(), method, context));
  }
  try {
    return protocol::Reply::parse(answer, id);
  } catch (const protocol::ProtocolError& e) {
    throw PluginError(fmt::format("plugin {}: {} {}: {}", name(), method, context, e.what()));
  }
}

void Client::shutdown() {
  if (shut_) return;
  shut_ = true;
  call("shutdown", "{}", "at the end");
  const std::string ended = process_.close();
  if (ended != "exited with code 0")
    throw PluginError(fmt::format("plugin {}: after shutdown it {}", name(), ended));
}

}  // namespace t9k::plugins
