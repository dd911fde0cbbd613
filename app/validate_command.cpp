// `t9ksim validate FILE...`: scenario and manifest files checked by the code that loads them.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/commands.hpp"
#include "runs/exit_codes.hpp"
#include "runs/loading.hpp"
#include "scenarios/format/load.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

namespace {

// `t9ksim validate FILE...`: each file is a scenario or a manifest file, loaded by the same code
// the simulator uses. Prints "<file>: ok" or every finding; warnings do not fail a file.
int run_validate(const std::vector<std::string>& files) {
  bool all_ok = true;
  for (const auto& file : files) {
    const auto diagnostics = scenarios::validate_file(file);
    for (const auto& d : diagnostics) {
      fmt::print(d.severity == scenarios::Severity::Error ? stderr : stdout, "{}\n",
                 scenarios::format_diagnostic(d));
    }
    bool ok = !scenarios::has_errors(diagnostics);
    if (ok) {
      // A scenario's scheduler and world options are read by the simulator itself: check them
      // here too, so that validate never passes a scenario that run refuses.
      const auto loaded = scenarios::load_scenario(file);
      if (loaded.ok()) {
        for (const auto& d : runs::settings_problems(*loaded.scenario, file)) {
          fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
          ok = false;
        }
      }
    }
    if (!ok) {
      all_ok = false;
    } else {
      fmt::print("{}: ok\n", file);
    }
  }
  std::fflush(stdout);
  return all_ok ? runs::kExitOk : runs::kExitUsage;
}

}  // namespace

void add_validate_command(Commands& c) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto* validate =
      c.add("validate", "Check scenario and manifest files (exit 2 when any has an error)");
  validate->add_option("FILE", *files, "Scenario or manifest files (YAML or JSON)")->required();
  c.on(validate, [files] { return run_validate(*files); });
}

}  // namespace t9k::app
