#include "analysis/folder_commit.hpp"

#include <fcntl.h>
#include <stdio.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/outputs.hpp"
#include "analysis/result_folder.hpp"
#include "kernel/hash.hpp"
#include "kernel/kernel.hpp"

namespace t9k::analysis {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kPendingFile = ".t9ksim-pending.json";

fs::path beside(const fs::path& target, const char* suffix) {
  std::string name = ".";  // appended piece by piece: GCC 12 warns falsely on "." + s + suffix
  name += target.filename().string();
  name += suffix;
  return target.parent_path() / name;
}

void note(const std::string& text) {
  try {
    fmt::print(stderr, "t9ksim: note: {}\n", text);
  } catch (...) {
  }
}

bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

void remove_tree(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
  if (ec) throw OutputError(fmt::format("cannot remove {}: {}", p.string(), ec.message()), false);
}

void move(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec)
    throw OutputError(
        fmt::format("cannot rename {} to {}: {}", from.string(), to.string(), ec.message()), false);
}

// A visible name beside target that nothing uses yet: NAME.t9ksim-<what>, -2, -3...
fs::path free_name(const fs::path& target, const std::string& what) {
  const std::string base = target.filename().string() + ".t9ksim-" + what;
  fs::path p = target.parent_path() / base;
  for (int n = 2; present(p); ++n) p = target.parent_path() / fmt::format("{}-{}", base, n);
  return p;
}

// Puts the folder a commit set aside back in the target's place when the target is missing, with
// `why` said; false when there is nothing to restore.
bool restore_aside(const fs::path& target, const std::string& why) {
  if (present(target) || !present(aside_path(target))) return false;
  move(aside_path(target), target);
  note(fmt::format("restored {}: {}", target.string(), why));
  return true;
}

std::string content_hash(const std::string& content) {
  return kernel::format_fingerprint(kernel::hash_string(content));
}

bool marker_is(const fs::path& dir, const std::string& marker, const std::string& hash) {
  std::error_code ec;
  return fs::is_regular_file(dir / marker, ec) && hash_file(dir / marker) == hash;
}

// The swap itself: one exchange, or the fallback's two renames. Returns where the replaced folder
// is now ("" when target was absent).
fs::path exchange(const fs::path& staging, const fs::path& target) {
  if (!present(target)) {
    move(staging, target);
    return {};
  }
  const bool no_exchange = fault_injected("no-exchange");
  if (!no_exchange &&
      ::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
    return staging;  // now the old folder
  }
  if (!no_exchange && errno != EINVAL && errno != ENOSYS) {
    throw OutputError(fmt::format("cannot replace {}: {}", target.string(), std::strerror(errno)),
                      false);
  }
  const fs::path aside = aside_path(target);
  move(target, aside);
  fault_point("between-renames");
  move(staging, target);
  return aside;
}

// Removes the folder a commit replaced, unless it holds what its listing does not name.
// `partial_ok`: a removal cut short by a kill may have taken the listing already.
void remove_replaced(const fs::path& old, const fs::path& target, bool partial_ok = false) {
  if (old.empty() || !present(old)) return;
  // Names and sizes only: the old folder was checked whole when the writer started, under the
  // lock; this catches what appeared meanwhile without reading every byte again.
  const std::string problem = folder_problem(old, {}, partial_ok, false);
  if (problem.empty()) {
    remove_tree(old);
    return;
  }
  const fs::path kept = free_name(target, "previous");
  move(old, kept);
  note(
      fmt::format("{} was replaced, but the folder it replaced held content t9ksim did not list "
                  "({}); that folder was kept as {}",
                  target.string(), problem, kept.string()));
}

// Swap, then remove what was replaced; the journal says which marker is the new one.
void finish_swap(const fs::path& staging, const fs::path& target) {
  const fs::path old = exchange(staging, target);
  fault_point("after-swap");
  remove_replaced(old, target);
}

void resolve_journal(const fs::path& target) {
  const fs::path journal = journal_path(target);
  const fs::path staging = staging_path(target);
  const fs::path aside = aside_path(target);
  std::string marker, hash, command = "t9ksim";
  try {
    const json j = json::parse(read_text_file(journal));
    marker = j.at("marker").get<std::string>();
    hash = j.at("hash").get<std::string>();
    command = j.value("command", command);
  } catch (const std::exception&) {
    // Written atomically, so only an edit makes it unreadable: treated as no journal below.
  }
  if (!marker.empty() && marker_is(target, marker, hash)) {
    // The swap happened; what is left is the folder it replaced.
    if (present(staging) || present(aside)) {
      remove_replaced(present(staging) ? staging : aside, target, true);
      note(
          fmt::format("finished the interrupted commit of {} by {}: its results were in place; "
                      "the folder they replaced is removed",
                      target.string(), command));
    }
  } else if (!marker.empty() && marker_is(staging, marker, hash) &&
             folder_problem(staging, {}, false).empty()) {
    // The run had finished: its results were whole but not yet in place.
    if (present(target) && !present(aside) && !folder_problem(target, {}, false).empty()) {
      const fs::path kept = keep_as_new(staging, target);
      note(
          fmt::format("an interrupted commit of {} by {} found the folder changed since; its "
                      "finished results are kept in {}",
                      target.string(), command, kept.string()));
    } else {
      finish_swap(staging, target);
      remove_replaced(aside, target);
      note(
          fmt::format("completed the interrupted commit of {} by {}: its finished results are "
                      "now in place",
                      target.string(), command));
    }
  } else {
    restore_aside(
        target,
        fmt::format("a commit by {} was interrupted before its results were whole", command));
  }
  std::error_code ec;
  fs::remove(journal, ec);
}

// `t9ksim report`'s interrupted updates inside dir.
void resolve_pending(const fs::path& dir) {
  std::vector<fs::path> journals;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == kPendingFile) journals.push_back(it->path());
    if (it->path() == beside(it->path().parent_path() / kPendingFile, ".tmp"))
      fs::remove(it->path(), ec);
  }
  for (const auto& journal : journals) {
    const fs::path folder = journal.parent_path();
    try {
      const json j = json::parse(read_text_file(journal));
      const fs::path file = folder / j.at("file").get<std::string>();
      std::error_code ignore;
      fs::remove(beside(file, ".tmp"), ignore);  // StagedFile's temporary
      if (fs::is_regular_file(file, ignore) && hash_file(file) == j.at("hash").get<std::string>()) {
        relist_file(file);
        note(fmt::format("finished an interrupted t9ksim report: {} is listed", file.string()));
      } else {
        note(fmt::format("an interrupted t9ksim report left {} as it was", folder.string()));
      }
    } catch (const json::exception&) {
      note(fmt::format("removed {}, an unreadable record of an interrupted t9ksim report",
                       journal.string()));
    }
    fs::remove(journal, ec);
  }
}

}  // namespace

fs::path keep_as_new(const fs::path& staging, const fs::path& target) {
  const fs::path kept = free_name(target, "new");
  std::error_code ec;
  fs::rename(staging, kept, ec);
  return ec ? staging : kept;
}

fs::path staging_path(const fs::path& target) { return beside(target, ".t9ksim-staging"); }
fs::path aside_path(const fs::path& target) { return beside(target, ".t9ksim-old"); }
fs::path journal_path(const fs::path& target) { return beside(target, ".t9ksim-commit"); }

bool fault_injected(std::string_view name) {
  const char* faults = std::getenv("T9KSIM_FAULTS");
  if (faults == nullptr) return false;
  std::string_view rest(faults);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    if (rest.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

void fault_point(std::string_view point) {
  if (fault_injected(fmt::format("kill:{}", point))) std::raise(SIGKILL);
  if (fault_injected(fmt::format("stop:{}", point))) std::raise(SIGSTOP);  // until SIGCONT
}

void swap_in(const fs::path& staging, const fs::path& target, const std::string& marker,
             const std::string& command) {
  const json journal = {
      {"command", command}, {"marker", marker}, {"hash", hash_file(staging / marker)}};
  write_file_atomic(journal_path(target), journal.dump(2) + "\n");
  fault_point("before-swap");
  finish_swap(staging, target);
  std::error_code ec;
  fs::remove(journal_path(target), ec);
}

void recover_interrupted(const fs::path& target) {
  std::error_code ec;
  fs::remove(beside(target, ".t9ksim-commit.tmp"), ec);  // a journal cut short: nothing began
  if (present(journal_path(target))) {
    resolve_journal(target);
  } else if (!restore_aside(target, fmt::format("an interrupted commit had set it aside as {}",
                                                aside_path(target).string())) &&
             present(aside_path(target))) {
    remove_tree(aside_path(target));
    note(fmt::format("removed {}, a folder an earlier commit replaced",
                     aside_path(target).string()));
  }
  const fs::path staging = staging_path(target);
  if (present(staging)) {
    const bool had_files = !fs::is_directory(staging, ec) || !fs::is_empty(staging, ec);
    remove_tree(staging);
    if (had_files)
      note(
          fmt::format("removed {}: the incomplete outputs of an earlier t9ksim that did not "
                      "finish",
                      staging.string()));
  }
  if (fs::is_directory(target, ec)) resolve_pending(target);
}

void replace_listed_file(const fs::path& file, const std::string& content) {
  const fs::path journal = file.parent_path() / kPendingFile;
  const json entry = {{"file", file.filename().string()},
                      {"bytes", content.size()},
                      {"hash", content_hash(content)}};
  write_file_atomic(journal, entry.dump(2) + "\n");
  try {
    fault_point("report-before-rename");
    write_file_atomic(file, content);
  } catch (...) {
    std::error_code ec;
    fs::remove(journal, ec);  // nothing changed
    throw;
  }
  fault_point("report-after-rename");
  try {
    relist_file(file);
  } catch (const std::exception& e) {
    throw OutputError(fmt::format("{} was written but its listing was not updated ({}); the next "
                                  "t9ksim writing this folder finishes it",
                                  file.string(), e.what()),
                      false);
  }
  std::error_code ec;
  fs::remove(journal, ec);
}

}  // namespace t9k::analysis
