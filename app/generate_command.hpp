// `t9ksim generate SCENARIO --out DIR`: a scenario's generated workload written as explicit jobs
// (docs/scenario-format.md "t9ksim generate").
#pragma once

#include <cstdint>
#include <string>
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::app {

struct GenerateArgs {
  std::string scenario;  // empty: the embedded default scenario
  std::string out_dir;
  std::uint64_t replication = 0;
  bool quiet = false;
  std::int64_t max_jobs = scenarios::kDefaultMaxJobs;  // --max-jobs (docs/reliability.md)
};

// Writes DIR/<generator>.yaml (the jobs' manifests, in submission order) and DIR/scenario.yaml
// (the scenario with its generators replaced by explicit jobs naming them). Returns the exit
// code: 0 ok, 1 cannot write, 2 bad scenario.
int generate_command(const GenerateArgs& args);

}  // namespace t9k::app
