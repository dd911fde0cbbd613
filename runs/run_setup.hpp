// What a run simulated, in the words of its report's first screen (summary.json "setup",
// analysis::RunSetup): read off the loaded scenario, after every --set.
#pragma once

#include "analysis/outputs.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::runs {

analysis::RunSetup run_setup(const scenarios::Scenario& sc);

}  // namespace t9k::runs
