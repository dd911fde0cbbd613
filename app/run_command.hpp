// `t9ksim run`: load a scenario (or the embedded default), simulate it, write the outputs, and
// optionally check its `expect` block.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace t9k::app {

struct RunArgs {
  std::string scenario;  // empty: the embedded default scenario
  std::string out_dir = "t9ksim-out";
  std::optional<std::uint64_t> seed;
  std::uint64_t replication = 0;
  bool events = false;  // write events.jsonl
  bool check = false;   // check the scenario's expect block; exit 1 on a mismatch
  bool quiet = false;
};

// Returns the process exit code: 0 ok, 1 simulation error / invariant / failed check, 2 bad input.
int run_command(const RunArgs& args);

// The embedded default scenario's YAML text (scenarios/default.yaml, compiled in).
const char* default_scenario_text();

}  // namespace t9k::app
