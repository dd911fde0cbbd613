// Loading a scenario the way the commands that run it do: the loader's checks, then what the world
// itself refuses (its option maps), as one list of diagnostics.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::app {

// What the world refuses of a loaded scenario (app::settings_problems in the t9ksim executable):
// errors at their fields' lines, none when it accepts it. Code linked without the simulator
// (compare's unit tests) leaves it unset.
using SettingsCheck = std::function<std::vector<scenarios::Diagnostic>(const scenarios::Scenario&,
                                                                       const std::string& name)>;

// scenarios::parse_scenario, then `check` when set: a scenario it refuses is a load error like any
// other (diagnostics gain the error, the scenario is unset).
inline scenarios::ScenarioResult load_checked(std::string_view text, const std::string& name,
                                              const scenarios::LoadOptions& options,
                                              const SettingsCheck& check) {
  auto r = scenarios::parse_scenario(text, name, options);
  if (r.ok() && check) {
    auto refused = check(*r.scenario, name);
    if (!refused.empty()) {
      for (auto& d : refused) r.diagnostics.push_back(std::move(d));
      r.scenario.reset();
    }
  }
  return r;
}

}  // namespace t9k::app
