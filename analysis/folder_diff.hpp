// Comparing two results folders (`t9ksim diff A B`, docs/outputs.md "Comparing two results"): the
// proof that two ways of running a scenario (in process and with plugins, two versions of a
// controller, two thread counts) gave the same results. What may differ between such runs is
// declared here, not guessed: the plugins' logs, what crossed to them, and the listing of those
// logs. Everything else is compared byte for byte (JSON files value for value, with the first
// differing path; other files by line, with the first differing line).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace t9k::analysis {

// One rule of what two equivalent results may differ in.
struct IgnoredPart {
  std::string where;  // "plugins/", "summary.json $.plugins"
  std::string why;
};
// The declared rules (docs/outputs.md lists them).
const std::vector<IgnoredPart>& ignored_parts();

struct FileDifference {
  std::string file;   // relative, '/'-separated
  std::string where;  // "line 12", "$.metrics.jobs_failed", "only in A"
  std::string a, b;   // the values there ("" when absent)
};

struct FolderDiff {
  std::size_t compared = 0;  // files compared
  std::size_t ignored = 0;   // files left aside by the rules
  std::vector<FileDifference> differences;
  bool same() const { return differences.empty(); }
};

// Throws std::runtime_error when a or b is not a folder or a file cannot be read.
// `extra_ignored`: more relative paths (files or folders ending in '/') to leave aside.
FolderDiff diff_folders(const std::filesystem::path& a, const std::filesystem::path& b,
                        const std::vector<std::string>& extra_ignored = {});

}  // namespace t9k::analysis
