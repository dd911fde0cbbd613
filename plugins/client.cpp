#include "plugins/client.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "protocol/v2.hpp"

namespace t9k::plugins {

Client::Client(ProcessSpec spec, protocol::Role role, std::vector<std::string> kinds,
               std::string_view simulator_version,
               const controllers::ControllerOptions& controller_options,
               const protocol::PolicySettings& policy)
    : process_(std::move(spec)) {
  stats_.name = name();
  stats_.role = std::string(protocol::to_string(role));
  const std::string params =
      protocol::initialize_params(role, kinds, simulator_version, controller_options, policy);
  const protocol::Reply reply = call("initialize", params, "at start");
  try {
    hello_ = protocol::decode_hello(reply);
  } catch (const protocol::ProtocolError& e) {
    throw PluginError(fmt::format("plugin {}: initialize at start: {}", name(), e.what()));
  }
  const auto versions = protocol::protocol_versions();
  if (std::find(versions.begin(), versions.end(), hello_.protocol_version) == versions.end()) {
    std::string spoken;
    for (const auto v : versions) spoken += fmt::format("{}\"{}\"", spoken.empty() ? "" : ", ", v);
    throw PluginError(fmt::format(
        "plugin {}: initialize: it speaks protocol version \"{}\"; this simulator speaks {}",
        name(), hello_.protocol_version, spoken));
  }
  version_ = hello_.protocol_version == protocol::kProtocolVersion2 ? 2 : 1;
  stats_.protocol_version = hello_.protocol_version;
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
  ++stats_.calls;
  const std::string line = protocol::request_line(id, method, params_json);
  std::string answer;
  const auto start = std::chrono::steady_clock::now();
  try {
    answer = process_.exchange(line);
  } catch (const PluginError& e) {
    throw PluginError(fmt::format("{} (during {} {})", e.what(), method, context));
  }
  stats_.waited += std::chrono::steady_clock::now() - start;
  stats_.bytes_sent += line.size() + 1;
  stats_.bytes_received += answer.size() + 1;
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
