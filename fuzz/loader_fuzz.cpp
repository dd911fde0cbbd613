// libFuzzer entry point for the scenario and manifest loader: any byte string goes through the
// same code `t9ksim validate` runs, then every object that loads is serialised and loaded again.
// No input may crash, hang or leak. File references are off, so inputs never read the disk.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scenarios/format/scenario.hpp"
#include "scenarios/format/serialize.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  t9k::scenarios::LoadOptions options;
  options.allow_file_references = false;
  (void)t9k::scenarios::validate_text(text, "fuzz", options);
  const auto set = t9k::scenarios::parse_manifests(text, "fuzz");
  for (const auto& loaded : set.objects) {
    (void)t9k::scenarios::parse_manifests(t9k::scenarios::to_json(loaded.object), "fuzz-json");
  }
  return 0;
}
