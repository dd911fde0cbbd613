// Helpers shared by the trace tests: scratch folders, scenario loading relative to a folder, and
// a whole-simulator run with its recorder and fingerprint.
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/recorder.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/world.hpp"

namespace t9k::tracetest {

namespace fs = std::filesystem;

inline const std::string kPhilly =
    std::string(T9KSIM_SOURCE_DIR) + "/data/traces/philly/philly.csv";

// An empty folder under the system's temporary folder, named t9ksim-traces-<name>.
inline fs::path temp_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("t9ksim-traces-" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

inline void write(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

inline scenarios::ScenarioResult parse(const std::string& yaml, const std::string& dir,
                                       bool skip = false) {
  scenarios::LoadOptions lo;
  lo.base_dir = dir;
  lo.skip_bad_trace_rows = skip;
  return scenarios::parse_scenario(yaml, "test.yaml", lo);
}

inline scenarios::Scenario load(const std::string& yaml, const std::string& dir) {
  auto r = parse(yaml, dir);
  if (!r.ok()) {
    for (const auto& d : r.diagnostics) UNSCOPED_INFO(scenarios::format_diagnostic(d));
  }
  REQUIRE(r.ok());
  return *r.scenario;
}

struct Run {
  analysis::Recorder rec;
  std::uint64_t fingerprint = 0;
  explicit Run(const scenarios::Scenario& sc)
      : rec(kernel::SimTime{sc.horizon}, analysis::Recorder::choose_bucket(sc.horizon)) {}
};

inline Run simulate(const scenarios::Scenario& sc) {
  Run run(sc);
  sim::World w(sc, 0, [&](const model::TimedChange& c) { run.rec.on_change(c); });
  w.run();
  run.rec.finish();
  run.fingerprint = w.fingerprint();
  return run;
}

}  // namespace t9k::tracetest
