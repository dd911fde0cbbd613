#include "analysis/folder_lock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "analysis/result_folder.hpp"

namespace t9k::analysis {

namespace fs = std::filesystem;

namespace {

constexpr const char* kLockSuffix = ".t9ksim-lock";

struct flock whole_file(short type) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 0;  // to the end, however long
  return fl;
}

// Whether another open file description (another t9ksim, or another lock in this one) holds the
// lock file's lock. F_OFD_GETLK asks without taking it, so a probe never makes the holder of the
// folder above or below fail.
bool held_by_other(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // no lock file: nobody ever wrote there
  struct flock fl = whole_file(F_WRLCK);
  const bool held = ::fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
  ::close(fd);
  return held;
}

bool is_lock_file(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.size() > std::strlen(kLockSuffix) + 1 && name.front() == '.' &&
         name.ends_with(kLockSuffix);
}

// The folder a lock file guards.
fs::path locked_folder(const fs::path& lock) {
  const std::string name = lock.filename().string();
  return lock.parent_path() / name.substr(1, name.size() - 1 - std::strlen(kLockSuffix));
}

// The nearest folder above `folder` that another t9ksim is writing.
std::optional<fs::path> writer_above(const fs::path& folder) {
  for (fs::path p = folder.parent_path(); p.has_relative_path(); p = p.parent_path()) {
    if (held_by_other(lock_path(p))) return p;
  }
  return std::nullopt;
}

// A folder inside `folder` that another t9ksim is writing (its lock file lies inside `folder`).
std::optional<fs::path> writer_below(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return std::nullopt;
  for (auto it = fs::recursive_directory_iterator(
           folder, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec) && is_lock_file(it->path()) && held_by_other(it->path())) {
      return locked_folder(it->path());
    }
  }
  return std::nullopt;
}

std::string inside_message(const fs::path& folder, const fs::path& other) {
  return fmt::format(
      "{} lies inside {}, which another t9ksim is writing (lock {} is held); its commit replaces "
      "that folder with everything in it; wait for it or choose an --out outside it",
      folder.string(), other.string(), lock_path(other).string());
}

}  // namespace

void check_no_writer_above(const fs::path& folder) {
  if (const auto other = writer_above(folder))
    throw OutputError(inside_message(folder, *other), true);
}

fs::path normal_folder_path(const fs::path& p) {
  fs::path n = fs::weakly_canonical(fs::absolute(p)).lexically_normal();
  if (!n.has_filename() && n.has_parent_path() && n != n.root_path()) n = n.parent_path();
  return n;
}

fs::path lock_path(const fs::path& folder) {
  std::string name = ".";  // appended piece by piece: GCC 12 warns falsely on "." + s + suffix
  name += folder.filename().string();
  name += kLockSuffix;
  return folder.parent_path() / name;
}

FolderLock::FolderLock(const fs::path& given) {
  const fs::path folder = normal_folder_path(given);
  const fs::path file = lock_path(folder);
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw OutputError(fmt::format("cannot create {}: {}", file.string(), std::strerror(errno)),
                      true);
  struct flock fl = whole_file(F_WRLCK);
  if (::fcntl(fd_, F_OFD_SETLK, &fl) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err != EAGAIN && err != EACCES)
      throw OutputError(fmt::format("cannot lock {}: {}", file.string(), std::strerror(err)), true);
    throw OutputError(
        fmt::format(
            "{} is being written by another t9ksim (lock {} is held); wait for it or choose "
            "another --out",
            folder.string(), file.string()),
        true);
  }
  // Checked after taking the lock: of two writers starting together, at least the later sees the
  // other, so a nested pair never both proceed.
  std::optional<fs::path> other = writer_above(folder);
  const bool above = other.has_value();
  if (!above) other = writer_below(folder);
  if (other) {
    ::close(fd_);
    fd_ = -1;
    throw OutputError(
        above ? inside_message(folder, *other)
              : fmt::format("{} holds {}, which another t9ksim is writing (lock {} is held); "
                            "replacing {} would delete it; wait for it or choose another --out",
                            folder.string(), other->string(), lock_path(*other).string(),
                            folder.string()),
        true);
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace t9k::analysis
