// `t9ksim plugin serve controller|elastic-policy`: the built-in controllers or elastic policies
// behind the plugin protocol, on stdin and stdout (docs/plugins.md).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "app/commands.hpp"
#include "plugins/serve.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

void add_plugin_command(Commands& c) {
  auto serve_role = std::make_shared<std::string>();
  auto serve_policy = std::make_shared<std::optional<std::string>>();
  auto* plugin = c.add("plugin", "Plugin tools (docs/plugins.md)");
  plugin->require_subcommand(1);
  auto* serve = plugin->add_subcommand("serve",
                                       "Speak the plugin protocol on stdin/stdout with the "
                                       "built-in controllers or elastic policies");
  serve->add_option("ROLE", *serve_role, "controller | elastic-policy")
      ->required()
      ->check(CLI::IsMember({"controller", "elastic-policy"}));
  serve->add_option(
      "--policy", *serve_policy,
      "elastic-policy: fixed | greedy | checkpoint-aligned | goodput (default: the scenario's)");
  auto serve_protocol = std::make_shared<int>(2);
  serve
      ->add_option("--protocol", *serve_protocol,
                   "The newest protocol version to speak: 2 (when the simulator offers it) or 1 "
                   "(docs/protocol-v2.md)")
      ->check(CLI::IsMember({1, 2}));
  c.on(plugin, [serve_role, serve_policy, serve_protocol] {
    return plugins::serve(
        stdin, stdout,
        *serve_role == "controller" ? protocol::Role::Controller : protocol::Role::ElasticPolicy,
        *serve_policy, *serve_protocol);
  });
}

}  // namespace t9k::app
