// `t9ksim test PATH...`: the regression harness. Every scenario with an `expect` block under the
// given files and folders runs (all its replications, with --check), in parallel; one line per
// case in file order, `N passed, M failed`, exit 1 on any failure, and JUnit XML with --junit
// (docs/regression-testing.md). With --plugin, the cases run a controller or policy under
// test; with --reference, its every answer is compared with the reference's, and every case runs
// (one without an expect block passes when no answer differs).
#pragma once

#include <string>
#include <vector>

#include "runs/plugin_args.hpp"

namespace t9k::app {

struct TestArgs {
  std::vector<std::string> paths;  // scenario files and folders (searched recursively)
  std::string junit;               // JUnit XML report; empty: none
  std::string out_dir;   // each case's results in OUT/<case>; empty: a temporary folder, removed
  unsigned threads = 0;  // 0: one per hardware thread
  bool verbose = false;  // also the passing cases' messages (warnings)
  std::vector<runs::PluginArg> plugins;        // --plugin
  std::vector<runs::ReferenceArg> references;  // --reference
};

// 0 all passed, 1 a case failed, 2 bad arguments or no case found.
int test_command(const TestArgs& args);

}  // namespace t9k::app
