// Loading a scenario the way the commands that run it do: the loader's checks, then what the world
// itself refuses (its option maps), as one list of diagnostics.
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenarios/format/load.hpp"
#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::runs {

// What the world refuses of a loaded scenario (settings_problems): errors at their fields' lines,
// none when it accepts it. Commands get it passed in, so that their unit tests may leave it unset.
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

// A scenario a command loaded (load_runnable) from `text`, for its runs in this process
// (RunOneOptions::preloaded): loading is deterministic, so a copy is what parsing again gives.
// Told how many runs will copy it, it gives the last copy its traces' data and keeps none: a
// run's cursors then hold a trace's records alone and free them once replayed (docs/performance.md
// "A trace's records freed once replayed"). Runs on several threads copy it at once.
class PreloadedScenario {
 public:
  // `runs`: how many runs will copy it; 0, not known: it keeps its traces' data.
  PreloadedScenario(std::string text, std::string name, scenarios::ScenarioResult result,
                    std::size_t runs = 0);
  const std::string& text() const { return text_; }
  const std::string& name() const { return name_; }  // loaded under: its diagnostics' file
  bool ok() const { return ok_; }
  scenarios::ScenarioResult copy() const;

 private:
  const std::string text_;
  const std::string name_;
  const bool ok_;
  mutable std::mutex mu_;
  mutable scenarios::ScenarioResult result_;
  mutable std::size_t copies_left_;
};

// The scenario file a --set or --vary text was made from, for scenarios::point_at_sources: none
// for the embedded default (its lines are in no file the user has).
std::vector<scenarios::SourceText> sources_of(const std::string& file, const std::string& text);

// Loads a scenario as scenarios::parse_scenario does, then reads its option maps as the world
// will (sim::settings_from_scenario): an option the world refuses is a load error at the
// option's line (Scenario::option_marks) with its field path, so that no command starts runs
// the world would refuse, and `validate` reports it as it reports any other error.
scenarios::ScenarioResult load_runnable(const std::string& text, const std::string& name,
                                        const scenarios::LoadOptions& options = {});
// The same check of a loaded scenario: its errors (each at its option's line when it has one),
// none when the world accepts it.
std::vector<scenarios::Diagnostic> settings_problems(const scenarios::Scenario& sc,
                                                     const std::string& name);

}  // namespace t9k::runs
