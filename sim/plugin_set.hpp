// The world's plugins (docs/plugins.md): the processes its settings ask for, started when the
// world is built (each distinct command once, serving every kind it was given), handed to the
// controller driver as controllers and to the policy driver as its policy, and shut down when
// the run ends. With references (differential testing), each plugin's answers are compared with
// its reference's (plugins/differential.hpp).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "controllers/controller.hpp"
#include "plugins/client.hpp"
#include "plugins/controller_session.hpp"
#include "policies/elastic.hpp"
#include "sim/settings.hpp"

namespace t9k::sim {

class PluginSet {
 public:
  // Starts and initializes every plugin; throws plugins::PluginError, or ScenarioError for two
  // different plugins of one name or a reference without a plugin to compare.
  explicit PluginSet(const WorldSettings& settings);
  // The built-in controllers, with plugins in place of the kinds they serve.
  controllers::Registry registry() const;
  // The elastic policy plugin, or nullptr for a built-in policy.
  std::unique_ptr<policies::ElasticPolicy> policy() const;
  // Shuts every plugin down; throws the first PluginError.
  void shutdown();
  bool empty() const { return clients_.empty(); }
  // Requests sent to every plugin so far.
  std::uint64_t calls() const {
    std::uint64_t n = 0;
    for (const auto& c : clients_) n += c->calls();
    return n;
  }
  // What crossed to and from each plugin, in the order they were started.
  std::vector<plugins::PluginStats> stats() const {
    std::vector<plugins::PluginStats> out;
    for (const auto& c : clients_) out.push_back(c->stats());
    return out;
  }

 private:
  struct Served {
    model::JobKind kind;
    std::string api_version, kind_name;  // JobKind::Plugin: the plugin's own kind
    std::shared_ptr<plugins::ControllerSession> session;
  };
  // Starts one process per distinct spec; each serves the kinds given with it.
  std::vector<Served> start_controllers(const std::vector<scenarios::ControllerPlugin>& plugins,
                                        const protocol::PolicySettings& policy);
  std::unique_ptr<controllers::Controller> controller(model::JobKind kind,
                                                      const std::vector<Served>& from) const;

  const WorldSettings& st_;
  std::optional<plugins::ScopedCpuPin> pin_;  // set while plugins run: first in, last out
  std::vector<Served> controllers_;
  std::vector<Served> references_;  // reference plugins (differential testing)
  std::shared_ptr<plugins::Client> policy_;
  std::shared_ptr<plugins::Client> policy_reference_;
  std::vector<std::shared_ptr<plugins::Client>> clients_;
};

}  // namespace t9k::sim
