// Scenario text with its generators replaced by explicit jobs (`t9ksim generate`,
// docs/scenario-format.md "t9ksim generate"): behaviours and random durations written back in
// the scenario format, exactly (doubles in shortest round-trip form, durations in microseconds).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scenarios/format/diagnostics.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::scenarios {

// A random duration as a flow mapping or a duration string, e.g. "1h30m" or
// {"lognormal": {"mu": 9.4, "sigma": 0.7}}; loading it gives the same distribution.
std::string to_scenario_json(const DurationDistribution& d);
// A behaviour block; loading it gives an equal behaviour.
std::string to_scenario_json(const JobBehaviour& b);

// One explicit job entry: the object named `name` in the manifest file `path` (relative to the
// new scenario's folder), submitted at `submit_at` with `behaviour`.
struct ExplicitJob {
  std::string path;
  std::string name;
  SimTime submit_at{};
  JobBehaviour behaviour;
};

// `scenario_yaml` (whose relative paths resolve against `scenario_dir`) with
// spec.workload.generators removed, `jobs` appended to spec.workload.jobs, spec.replications 1,
// and relative paths re-anchored to `out_dir`. Problems go to `errors`; the result is then empty.
std::string scenario_with_explicit_jobs(std::string_view scenario_yaml,
                                        const std::string& scenario_dir, const std::string& out_dir,
                                        const std::vector<ExplicitJob>& jobs,
                                        std::vector<Diagnostic>& errors);

}  // namespace t9k::scenarios
