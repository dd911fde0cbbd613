// Who may write a folder (docs/reliability.md "Output folders"): one t9ksim at a time, and none
// inside a folder another t9ksim is writing, nor around one, since a commit replaces the whole
// folder with everything under it.
#pragma once

#include <filesystem>

namespace t9k::analysis {

// Absolute, symlinks resolved, no trailing separator: how folders are compared and locked.
std::filesystem::path normal_folder_path(const std::filesystem::path& p);

// The lock file of a folder: beside it, so that it survives the folder's replacement.
std::filesystem::path lock_path(const std::filesystem::path& folder);

// Takes `folder`'s lock (an open-file-description lock on its lock file, released by the kernel
// when the process ends, so a kill never leaves a stale lock) and checks that no other t9ksim
// writes a folder above it or inside it; throws OutputError (usage) naming the other folder.
// Throws OutputError (usage) when another t9ksim writes a folder above `folder`: checked before a
// writer creates anything inside that folder (its parents, its lock file).
void check_no_writer_above(const std::filesystem::path& folder);

class FolderLock {
 public:
  explicit FolderLock(const std::filesystem::path& folder);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace t9k::analysis
