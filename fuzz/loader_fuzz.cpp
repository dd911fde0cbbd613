// libFuzzer entry point for the scenario and manifest loader: any byte string goes through the
// same code `t9ksim validate` runs, then every object that loads is serialised and loaded again;
// a scenario that loads is given the job estimate behind --max-jobs, and every message is
// formatted as the command line prints it. No input may crash, hang, leak or throw. File
// references are off, so inputs never read the disk.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "scenarios/format/serialize.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sc = t9k::scenarios;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  sc::LoadOptions options;
  options.allow_file_references = false;
  for (const auto& d : sc::validate_text(text, "fuzz", options))
    t9k::fuzz::show(sc::format_diagnostic(d));
  const auto set = sc::parse_manifests(text, "fuzz");
  for (const auto& loaded : set.objects) {
    (void)sc::parse_manifests(sc::to_json(loaded.object), "fuzz-json");
  }
  const auto scenario = sc::parse_scenario(text, "fuzz", options);
  if (scenario.ok() || !set.objects.empty()) ++t9k::fuzz::completed_inputs;
  if (scenario.ok()) (void)sc::estimate_jobs(*scenario.scenario);
  return 0;
}
