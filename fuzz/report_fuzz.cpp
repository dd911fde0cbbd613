// libFuzzer entry point for `t9ksim report` on a results folder: the input, in the container
// format of fuzz_support.hpp, is the folder's files (`=== summary.json`, `=== jobs.csv`,
// `=== rep-1/summary.json`, ...; bytes before the first header are summary.json). They are
// written to a scratch folder and the page is built as the command builds it (a run,
// replications, a comparison or a sweep). A malformed folder may be refused with an error
// (std::runtime_error or a JSON error, which the command prints), never crash or hang; an error
// of another kind (an index out of range, a bad_alloc) is a bug and aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include <nlohmann/json.hpp>

#include "analysis/report.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parts = t9k::fuzz::split_parts(text, "summary.json");
  const auto dir = t9k::fuzz::fresh_scratch_dir();
  for (const auto& [name, bytes] : parts) t9k::fuzz::write_part(dir / name, bytes);
  try {
    (void)t9k::analysis::write_report(dir);
    ++t9k::fuzz::completed_inputs;
  } catch (const std::logic_error& e) {
    std::fprintf(stderr, "report_fuzz: logic_error escaped: %s\n", e.what());
    std::abort();
  } catch (const std::runtime_error& e) {
    t9k::fuzz::show(e.what());
  } catch (const nlohmann::json::exception& e) {
    t9k::fuzz::show(e.what());
  }
  return 0;
}
