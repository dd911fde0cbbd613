#include "analysis/result_folder.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/folder_commit.hpp"
#include "analysis/outputs.hpp"
#include "kernel/hash.hpp"
#include "kernel/kernel.hpp"

namespace t9k::analysis {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kReplaceHint =
    "t9ksim replaces --out as a whole; choose a new or empty folder";

bool is_within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

json listing_json(const std::map<std::string, FileEntry>& files) {
  json j = json::object();
  for (const auto& [rel, e] : files) j[rel] = {{"bytes", e.bytes}, {"hash", e.hash}};
  return j;
}

// dir's marker document (with its "files" object) and its name, or null when dir has no listing.
json read_listing(const fs::path& dir, std::string* marker) {
  for (const char* m : {kSummaryMarker, kFilesMarker}) {
    const fs::path file = dir / m;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    try {
      json j = json::parse(read_text_file(file));
      if (j.is_object() && j.contains("files") && j["files"].is_object()) {
        if (marker) *marker = m;
        return j;
      }
    } catch (const std::exception&) {
    }
  }
  return nullptr;
}

}  // namespace

bool is_fixed_output_name(const std::string& name) {
  static const char* const kNames[] = {
      kSummaryMarker,   kFilesMarker, "report.html",   "sweep.csv",    "scenario.yaml", "jobs.csv",
      "timeseries.csv", "faults.csv", "occupancy.csv", "events.jsonl", "objects.yaml",  "plugins"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

std::string hash_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw OutputError(fmt::format("cannot read {}: {}", file.string(), std::strerror(errno)),
                      false);
  std::uint64_t h = 0xCBF29CE484222325ULL;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    const auto n = in.gcount();
    for (std::streamsize i = 0; i < n; ++i) {
      h ^= static_cast<unsigned char>(buf[i]);
      h *= 0x100000001B3ULL;
    }
  }
  if (in.bad()) throw OutputError(fmt::format("cannot read {}", file.string()), false);
  return kernel::format_fingerprint(kernel::mix64(h));  // as kernel::hash_string finishes
}

std::map<std::string, FileEntry> list_files(const fs::path& dir, const std::string& skip) {
  std::map<std::string, FileEntry> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    if (!it->is_regular_file()) continue;
    const std::string rel = it->path().lexically_relative(dir).generic_string();
    if (rel == skip) continue;
    out[rel] = FileEntry{it->file_size(), hash_file(it->path())};
  }
  return out;
}

std::string listing_difference(const fs::path& dir, const std::map<std::string, FileEntry>& listed,
                               const std::string& skip) {
  std::error_code ec;
  for (const auto& [rel, entry] : listed) {
    const fs::path f = dir / rel;
    if (!fs::is_regular_file(f, ec)) return fmt::format("{} is missing", rel);
    const auto bytes = fs::file_size(f, ec);
    if (bytes != entry.bytes)
      return fmt::format("{} has {} bytes, listed {}", rel, bytes, entry.bytes);
    if (hash_file(f) != entry.hash) return fmt::format("{} differs from its listed hash", rel);
  }
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) continue;
    const std::string rel = it->path().lexically_relative(dir).generic_string();
    if (rel != skip && !listed.contains(rel))
      return fmt::format("holds {}, which is not listed", rel);
  }
  return {};
}

std::string folder_problem(const fs::path& dir, const std::vector<std::string>& ignore,
                           bool unlisted_ok, bool hashes) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return {};
  if (!fs::is_directory(dir, ec)) return fmt::format("{} exists and is not a folder", dir.string());
  if (fs::is_empty(dir, ec)) return {};
  std::string marker;
  const json listing = read_listing(dir, &marker);
  if (listing.is_null()) {
    if (unlisted_ok) return {};
    return fmt::format(
        "{} is not empty and is not a folder t9ksim wrote (it has no summary.json or {} listing "
        "its files)",
        dir.string(), kFilesMarker);
  }
  const json& files = listing["files"];
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string rel = it->path().lexically_relative(dir).generic_string();
    if (it->is_directory() && !it->is_symlink()) continue;
    if (rel == marker || std::find(ignore.begin(), ignore.end(), rel) != ignore.end()) continue;
    const auto f = files.find(rel);
    if (!it->is_regular_file() || it->is_symlink() || f == files.end()) {
      return fmt::format("{} holds {}, which t9ksim did not write", dir.string(), rel);
    }
    if (f->value("bytes", std::uintmax_t{0}) != it->file_size() ||
        (hashes && f->value("hash", std::string()) != hash_file(it->path()))) {
      return fmt::format("{}: {} changed since t9ksim wrote it", dir.string(), rel);
    }
  }
  return {};
}

void check_replaceable(const fs::path& dir, const std::vector<std::string>& ignore) {
  if (const auto problem = folder_problem(dir, ignore, false); !problem.empty()) {
    throw OutputError(fmt::format("{}; {}", problem, kReplaceHint), true);
  }
}

ResultFolder::ResultFolder(const fs::path& target, FolderOptions options)
    : options_(std::move(options)) {
  const std::string shown = target.string();
  if (shown.empty()) throw OutputError("--out is empty; expected a folder", true);
  std::error_code ec;
  target_ = normal_folder_path(target);
  if (!target_.has_filename() || target_ == target_.root_path()) {
    throw OutputError(fmt::format("--out {}: {}", shown, kReplaceHint), true);
  }
  const fs::path cwd = normal_folder_path(fs::current_path());
  if (is_within(cwd, target_)) {
    throw OutputError(
        fmt::format("--out {} is the current folder or holds it; {}", shown, kReplaceHint), true);
  }
  for (const auto& in : options_.inputs) {
    if (in.empty() || in.native().front() == '<') continue;  // the embedded scenario
    const fs::path p = normal_folder_path(in);
    if (is_within(p, target_)) {
      throw OutputError(fmt::format("the input {} lies inside --out {}, which {} replaces as a "
                                    "whole; choose another --out",
                                    in.string(), shown, options_.command),
                        true);
    }
  }
  check_no_writer_above(target_);  // before anything is created inside the other's folder
  fs::create_directories(target_.parent_path(), ec);
  if (ec)
    throw OutputError(fmt::format("--out {}: cannot create {}: {}", shown,
                                  target_.parent_path().string(), ec.message()),
                      true);
  lock_.emplace(target_);
  recover_interrupted(target_);
  check_replaceable(target_);
  staging_ = staging_path(target_);
  fs::create_directory(staging_, ec);
  if (ec)
    throw OutputError(
        fmt::format("--out {}: cannot create {}: {}", shown, staging_.string(), ec.message()),
        true);
}

ResultFolder::~ResultFolder() {
  // Without commit the staging folder stays (hidden, without a complete marker, removed by the next
  // writer): a failed run's partial outputs, such as plugin logs, can still be read.
  if (!committed_) {
    try {
      fmt::print(stderr, "t9ksim: {} was left as it was; this {}'s incomplete outputs are in {}\n",
                 target_.string(), options_.command, staging_.string());
    } catch (...) {
    }
  }
}

void ResultFolder::commit_listing(const std::string& command) {
  options_.marker = kFilesMarker;
  options_.command = command;
  commit();
}

void ResultFolder::commit() {
  if (committed_) return;
  const auto files = list_files(staging_, options_.marker);
  const fs::path marker = staging_ / options_.marker;
  if (options_.marker == kSummaryMarker) {
    if (!fs::exists(marker))
      throw OutputError(fmt::format("{}: no summary.json was written", target_.string()), false);
    json j = json::parse(read_text_file(marker));
    j["files"] = listing_json(files);
    write_file_atomic(marker, j.dump(2) + "\n");
  } else {
    json j = {{"command", options_.command}, {"files", listing_json(files)}};
    write_file_atomic(marker, j.dump(2) + "\n");
  }
  fault_point("before-check");
  // The folder is checked again just before it is replaced: anything written into it since the
  // writer started (by a program that ignores the lock) stops the commit, and both are kept.
  if (const auto problem = folder_problem(target_, {}, false); !problem.empty()) {
    const fs::path kept = keep_as_new(staging_, target_);
    committed_ = true;  // the destructor has no staging folder to speak of
    throw OutputError(
        fmt::format("{} changed while this {} ran: {}; nothing was replaced; the new results are "
                    "in {}",
                    target_.string(), options_.command, problem, kept.string()),
        false);
  }
  swap_in(staging_, target_, options_.marker, options_.command);
  committed_ = true;
}

fs::path listing_owner(const fs::path& dir) {
  const fs::path own = normal_folder_path(dir);
  fs::path owner = own;
  fs::path d = own;
  for (int depth = 0; depth < 4 && d.has_relative_path(); ++depth, d = d.parent_path()) {
    const json listing = read_listing(d, nullptr);
    if (listing.is_null()) continue;
    if (d == own ||
        listing["files"].contains((own / kSummaryMarker).lexically_relative(d).generic_string()))
      owner = d;
  }
  return owner;
}

int relist_file(const fs::path& file) {
  const fs::path f = normal_folder_path(file);
  const fs::path own = f.parent_path();
  int updated = 0;
  fs::path dir = own;
  // The folder's own listing, and those of the folders above whose runs include it (a variant of
  // a comparison, a point of a sweep).
  for (int depth = 0; depth < 4 && dir.has_relative_path(); ++depth, dir = dir.parent_path()) {
    std::string marker;
    json j = read_listing(dir, &marker);
    if (j.is_null()) continue;
    if (dir != own &&
        !j["files"].contains((own / kSummaryMarker).lexically_relative(dir).generic_string()))
      continue;
    j["files"][f.lexically_relative(dir).generic_string()] = {{"bytes", fs::file_size(f)},
                                                              {"hash", hash_file(f)}};
    write_file_atomic(dir / marker, j.dump(2) + "\n");
    ++updated;
  }
  return updated;
}

}  // namespace t9k::analysis
