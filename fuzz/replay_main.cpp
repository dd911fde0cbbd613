// Replays files and folders through one fuzz target's entry point, without libFuzzer, so CTest
// replays every corpus under the GCC sanitizer build (the `ci` preset):
//   t9ksim_fuzz_replay TARGET [--min-complete N] PATH...
// --min-complete: fail unless at least N inputs went through every stage of the target
// (fuzz_support.hpp), so seeds that all stop at a first error are noticed.
// Each target's source is compiled here with its LLVMFuzzerTestOneInput renamed to
// t9ksim_fuzz_TARGET (fuzz/CMakeLists.txt).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_support.hpp"

#define T9KSIM_FUZZ_TARGETS(X) \
  X(loader)                    \
  X(overlay) X(set) X(trace_philly) X(trace_openb) X(trace_csv) X(trace_k8s_export) X(report)

#define T9KSIM_DECLARE(name) \
  extern "C" int t9ksim_fuzz_##name(const std::uint8_t* data, std::size_t size);
T9KSIM_FUZZ_TARGETS(T9KSIM_DECLARE)
#undef T9KSIM_DECLARE

namespace {

using Entry = int (*)(const std::uint8_t*, std::size_t);
struct Target {
  const char* name;
  Entry entry;
};
#define T9KSIM_ROW(name) Target{#name, &t9ksim_fuzz_##name},
constexpr Target kTargets[] = {T9KSIM_FUZZ_TARGETS(T9KSIM_ROW)};
#undef T9KSIM_ROW

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const Target* target = nullptr;
  if (argc >= 2) {
    for (const auto& t : kTargets) {
      if (std::strcmp(t.name, argv[1]) == 0) target = &t;
    }
  }
  if (!target) {
    std::fprintf(stderr, "usage: t9ksim_fuzz_replay TARGET PATH...\ntargets:");
    for (const auto& t : kTargets) std::fprintf(stderr, " %s", t.name);
    std::fprintf(stderr, "\n");
    return 2;
  }
  std::vector<fs::path> files;
  std::size_t min_complete = 0;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--min-complete") == 0 && i + 1 < argc) {
      min_complete = std::stoul(argv[++i]);
      continue;
    }
    const fs::path p(argv[i]);
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
    } else if (fs::is_regular_file(p)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "replay: no such file or folder: %s\n", argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    target->entry(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%s: replayed %zu inputs, %zu through every stage\n", target->name, files.size(),
              t9k::fuzz::completed_inputs);
  if (t9k::fuzz::completed_inputs < min_complete) {
    std::fprintf(stderr, "replay: %s: expected at least %zu inputs through every stage\n",
                 target->name, min_complete);
    return 1;
  }
  return files.empty() ? 1 : 0;
}
