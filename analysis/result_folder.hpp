// A results folder is one run, whole, or clearly not (docs/reliability.md "Output folders").
//
// Every command that writes a folder (run, compare, sweep, size, test, generate, import) writes it
// through a ResultFolder: the files go to a staging folder beside the target, under a lock that
// refuses a second writer, and commit() lists every file (bytes and hash) in the completion marker,
// written last, then puts the staging folder in the target's place with one rename. A failed or
// killed command leaves the target as it was. The target may only be replaced when it is empty or
// is an earlier t9ksim folder whose files are exactly those its marker lists, unchanged, so that
// nothing a user put or edited there is lost; no input may lie inside it.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/folder_lock.hpp"

namespace t9k::analysis {

// Why a folder cannot be written. `usage` (exit 2): refused before anything ran (bad --out, an
// input inside it, a folder that is not t9ksim's, a second writer); otherwise an I/O failure.
class OutputError : public std::runtime_error {
 public:
  OutputError(const std::string& what, bool usage) : std::runtime_error(what), usage_(usage) {}
  bool usage() const { return usage_; }

 private:
  bool usage_;
};

// The completion markers. A results folder's is summary.json (its "files" object is added at
// commit); generate, import and test folders get kFilesMarker.
inline constexpr const char* kSummaryMarker = "summary.json";
inline constexpr const char* kFilesMarker = "t9ksim-files.json";

// Names t9ksim gives its own output files and folders (docs/outputs.md). A name taken from the
// user (a variant, a generator) that equals one of them would overwrite it, so it is refused.
bool is_fixed_output_name(const std::string& name);

struct FileEntry {
  std::uintmax_t bytes = 0;
  std::string hash;  // 16 hex digits: FNV-1a 64 mixed by SplitMix64 (kernel::hash_string)
};
// Relative generic path -> entry, for every regular file under dir except `skip` (relative).
std::map<std::string, FileEntry> list_files(const std::filesystem::path& dir,
                                            const std::string& skip = {});
// The first difference between dir's files (except `skip`) and `listed`, as "FILE is missing",
// "holds FILE, which is not listed" or "FILE has N bytes, listed M" / "FILE differs from its
// hash"; "" when they agree.
std::string listing_difference(const std::filesystem::path& dir,
                               const std::map<std::string, FileEntry>& listed,
                               const std::string& skip = {});
// The hash kernel::hash_string gives the file's bytes, read in blocks.
std::string hash_file(const std::filesystem::path& file);

struct FolderOptions {
  std::string command;                  // for messages: "run", "compare", ...
  std::string marker = kSummaryMarker;  // kSummaryMarker: the command writes it; else written here
  std::vector<std::filesystem::path>
      inputs;  // files the command reads; none may lie inside the target
};

class ResultFolder {
 public:
  // Checks the target, takes its lock and makes an empty staging folder; throws OutputError.
  ResultFolder(const std::filesystem::path& target, FolderOptions options);
  ~ResultFolder();  // without commit(): the staging folder is removed, the target untouched
  ResultFolder(const ResultFolder&) = delete;
  ResultFolder& operator=(const ResultFolder&) = delete;

  // Where the command writes. It has the same parent as the target, so relative paths to files
  // outside resolve the same from both.
  const std::filesystem::path& path() const { return staging_; }
  const std::filesystem::path& target() const { return target_; }
  // Lists every file in the marker and replaces the target with the staging folder.
  void commit();
  // The same for a command that failed but has files to keep (a plugin's logs): listed in
  // kFilesMarker, with `command` saying what the folder holds.
  void commit_listing(const std::string& command);

 private:
  std::filesystem::path target_;
  std::filesystem::path staging_;
  FolderOptions options_;
  std::optional<FolderLock> lock_;
  bool committed_ = false;
};

// Refuses (OutputError, usage) unless dir is missing, empty, or a t9ksim folder whose listed files
// are all present and unchanged with nothing else beside them. `ignore`: relative paths that may
// differ (report.html when the report command rewrites it).
void check_replaceable(const std::filesystem::path& dir,
                       const std::vector<std::string>& ignore = {});
// What check_replaceable would refuse, or "" (t9ksim report warns with it). `unlisted_ok`: a
// folder without a listing (a run inside a comparison, an older version's) is no problem.
// `hashes`: false compares names and sizes only.
std::string folder_problem(const std::filesystem::path& dir, const std::vector<std::string>& ignore,
                           bool unlisted_ok, bool hashes = true);

// The outermost folder whose listing includes dir's run (a comparison holding a variant), or dir:
// the folder whose lock guards an in-place update of dir.
std::filesystem::path listing_owner(const std::filesystem::path& dir);

// After `file` was rewritten in place (t9ksim report): updates its entry in its folder's listing
// and in the listings of the folders above that include that folder's run. Returns how many.
int relist_file(const std::filesystem::path& file);

}  // namespace t9k::analysis
