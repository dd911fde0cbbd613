// libFuzzer entry point for scenario overlays (`t9ksim compare --variant`): the input is an overlay
// merged onto a base, or, in the container format of fuzz_support.hpp, parts `base` and
// `overlay`. The merge runs as compare runs it: merge_overlay, then the loader over the merged
// text, then each finding pointed back at the overlay's or the base's line. No input may crash,
// hang or throw; file references are off.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sc = t9k::scenarios;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parts = t9k::fuzz::split_parts(text, "overlay");
  const std::string base =
      parts.count("base") ? parts["base"] : std::string(t9k::fuzz::kBaseScenario);
  const std::string overlay = parts["overlay"];
  std::vector<sc::Diagnostic> errors;
  const std::string merged = sc::merge_overlay(base, overlay, "overlay.yaml", errors);
  for (const auto& d : errors) t9k::fuzz::show(sc::format_diagnostic(d));
  if (!errors.empty()) return 0;
  sc::LoadOptions options;
  options.allow_file_references = false;
  const auto loaded = sc::parse_scenario(merged, "base.yaml + overlay.yaml", options);
  for (const auto& d : sc::point_at_sources(loaded.diagnostics, merged,
                                            {{"overlay.yaml", overlay}, {"base.yaml", base}})) {
    t9k::fuzz::show(sc::format_diagnostic(d));
  }
  if (loaded.ok()) {
    (void)sc::estimate_jobs(*loaded.scenario);
    ++t9k::fuzz::completed_inputs;
  }
  return 0;
}
