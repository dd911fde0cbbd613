// `--plugin KIND=COMMAND` on run and compare (docs/plugins.md): a controller plugin for one job
// kind (GenericJob, PyTorchTrainingJob, DeepSpeedJob), for all three ("controllers"), or the
// elastic policy ("elastic-policy"). COMMAND is split into words as a shell would (quotes and
// backslashes), and runs in the current folder. These replace what the scenario names.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenarios/format/scenario.hpp"
#include "sim/settings.hpp"

namespace t9k::runs {

struct PluginArg {
  std::string target;  // a kind, "controllers" or "elastic-policy"
  scenarios::PluginSpec plugin;
  // compare: the variants it runs in ("VARIANT[,VARIANT...]:KIND=COMMAND"; "base" is the base
  // scenario). Empty: every run of the command (refused by compare, which must be told).
  std::vector<std::string> variants;
};

// Splits a command line into words; nullopt for an unterminated quote.
std::optional<std::vector<std::string>> split_command(const std::string& line);

// Parses "KIND=COMMAND" or "VARIANTS:KIND=COMMAND"; returns an error message on bad input.
std::optional<std::string> parse_plugin_arg(const std::string& text, kernel::SimDuration timeout,
                                            PluginArg& out);

// Puts the plugins into the scenario, replacing what it names for the same kinds or policy. The
// scenario's controllers.options.elasticPolicy is kept (initialize tells the plugin).
void apply_plugins(scenarios::Scenario& scenario, const std::vector<PluginArg>& plugins);

// `--reference builtin | KIND=builtin | KIND=COMMAND` (differential testing, docs/plugins.md):
// what a plugin's answers are compared with. `builtin` alone: every plugin of the run, with the
// built-in code of its role. A reference command is named after the plugin it checks, with
// "-reference" (its log file).
struct ReferenceArg {
  std::string target;  // "builtin" (all), a kind, "controllers", "elastic-policy"
  std::optional<scenarios::PluginSpec> plugin;  // none: the built-in code
};
std::optional<std::string> parse_reference_arg(const std::string& text, kernel::SimDuration timeout,
                                               ReferenceArg& out);
// The references of a run of `scenario` (its plugins applied): by kind and for the policy.
// `where_plugins_run`: leave out references to kinds or a policy no plugin runs (compare, where
// plugins run in some variants only); otherwise such a reference is refused by the world.
void apply_references(sim::PluginSettings& settings, const scenarios::Scenario& scenario,
                      const std::vector<ReferenceArg>& references, bool where_plugins_run = false);

}  // namespace t9k::runs
