// `--plugin KIND=COMMAND` on run and compare (docs/plugins.md): a controller plugin for one job
// kind (GenericJob, PyTorchTrainingJob, DeepSpeedJob), for all three ("controllers"), or the
// elastic policy ("elastic-policy"). COMMAND is split into words as a shell would (quotes and
// backslashes), and runs in the current folder. These replace what the scenario names.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenarios/format/scenario.hpp"

namespace t9k::runs {

struct PluginArg {
  std::string target;  // a kind, "controllers" or "elastic-policy"
  scenarios::PluginSpec plugin;
};

// Splits a command line into words; nullopt for an unterminated quote.
std::optional<std::vector<std::string>> split_command(const std::string& line);

// Parses "KIND=COMMAND"; returns an error message on bad input.
std::optional<std::string> parse_plugin_arg(const std::string& text, kernel::SimDuration timeout,
                                            PluginArg& out);

// Puts the plugins into the scenario, replacing what it names for the same kinds or policy. The
// scenario's controllers.options.elasticPolicy is kept (initialize tells the plugin).
void apply_plugins(scenarios::Scenario& scenario, const std::vector<PluginArg>& plugins);

}  // namespace t9k::runs
