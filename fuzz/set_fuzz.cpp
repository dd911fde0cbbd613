// libFuzzer entry point for `--set PATH=VALUE`: each line of the input (or of the part `sets` in
// the container format of fuzz_support.hpp, with the part `base` as the scenario) is one
// assignment, applied as run, sweep and size apply them: split_assignment, apply_sets, the loader
// over the result, and each finding pointed back at the base's line. No input may crash, hang or
// throw; file references are off.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sc = t9k::scenarios;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parts = t9k::fuzz::split_parts(text, "sets");
  const std::string base =
      parts.count("base") ? parts["base"] : std::string(t9k::fuzz::kBaseScenario);
  std::vector<std::string> sets;
  const std::string_view lines = parts["sets"];
  for (std::size_t pos = 0; pos < lines.size() && sets.size() < 64;) {
    const auto nl = std::min(lines.find('\n', pos), lines.size());
    const auto line = lines.substr(pos, nl - pos);
    // The command line refuses what split_assignment refuses; only the rest reaches apply_sets.
    if (sc::split_assignment(line)) sets.emplace_back(line);
    pos = nl + 1;
  }
  std::vector<sc::Diagnostic> errors;
  const std::string out = sc::apply_sets(base, sets, errors);
  for (const auto& d : errors) t9k::fuzz::show(sc::format_diagnostic(d));
  if (!errors.empty()) return 0;
  sc::LoadOptions options;
  options.allow_file_references = false;
  const auto loaded = sc::parse_scenario(out, "base.yaml", options);
  for (const auto& d : sc::point_at_sources(loaded.diagnostics, out, {{"base.yaml", base}})) {
    t9k::fuzz::show(sc::format_diagnostic(d));
  }
  if (loaded.ok()) {
    (void)sc::estimate_jobs(*loaded.scenario);
    ++t9k::fuzz::completed_inputs;
  }
  return 0;
}
