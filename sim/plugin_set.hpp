// The world's plugins (docs/plugins.md): the processes its settings ask for, started when the
// world is built (each distinct command once, serving every kind it was given), handed to the
// controller driver as controllers and to the policy driver as its policy, and shut down when
// the run ends.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "controllers/controller.hpp"
#include "plugins/client.hpp"
#include "policies/elastic.hpp"
#include "sim/settings.hpp"

namespace t9k::sim {

class PluginSet {
 public:
  // Starts and initializes every plugin; throws plugins::PluginError, or ScenarioError for two
  // different plugins of one name.
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

 private:
  struct Served {
    model::JobKind kind;
    std::shared_ptr<plugins::Client> client;
  };
  std::optional<plugins::ScopedCpuPin> pin_;  // set while plugins run: first in, last out
  std::vector<Served> controllers_;
  std::shared_ptr<plugins::Client> policy_;
  std::vector<std::shared_ptr<plugins::Client>> clients_;
};

}  // namespace t9k::sim
