// Targets given on the command line (`size`, `sweep`): parsed, and checked against the scenario
// before anything runs, so a typo in a queue's name is an error, not a search that meets nothing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/goal.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::app {

// The targets parsed (analysis/goal.hpp syntax); nullopt after printing
// "t9ksim COMMAND: --target 'TEXT': why" for the first that does not parse.
std::optional<std::vector<analysis::Target>> parse_targets(std::string_view command,
                                                           const std::vector<std::string>& texts);

// A target on a queue or job kind the scenario does not have is met by no run (or vacuously):
// what is wrong, naming what exists; empty when the target's group exists (generator classes
// are not checked).
std::string unknown_target_group(const analysis::Target& t, const scenarios::Scenario& sc);

// parse_targets and unknown_target_group for every target of a command about `sc`: false after
// printing "t9ksim COMMAND: --target 'TEXT': why" for the first that is wrong.
bool targets_fit(std::string_view command, const std::vector<std::string>& texts,
                 const scenarios::Scenario& sc);

}  // namespace t9k::app
