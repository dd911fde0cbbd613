// How a finished folder takes the place of the old one, and how the next writer finishes or undoes
// what a killed writer left (docs/reliability.md "Output folders").
//
// A commit is journalled: `.NAME.t9ksim-commit` beside the folder names the completion marker it
// commits and that marker's hash, and lives from before the swap until the folder it replaced is
// gone. The swap is one renameat2(RENAME_EXCHANGE), or, on a file system without it (NFS, CIFS,
// many FUSE mounts), two renames with the old folder stepping aside to `.NAME.t9ksim-old`. So the
// next writer, under the lock, can always tell which folder is the finished one: it completes a
// swap whose new folder is whole, restores the old folder otherwise, and says which.
//
// `t9ksim report` rewrites one file of a finished folder in place, journalled the same way
// (`.t9ksim-pending.json` in the folder, naming the file and its new hash): a kill leaves either
// the old file or the new one, and the next writer finishes the listing or removes the leftovers.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace t9k::analysis {

std::filesystem::path staging_path(const std::filesystem::path& target);
std::filesystem::path aside_path(const std::filesystem::path& target);
std::filesystem::path journal_path(const std::filesystem::path& target);

// Puts `staging` (whole, its marker `marker` written) in `target`'s place and removes the folder
// it replaced. If the old folder holds anything its listing does not name (content nobody should
// have written there while the lock was held), it is kept as `NAME.t9ksim-previous` and the
// command says so instead. Throws OutputError on an I/O failure, leaving a journal the next writer
// resolves.
void swap_in(const std::filesystem::path& staging, const std::filesystem::path& target,
             const std::string& marker, const std::string& command);

// Moves a finished staging folder to a visible name beside the target (NAME.t9ksim-new, -2...),
// for a commit that must not replace the target; returns where the results are (staging itself
// when the move failed).
std::filesystem::path keep_as_new(const std::filesystem::path& staging,
                                  const std::filesystem::path& target);

// Resolves what an interrupted writer of `target` left: a journalled commit, a staging folder, an
// old folder set aside, a pending update inside it. Prints one note per thing done. Call under
// `target`'s lock, before checking it.
void recover_interrupted(const std::filesystem::path& target);

// Replaces `file` (in a finished folder) with `content` and updates the listings that name it
// (relist_file), journalled so that a kill at any point leaves nothing the next writer refuses.
void replace_listed_file(const std::filesystem::path& file, const std::string& content);

// Test hooks (docs/reliability.md "Injected faults"): T9KSIM_FAULTS is a comma-separated list;
// "no-exchange" makes the swap take the fallback path, "kill:POINT" kills the process at POINT and
// "stop:POINT" stops it there (SIGSTOP) until the test sends SIGCONT. Points: before-check,
// before-swap, between-renames (fallback only), after-swap, report-before-rename,
// report-after-rename.
bool fault_injected(std::string_view name);
void fault_point(std::string_view point);

}  // namespace t9k::analysis
