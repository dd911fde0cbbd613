// Recorded outputs ("oracles") of the equivalence tests (tests/README.md, "Recorded outputs"): a
// golden file committed beside the test holds one line per entry, "<key>: <payload>", as the code
// returned it when recorded. The test compares what the code returns now with the recording; with
// T9KSIM_RECORD_ORACLES=1 in the environment it rewrites the file from the code instead, so that a
// behaviour fix is one edit plus a re-recording whose diff shows every decision that changed.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernel/hash.hpp"

namespace t9k::testing {

inline bool recording_oracles() {
  const char* v = std::getenv("T9KSIM_RECORD_ORACLES");
  return v != nullptr && std::string_view(v) == "1";
}

// 8 hex digits of kernel::hash_string (FNV-1a 64, mixed, so any 32 bits of it are as good as
// any): stable on every platform, and half the size of the whole hash in files that hold tens of
// thousands of them. A changed result goes unnoticed only if its hash collides (odds 2^-32).
inline std::string hash_hex32(std::string_view text) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const auto h = static_cast<std::uint32_t>(kernel::hash_string(text));
  std::string out(8, '0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = kDigits[(h >> (28 - 4 * i)) & 0xF];
  return out;
}

// A golden file: in compare mode, its entries read at construction; in record mode, the entries
// the test adds, written by write(). Lines starting with '#' are comments (the header).
class Recording {
 public:
  Recording(std::string path, std::string header)
      : path_(std::move(path)), header_(std::move(header)), recording_(recording_oracles()) {
    if (recording_) return;
    std::ifstream in(path_);
    loaded_ = static_cast<bool>(in);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      const auto colon = line.find(": ");
      if (colon == std::string::npos) {
        malformed_.push_back(line);
        continue;
      }
      entries_.emplace(line.substr(0, colon), line.substr(colon + 2));
    }
  }

  const std::string& path() const { return path_; }
  bool recording() const { return recording_; }
  // Compare mode: the file was there and every line is "<key>: <payload>".
  bool loaded() const { return loaded_ && malformed_.empty(); }
  std::size_t size() const { return recording_ ? lines_.size() : entries_.size(); }

  // Compare mode: the recorded payload of key, or nullptr.
  const std::string* find(const std::string& key) const {
    const auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
  }

  // Record mode: entries are written in the order added.
  void add(const std::string& key, const std::string& payload) {
    lines_.push_back(key + ": " + payload);
  }
  bool write() const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    std::istringstream header(header_);
    for (std::string line; std::getline(header, line);) out << "# " << line << '\n';
    for (const auto& line : lines_) out << line << '\n';
    return static_cast<bool>(out.flush());
  }

  // What to tell the developer when the recording is missing or malformed.
  std::string unreadable() const {
    std::string why = loaded_ ? "malformed line in " + path_ + ": " + malformed_.front()
                              : "no recording at " + path_;
    return why + " (record it with T9KSIM_RECORD_ORACLES=1, tests/README.md)";
  }

 private:
  std::string path_, header_;
  bool recording_ = false, loaded_ = false;
  std::map<std::string, std::string> entries_;
  std::vector<std::string> malformed_, lines_;
};

// The entries that differ from the recording: the first in full (what the code returns now and
// what was recorded), the others by where they are, so that a change that touches many histories
// does not flood the output.
class Differences {
 public:
  void add(const std::string& where, const std::string& detail) {
    if (where_.empty()) first_ = where + ": " + detail;
    where_.push_back(where);
  }
  bool empty() const { return where_.empty(); }
  std::string report(const Recording& r) const {
    std::string out = std::to_string(where_.size()) + " difference(s) from the recording " +
                      r.path() + "\nfirst: " + first_ + "\nall (first difference of each):";
    for (const auto& w : where_) out += "\n  " + w;
    return out +
           "\nIf the change is intended, re-record with T9KSIM_RECORD_ORACLES=1 and explain "
           "the diff of the recording in the commit message (tests/README.md).";
  }

 private:
  std::vector<std::string> where_;
  std::string first_;
};

}  // namespace t9k::testing
