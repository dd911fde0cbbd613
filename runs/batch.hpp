// Many independent runs in parallel threads: what `compare` and `sweep` do per (variant or point,
// replication). Each run has its own world and random streams, so results do not depend on the
// thread count or the order runs finish in.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "runs/run_one.hpp"

namespace t9k::runs {

struct BatchRun {
  std::string label;        // "<variant>" or "point-3", for messages
  const std::string* text;  // the scenario this run simulates
  std::uint64_t replication;
  std::filesystem::path dir;  // its results folder
};

// Runs every entry with run_one (scenario_file names the texts and resolves relative paths) on
// `threads` threads (0: one per core), with a progress bar titled `what` unless quiet. Prints one
// line per failed run; returns the worst exit code.
int run_batch(const std::vector<BatchRun>& runs, const RunOne& run_one,
              const std::string& scenario_file, unsigned threads, const char* what, bool quiet);

}  // namespace t9k::runs
